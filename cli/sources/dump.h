/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A kernel crash dump, read through libkdumpfile (Debian's
 * libkdumpfile10): the formats kdump and QEMU write (ELF: /proc/vmcore as
 * saved, QEMU's dump-guest-memory; makedumpfile's and QEMU's compressed
 * kdump format: zlib, lzo, snappy, zstd), its VMCOREINFO, and its kernel
 * virtual addresses translated as the dumped kernel's page tables say.
 * The file is opened read-only and needs no privilege; what it holds is
 * untrusted (the model reading it bounds every read). ppwatch reads
 * 64-bit little-endian kernels; another dump is refused, naming its
 * architecture.
 *
 * 'make static' links cli/static/no_dump.c instead (Debian ships no
 * libkdumpfile.a): dump_open() refuses, saying so.
 */
#ifndef __PPWATCH_SOURCES_DUMP_H
#define __PPWATCH_SOURCES_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dump;

struct dump_info {
	char format[32]; /* libkdumpfile's name: "elf", "diskdump", ... */
	char arch[32];
	/* arch from the dump's header, or (QEMU 7.2's kdump files name none) from VMCOREINFO */
	bool arch_from_vmcoreinfo;
	uint64_t page_size;
	uint64_t bytes; /* the file's size */
	int dump_level; /* makedumpfile's -d of a kdump-compressed file; -1: none (ELF) */
};

/*
 * Open PATH: 0, or -errno with the reason in why (the message names the
 * file; -ENOTSUP: a format or architecture ppwatch does not read)
 */
int dump_open(const char *path, struct dump **out, struct dump_info *info, char *why,
	      size_t whylen);
/* VMCOREINFO's text (owned by the dump), or NULL: the dump has none */
const char *dump_vmcoreinfo(struct dump *d, size_t *len);
/* n bytes at a kernel virtual address: 0, or -EFAULT (not in the dump) / -EIO */
int dump_read(void *d, uint64_t addr, void *buf, size_t n);
void dump_close(struct dump *d);

#endif /* __PPWATCH_SOURCES_DUMP_H */
