/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Why a BPF object did not load, read from libbpf's warnings and the
 * verifier log they carry: the program, and the CO-RE relocation, helper,
 * kfunc or verifier complaint behind it, so the error says what the
 * kernel lacks without -d. Text in, text out: no libbpf here.
 */
#ifndef __PPWATCH_LIB_BPF_DIAG_H
#define __PPWATCH_LIB_BPF_DIAG_H

#include <stdbool.h>
#include <stddef.h>

enum bpf_diag_kind {
	BPF_DIAG_UNKNOWN,   /* nothing in the log says */
	BPF_DIAG_CORE_RELO, /* a field or type the kernel's BTF lacks */
	BPF_DIAG_HELPER,    /* a helper the kernel lacks or does not allow here */
	BPF_DIAG_KFUNC,	    /* a kernel function or symbol the kernel lacks */
	BPF_DIAG_VERIFIER,  /* the verifier rejected the program */
	BPF_DIAG_PRIVILEGE, /* not allowed to load at all */
	BPF_DIAG_MEMORY,    /* a map too large for the memory limits */
	BPF_DIAG_ATTACH,    /* loaded, but could not attach */
};

struct bpf_diag {
	enum bpf_diag_kind kind;
	int err;	/* -errno of the failing step */
	char prog[64];	/* the program that failed, or "" */
	char what[256]; /* the relocation, helper, symbol or verifier line */
};

/*
 * Append msg[0..n) to buf (size len, used bytes in it, NUL-terminated);
 * the new used count. A verifier log comes as one libbpf warning and can be
 * megabytes; its verdict is at its end ("... prohibited", "processed N
 * insns"), so a message that does not fit loses its middle, never its head
 * (the program's name) or its tail.
 */
size_t bpf_diag_append(char *buf, size_t len, size_t used, const char *msg, size_t n);

/* a diagnosis of one failed load or attach (err: its -errno) from libbpf's output */
void bpf_diag_parse(const char *log, int err, struct bpf_diag *d);
/* the same program for the same reason */
bool bpf_diag_same(const struct bpf_diag *a, const struct bpf_diag *b);
/* one line: "prog 'x': this kernel has no struct page_pool.p.napi (a CO-RE relocation)" */
const char *bpf_diag_str(const struct bpf_diag *d, char *buf, size_t len);

#endif /* __PPWATCH_LIB_BPF_DIAG_H */
