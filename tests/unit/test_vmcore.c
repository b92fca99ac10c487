// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A crash dump's readers without a dump: VMCOREINFO's lines, the kernel's
 * kallsyms tables (each way a kernel keeps its addresses) and a
 * System.map, and the walk of the page_pools xarray, each on a memory
 * made by hand (regions at kernel addresses), against what was put there.
 */
#include <errno.h>
#include <math.h>

#include "lib/util.h"
#include "model/dump_level.h"
#include "model/pm_verdict.h"
#include "model/pp_magic.h"
#include "model/postmortem.h"
#include "model/snapshot.h"
#include "model/vmcore_holders.h"
#include "model/vmcore_syms.h"
#include "model/vmcore_walk.h"
#include "output/vmcore_records.h"
#include "fake_mem.h"
#include "unit.h"
#include "vmcore_fixture.h"

static void test_vmcoreinfo(void)
{
	static const char text[] = "OSRELEASE=7.3.4+deb13-amd64\nPAGESIZE=4096\n"
				   "SYMBOL(init_uts_ns)=ffffffff83a1c3e0\nKERNELOFFSET=1e00000\n"
				   "NUMBER(PG_head_mask)=-64\nno equals here\n=novalue\n"
				   "OSRELEASE=twice\nOFFSET(page.flags)=0\n\0JUNK=after the NUL\n";
	struct vmcoreinfo vi;
	uint64_t x;
	int64_t d;

	CHECK_INT(vmcoreinfo_parse(&vi, text, sizeof(text) - 1), 0);
	CHECK_STR(vmcoreinfo_get(&vi, "OSRELEASE"), "7.3.4+deb13-amd64"); /* the first kept */
	CHECK_INT(vmcoreinfo_symbol(&vi, "init_uts_ns", &x), 0);
	CHECK_INT(x, 0xffffffff83a1c3e0ULL);
	CHECK_INT(vmcoreinfo_hex(&vi, "KERNELOFFSET", &x), 0);
	CHECK_INT(x, 0x1e00000);
	CHECK_INT(vmcoreinfo_dec(&vi, "NUMBER(PG_head_mask)", &d), 0);
	CHECK_INT(d, -64);
	CHECK_INT(vmcoreinfo_dec(&vi, "OSRELEASE", &d), -EINVAL);
	CHECK_INT(vmcoreinfo_hex(&vi, "SYMBOL(nothing)", &x), -ENOENT);
	CHECK(vmcoreinfo_get(&vi, "JUNK") == NULL, "read past the note's NUL");
	CHECK_INT(vi.skipped, 2);
	vmcoreinfo_free(&vi);
	CHECK_INT(vmcoreinfo_parse(&vi, "nothing\n", 8), -ENODATA);
	vmcoreinfo_free(&vi);
}

/*
 * kallsyms tables of three symbols, "dpage_pools", "D__start_BTF",
 * "tshort", with tokens: each byte of a name a token but "page_" (token
 * 200) and "__" (token 201)
 */
#define NAMES  0xffffffff82000000ULL
#define NUMS   0xffffffff82100000ULL
#define TTABLE 0xffffffff82200000ULL
#define TINDEX 0xffffffff82300000ULL
#define OFFS   0xffffffff82400000ULL
#define RBASE  0xffffffff82500000ULL
#define TEXT   0xffffffff81000000ULL

static void put_tables(struct fake *f, const int32_t offs[3])
{
	uint8_t *names = region(f, NAMES, 4096), *tt = region(f, TTABLE, 4096);
	uint16_t *ti = (uint16_t *)region(f, TINDEX, 512);
	uint32_t *num = (uint32_t *)region(f, NUMS, 4);
	int32_t *o = (int32_t *)region(f, OFFS, 12);
	const char *syms[] = { "d\xc8pools", "D\xc9start_BTF", "tshort" };
	size_t at = 0, i, k, tl = 0;

	for (i = 0; i < 256; i++) {
		ti[i] = (uint16_t)tl;
		if (i == 200) {
			memcpy(tt + tl, "page_", 6);
			tl += 6;
		} else if (i == 201) {
			memcpy(tt + tl, "__", 3);
			tl += 3;
		} else {
			tt[tl++] = (uint8_t)i;
			tt[tl++] = 0;
		}
	}
	for (i = 0; i < 3; i++) {
		names[at++] = (uint8_t)strlen(syms[i]);
		for (k = 0; syms[i][k]; k++)
			names[at++] = (uint8_t)syms[i][k];
		o[i] = offs[i];
	}
	*num = 3;
}

static const char *vmcoreinfo_of_tables(bool base)
{
	static char buf[1024];

	snprintf(buf, sizeof(buf),
		 "SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_num_syms)=%llx\n"
		 "SYMBOL(kallsyms_token_table)=%llx\nSYMBOL(kallsyms_token_index)=%llx\n"
		 "SYMBOL(kallsyms_offsets)=%llx\n%s%llx\n",
		 (unsigned long long)NAMES, (unsigned long long)NUMS, (unsigned long long)TTABLE,
		 (unsigned long long)TINDEX, (unsigned long long)OFFS,
		 base ? "SYMBOL(kallsyms_relative_base)=" : "KERNELOFFSET=",
		 (unsigned long long)(base ? RBASE : 0));
	return buf;
}

static void one_scheme(bool base, const int32_t offs[3], uint64_t want_pp, uint64_t want_btf)
{
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct vs_want w[] = { { .name = "page_pools" },
			       { .name = "__start_BTF" },
			       { .name = "absent" } };
	struct vmcoreinfo vi;
	struct vs_result r;
	const char *t = vmcoreinfo_of_tables(base);

	put_tables(&f, offs);
	if (base)
		*(uint64_t *)region(&f, RBASE, 8) = TEXT;
	CHECK_INT(vmcoreinfo_parse(&vi, t, strlen(t)), 0);
	CHECK(vs_have_kallsyms(&vi), "the tables named");
	CHECK_INT(vs_kallsyms(&m, &vi, w, 3, &r), 0);
	CHECK_INT(r.syms, 3);
	CHECK_INT(w[0].seen, 1);
	CHECK_INT(w[0].addr, want_pp);
	CHECK_INT(w[1].addr, want_btf);
	CHECK_INT(w[2].seen, 0);
	/* the names cut short: said, never a wrong address */
	f.r[0].len = 5;
	CHECK_INT(vs_kallsyms(&m, &vi, w, 3, &r), -EFAULT);
	CHECK(strstr(r.why, "cut") != NULL, "%s", r.why);
	vmcoreinfo_free(&vi);
	fake_free(&f);
}

static void test_kallsyms(void)
{
	/* place-relative (6.15 on): &offsets[i] + offsets[i] */
	int32_t rel[3] = { 0x1000, -0x100, 0 };
	/* relative to kallsyms_relative_base, unsigned */
	int32_t base[3] = { 0x2000, 0x3000, 0x10 };
	/* absolute per-CPU: negative offsets below the base - 1, positive ones absolute */
	int32_t pcpu[3] = { -0x2001, 0x1234, -1 };

	one_scheme(false, rel, OFFS + 0x1000, OFFS + 4 - 0x100);
	one_scheme(true, base, TEXT + 0x2000, TEXT + 0x3000);
	one_scheme(true, pcpu, TEXT - 1 + 0x2001, 0x1234);
}

static void test_system_map(void)
{
	static const char vci[] = "SYMBOL(init_uts_ns)=ffffffff83a1c3e0\nKERNELOFFSET=2000000\n";
	static const char map[] = "ffffffff81000000 T _text\nffffffff81a1c3e0 D init_uts_ns\n"
				  "garbage line\nffffffff81b00000 d page_pools\n";
	static const char other[] = "ffffffff81a1c3f0 D init_uts_ns\n";
	struct vs_want w[] = { { .name = "page_pools" } };
	struct vmcoreinfo vi;
	struct vs_result r;

	CHECK_INT(vmcoreinfo_parse(&vi, vci, sizeof(vci) - 1), 0);
	CHECK_INT(vs_system_map(map, sizeof(map) - 1, &vi, w, 1, &r), 0);
	CHECK_INT(w[0].addr, 0xffffffff83b00000ULL);
	CHECK_INT(vs_system_map(other, sizeof(other) - 1, &vi, w, 1, &r), -ESTALE);
	CHECK(strstr(r.why, "another kernel") != NULL, "%s", r.why);
	CHECK_INT(vs_system_map("x\n", 2, &vi, w, 1, &r), -EINVAL);
	/* Debian's /boot/System.map-RELEASE: refused as the placeholder it is, naming the real one */
	{
		static const char stub[] = "ffffffffffffffff B The real System.map is in the "
					   "linux-image-<version>-dbg package\n";

		CHECK_INT(vs_system_map(stub, sizeof(stub) - 1, &vi, w, 1, &r), -EINVAL);
		CHECK(strstr(r.why, "placeholder") && strstr(r.why, "-dbg"), "%s", r.why);
	}
	vmcoreinfo_free(&vi);
}

static struct vmcore_layout small_layout(void)
{
	return vmcore_small_layout(false);
}

#define XA    0xffff888000001000ULL
#define NODE  0xffff888000002000ULL
#define POOL1 0xffff888000003000ULL
#define POOL2 0xff11000000004000ULL /* 5-level paging's direct map (-cpu max, Ice Lake on) */
#define NETD  0xffff888000005000ULL
#define TKC   0xffffffff83000000ULL

static void put_pool(struct fake *f, uint64_t at, uint32_t id, uint32_t hold, uint32_t rel,
		     uint64_t destroy, uint64_t detach_ns, uint64_t netdev, bool dma)
{
	uint8_t *p = region(f, at, 128);

	memcpy(p + 32, &hold, 4);
	memcpy(p + 36, &rel, 4);
	p[40] = dma ? 2 : 0;
	memcpy(p + 48, &destroy, 8);
	memcpy(p + 56, &netdev, 8);
	memcpy(p + 64, &id, 4);
	memcpy(p + 72, &detach_ns, 8);
}

/* netdev vb (ifindex 7) at NETD, and the timekeeper: CLOCK_MONOTONIC 100 s, 5 s suspended */
static void put_vb_and_clock(struct fake *f)
{
	uint64_t mono = 100ULL * NSEC_PER_SEC, boot = 5ULL * NSEC_PER_SEC, sec = 1700000000;
	uint8_t *tk;

	memcpy(region(f, NETD, 32), "vb\0", 3);
	f->r[f->n - 1].buf[16] = 7;
	tk = region(f, TKC + 8, 24);
	memcpy(tk, &mono, 8);
	memcpy(tk + 8, &boot, 8);
	memcpy(tk + 16, &sec, 8);
}

/* the memory of test_walk: an xarray of a live pool on vb and a destroyed one */
static void put_two_pools(struct fake *f, uint64_t *slots)
{
	uint64_t head = NODE | 2;

	memcpy(region(f, XA, 16) + 8, &head, 8);
	memcpy(region(f, NODE, 16 + 4 * 8) + 16, slots, 4 * 8);
	put_pool(f, POOL1, 12, 1000, 900, 0, 0, NETD, true);
	put_pool(f, POOL2, 13, 700, 400, 3, 95ULL * NSEC_PER_SEC, 0, false);
	put_vb_and_clock(f);
}

/* the dump's records read back as a recording: its report, with verdicts */
static json_t *dump_report(struct kmem *m, const struct vmcore_addrs *a,
			   const struct vmcore_haddrs *ha)
{
	struct vmcore_layout l = small_layout();
	struct vmcore_hstats st;
	struct scan_result scan = { 0 };
	struct recording r = { 0 };
	struct vmcore_walk w;
	struct snapshot s;
	struct pm *pm = pm_new();
	json_t *rep = NULL;
	char *buf = NULL;
	size_t len;
	FILE *out, *in;

	CHECK_INT(vmcore_walk(m, &l, a, &w), 0);
	CHECK_INT(snapshot_build(&s, &w.rd, NULL), 0);
	if (ha)
		CHECK_INT(vmcore_holders(m, &l, ha, &w.rd, &scan, &st), 0);
	out = open_memstream(&buf, &len);
	CHECK_INT(vmcore_records_write(out, &w, &s, ha ? &scan : NULL, "7.3.4+deb13-amd64", 60), 0);
	scan_free(&scan);
	fclose(out);
	in = fmemopen(buf, len, "r");
	CHECK_INT(recording_open_stream(&r, in, "(vmcore)"), 0);
	pm_report_live(pm, true);
	CHECK_INT(pm_read(pm, &r), 0);
	rep = pm_report(pm, "vmcore", NULL);
	CHECK(rep != NULL, "a report");
	if (rep)
		CHECK_INT(pm_add_verdicts(rep), 0);
	recording_close(&r);
	fclose(in);
	free(buf);
	pm_free(pm);
	snapshot_free(&s);
	vmcore_walk_free(&w);
	return rep;
}

static json_t *pool_by_id(json_t *rep, json_int_t id)
{
	json_t *p;
	size_t i;

	json_array_foreach(json_object_get(rep, "pools"), i, p)
	{
		if (json_integer_value(json_object_get(p, "id")) == id)
			return p;
	}
	return NULL;
}

static void test_report(void)
{
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct vmcore_addrs a = { .page_pools = XA, .tk_core = TKC, .page_size = 4096 };
	uint64_t slots[4] = { 0, POOL1, 0, POOL2 };
	json_t *rep, *zombie, *live;

	put_two_pools(&f, slots);
	rep = dump_report(&m, &a, NULL);
	CHECK_NEAR(json_number_value(json_object_get(rep, "time")), 1700000000, 0);
	CHECK_STR(json_string_value(json_object_get(json_object_get(rep, "kernel"), "release")),
		  "7.3.4+deb13-amd64");
	CHECK_INT(json_array_size(json_object_get(rep, "pools")), 2);
	zombie = pool_by_id(rep, 13);
	live = pool_by_id(rep, 12);
	CHECK(zombie && live, "both pools");
	if (zombie && live) {
		CHECK_STR(json_string_value(json_object_get(zombie, "state")), "zombie");
		CHECK_INT(json_integer_value(json_object_get(zombie, "inflight")), 300);
		CHECK_NEAR(json_number_value(json_object_get(zombie, "detach_age_s")), 10, 1e-9);
		CHECK_STR(json_string_value(
				  json_object_get(json_object_get(zombie, "verdict"), "verdict")),
			  "unknown");
		CHECK_STR(json_string_value(json_array_get(
				  json_object_get(json_object_get(zombie, "verdict"), "basis"), 0)),
			  "vmcore");
		CHECK(!json_is_true(json_object_get(zombie, "stalled")), "10 s < 60 s");
		CHECK_STR(json_string_value(json_object_get(live, "state")), "live");
		CHECK_INT(json_integer_value(json_object_get(live, "inflight")), 100);
		CHECK_STR(json_string_value(json_object_get(live, "device")), "vb");
		CHECK(json_object_get(live, "verdict") == NULL, "a live pool: no verdict");
	}
	json_decref(rep);
	/* no timekeeper (a kernel whose is not found): the destroy's age is not known, not 0 */
	a.tk_core = 0;
	rep = dump_report(&m, &a, NULL);
	zombie = pool_by_id(rep, 13);
	CHECK(zombie != NULL, "the zombie without a clock");
	if (zombie) {
		CHECK_INT(json_integer_value(json_object_get(zombie, "inflight")), 300);
		CHECK(json_is_null(json_object_get(zombie, "detach_age_s")) ||
			      !json_object_get(zombie, "detach_age_s"),
		      "detach_age_s %g with no clock",
		      json_number_value(json_object_get(zombie, "detach_age_s")));
		CHECK(!json_is_true(json_object_get(zombie, "stalled")), "no age: not stalled");
	}
	json_decref(rep);
	fake_free(&f);
}

#define INIT	    0xffffffff82000000ULL
#define SOCKFOPS    0xffffffff81000000ULL
#define TASK	    0xffff888000010000ULL
#define FILES	    0xffff888000011000ULL
#define FDT	    0xffff888000012000ULL
#define FDARR	    0xffff888000013000ULL
#define FILE_	    0xffff888000014000ULL
#define SOCKET	    0xffff888000015000ULL
#define INODE	    0xffff888000016000ULL
#define SK	    0xffff888000017000ULL
#define SKB1	    0xffff888000018000ULL
#define SKB2	    0xffff888000019000ULL
#define SKB3	    0xffff88800001a000ULL
#define PAGE_OFF    0xffff888100000000ULL
#define VMEMMAP	    0xffffea0000000000ULL
#define PFN_ADDR(n) (PAGE_OFF + (uint64_t)(n)*4096)
#define PAGE_OF(n)  (VMEMMAP + (uint64_t)(n)*64)

static void put_u64(struct fake *f, uint64_t at, uint64_t v)
{
	memcpy(region(f, at, 8), &v, 8);
}

/* change 8 bytes of memory already there */
static void poke(struct fake *f, uint64_t at, uint64_t v)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (at >= f->r[i].addr && at + 8 <= f->r[i].addr + f->r[i].len) {
			memcpy(f->r[i].buf + (at - f->r[i].addr), &v, 8);
			return;
		}
}

/* a struct page of the small layout: compound_head at 8, pp at 16 */
static void put_page(struct fake *f, unsigned pfn, uint64_t compound, uint64_t pp)
{
	uint8_t *p = region(f, PAGE_OF(pfn), 64);

	memcpy(p + 8, &compound, 8);
	memcpy(p + 16, &pp, 8);
}

/* an skb at at: head in pfn's page (head_frag), its shinfo's frags and frag_list */
static void put_skb(struct fake *f, uint64_t at, uint64_t next, unsigned head_pfn, bool head_frag,
		    const uint64_t *frags, uint8_t nr, uint64_t frag_list)
{
	uint8_t *s = region(f, at, 32), *sh;
	uint64_t head = PFN_ADDR(head_pfn);
	uint32_t end = 0x100, len = 1000;
	unsigned i;

	memcpy(s, &next, 8);
	memcpy(s + 8, &head, 8);
	memcpy(s + 16, &end, 4);
	memcpy(s + 20, &len, 4);
	s[24] = head_frag ? 2 : 0;
	sh = region(f, head + end, 16 + 16 * 4);
	sh[0] = nr;
	memcpy(sh + 8, &frag_list, 8);
	for (i = 0; i < nr; i++)
		memcpy(sh + 16 + 16 * i, &frags[i], 8);
}

/*
 * One process (pid 42, "holder") with a UDP socket at fds 3 and 5 (a dup):
 * its receive queue has an skb whose head (pfn 2), one frag (a tail page
 * of pfn 4) are POOL2's and another frag not a pool's, then an skb with
 * a frag_list skb whose head (pfn 9) is POOL2's.
 */
static void put_process(struct fake *f)
{
	uint64_t frags[2] = { PAGE_OF(5), PAGE_OF(7) }, fds[6] = { 0, 0, 0, FILE_, 0, FILE_ };
	uint8_t *t = region(f, TASK, 48), *sk;
	uint64_t v;
	uint32_t pid = 42;

	put_u64(f, INIT, TASK); /* init_task.tasks.next */
	v = INIT;
	memcpy(t, &v, 8);
	memcpy(t + 16, &pid, 4);
	memcpy(t + 20, &pid, 4);
	memcpy(t + 24, "holder", 6);
	v = FILES;
	memcpy(t + 40, &v, 8);
	put_u64(f, FILES, FDT);
	t = region(f, FDT, 16);
	t[0] = 6;
	v = FDARR;
	memcpy(t + 8, &v, 8);
	memcpy(region(f, FDARR, sizeof(fds)), fds, sizeof(fds));
	t = region(f, FILE_, 24);
	v = SOCKFOPS;
	memcpy(t, &v, 8);
	v = SOCKET;
	memcpy(t + 8, &v, 8);
	v = INODE;
	memcpy(t + 16, &v, 8);
	put_u64(f, INODE, 3367);
	put_u64(f, SOCKET, SK);
	sk = region(f, SK, 48);
	sk[0] = 2;				/* AF_INET */
	sk[2] = 7;				/* TCP_CLOSE: UDP's UNCONN */
	sk[4] = 5070 & 0xff, sk[5] = 5070 >> 8; /* skc_num, host order */
	memcpy(sk + 8, "\x7f\0\0\x01", 4);
	sk[16] = 2;  /* SOCK_DGRAM */
	sk[18] = 17; /* IPPROTO_UDP */
	v = SKB1;
	memcpy(sk + 32, &v, 8);
	put_skb(f, SKB1, SKB2, 2, true, frags, 2, 0);
	put_skb(f, SKB2, SK + 32, 3, false, NULL, 0, SKB3);
	put_skb(f, SKB3, 0, 9, true, NULL, 0, 0);
	put_page(f, 2, 0, POOL2);
	put_page(f, 4, 0, POOL2);
	put_page(f, 5, PAGE_OF(4) + 1, 0); /* a tail page: its head has pp */
	put_page(f, 7, 0, 0);		   /* not a pool's */
	put_page(f, 9, 0, POOL2);
	put_page(f, 3, 0, 0);
}

/* the sockets of the dump's processes, and their pages, named as holders */
static void test_holders(void)
{
	struct vmcore_layout l = small_layout();
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct vmcore_addrs a = { .page_pools = XA, .tk_core = TKC, .page_size = 4096 };
	struct vmcore_haddrs ha = { .init_task = INIT,
				    .socket_file_ops = SOCKFOPS,
				    .page_offset = PAGE_OFF,
				    .vmemmap = VMEMMAP,
				    .page_shift = 12 };
	uint64_t slots[4] = { 0, POOL1, 0, POOL2 };
	struct vmcore_hstats st;
	struct scan_result scan;
	struct vmcore_walk w;
	json_t *rep, *zombie, *h0;
	size_t i;

	put_two_pools(&f, slots);
	put_process(&f);
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(vmcore_holders(&m, &l, &ha, &w.rd, &scan, &st), 0);
	CHECK(st.walked, "%s", st.why);
	CHECK_INT(st.tasks, 1);
	CHECK_INT(st.fds, 2);
	CHECK_INT(st.sockets, 1); /* the dup is the same socket */
	CHECK_INT(scan.nowners, 2);
	CHECK_INT(st.skbs, 3);
	CHECK_INT(st.pages, 3);
	CHECK_INT(st.nonpp, 1); /* pfn 7's frag (skb 2's head is not a page fragment) */
	CHECK_INT(scan.nsocks, 1);
	if (scan.nsocks) {
		CHECK_INT(scan.socks[0].lport, 5070);
		CHECK_INT(scan.socks[0].protocol, 17);
		CHECK_INT(scan.socks[0].skbs, 3);
	}
	for (i = 0; i < scan.npages; i++) {
		CHECK_INT(scan.pages[i].pool, POOL2);
		CHECK_INT(scan.pages[i].holder, SK);
	}
	if (scan.npages == 3) {
		CHECK_INT(scan.pages[0].netmem, PAGE_OF(2));
		CHECK_INT(scan.pages[0].where, PPW_IN_HEAD);
		CHECK_INT(scan.pages[1].netmem, PAGE_OF(4)); /* the tail's head */
		CHECK_INT(scan.pages[1].where, PPW_IN_FRAG);
		CHECK_INT(scan.pages[2].netmem, PAGE_OF(9));
		CHECK_INT(scan.pages[2].where, PPW_IN_FRAGLIST);
	}
	scan_free(&scan);
	vmcore_walk_free(&w);
	/* through the records: the zombie's holder is pid 42's socket */
	rep = dump_report(&m, &a, &ha);
	zombie = pool_by_id(rep, 13);
	h0 = json_array_get(json_object_get(json_object_get(zombie, "holders"), "holders"), 0);
	CHECK(h0 != NULL, "a holder");
	CHECK_STR(json_string_value(json_object_get(h0, "kind")), "socket");
	CHECK_INT(json_integer_value(json_object_get(h0, "pages")), 3);
	CHECK_INT(json_integer_value(
			  json_object_get(json_array_get(json_object_get(h0, "owners"), 0), "pid")),
		  42);
	CHECK_INT(json_integer_value(
			  json_object_get(json_object_get(zombie, "holders"), "unattributed")),
		  297);
	json_decref(rep);
	/* a kernel whose BTF lacks what the walk reads: no walk, and why */
	l.h.pp = VM_ABSENT;
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(vmcore_holders(&m, &l, &ha, &w.rd, &scan, &st), 0);
	CHECK(!st.walked && strstr(st.why, "pp") != NULL, "%s", st.why);
	CHECK_INT(scan.nsocks, 0);
	vmcore_walk_free(&w);
	/* a process list that loops (the task points at itself): seen, not walked 2^20 times */
	l = small_layout();
	poke(&f, TASK, TASK);
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(vmcore_holders(&m, &l, &ha, &w.rd, &scan, &st), 0);
	CHECK(st.cut > 0 && strstr(st.why, "loops") != NULL, "%s", st.why);
	CHECK(st.tasks <= 4, "%llu tasks", (unsigned long long)st.tasks);
	CHECK_INT(scan.nsocks, 1);
	scan_free(&scan);
	vmcore_walk_free(&w);
	/* a damaged process list (a task the dump lacks): the walk stops and says so */
	l = small_layout();
	poke(&f, INIT, 0xffff888000f00000ULL);
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(vmcore_holders(&m, &l, &ha, &w.rd, &scan, &st), 0);
	CHECK(st.cut > 0 && strstr(st.why, "not in the dump") != NULL, "%s", st.why);
	scan_free(&scan);
	vmcore_walk_free(&w);
	fake_free(&f);
}

static void test_walk(void)
{
	struct vmcore_layout l = small_layout();
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	struct vmcore_addrs a = { .page_pools = XA, .tk_core = TKC, .page_size = 4096 };
	struct vmcore_walk w;
	struct snapshot s;
	uint64_t head = NODE | 2, slots[4] = { 0, POOL1, 0x16 /* a value? no: sibling */, POOL2 };
	size_t i;

	slots[2] = (1 << 2) | 2; /* a sibling entry: no pool */
	memcpy(region(&f, XA, 16) + 8, &head, 8);
	memcpy(region(&f, NODE, 16 + sizeof(slots)) + 16, slots, sizeof(slots));
	/* a live pool on netdev vb (ifindex 7), and a destroyed one with 300 pages out */
	put_pool(&f, POOL1, 12, 1000, 900, 0, 0, NETD, true);
	put_pool(&f, POOL2, 13, 700, 400, 3, 95ULL * NSEC_PER_SEC, 0, false);
	put_vb_and_clock(&f);
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(w.entries, 2);
	CHECK_INT(w.unreadable, 0);
	CHECK(w.clock, "the timekeeper read");
	CHECK_INT(w.rd.now_ns, 105ULL * NSEC_PER_SEC);
	CHECK_NEAR(w.real_s, 1700000000, 0);
	CHECK_INT(snapshot_build(&s, &w.rd, NULL), 0);
	CHECK_INT(s.n, 2);
	for (i = 0; i < s.n; i++) {
		const struct pool_row *r = &s.rows[i];

		if (r->id == 12) {
			CHECK_INT(r->state, ROW_LIVE);
			CHECK_INT(r->inflight, 100);
			CHECK_STR(r->device, "vb");
			CHECK_INT(r->dma, DMA_MAPPED);
		} else {
			CHECK_INT(r->id, 13);
			CHECK_INT(r->state, ROW_ZOMBIE);
			CHECK_INT(r->inflight, 300);
			CHECK_INT(r->inflight_bytes, 300 * 4096);
			CHECK_NEAR(r->detach_age_s, 10, 1e-9);
			CHECK_INT(r->retries, 2);
			CHECK_INT(r->dma, DMA_NOT_MAPPED);
		}
	}
	snapshot_free(&s);
	vmcore_walk_free(&w);
	/* a pool the dump lacks: counted and said, the others read */
	f.r[3].addr = 0x1000;
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(w.entries, 2);
	CHECK_INT(w.unreadable, 1);
	CHECK_INT(w.rd.n, 1);
	CHECK(strstr(w.first_error, "not in the dump") != NULL, "%s", w.first_error);
	vmcore_walk_free(&w);
	/* a node that points at itself: bounded by the depth */
	slots[0] = NODE | 2;
	memcpy(f.r[1].buf + 16, slots, sizeof(slots));
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK(w.xa_nodes <= 64, "%llu nodes", (unsigned long long)w.xa_nodes);
	CHECK_INT(w.rd.n, 1); /* each pool once */
	CHECK(w.duplicates > 0, "the loop said");
	vmcore_walk_free(&w);
	fake_free(&f);
}

#define VMM 0xffffea0000000000ULL

/* struct page pfn of the scan's memory: page_pool's (magic) of pool */
static void put_pp_page(uint8_t *pages, uint64_t pfn, uint64_t magic, uint64_t pool)
{
	memcpy(pages + pfn * 64 + 8, &magic, 8);
	memcpy(pages + pfn * 64 + 16, &pool, 8);
}

/*
 * A kernel before 6.8 (no page_pools xarray, no destroy_cnt, no user.id):
 * its pools found by the struct pages marked as theirs, a destroyed one
 * by its user count and dated by defer_start against jiffies_64.
 */
static void test_page_scan(void)
{
	struct vmcore_layout l = small_layout();
	struct fake f = { 0 };
	struct kmem m = { .read = fake_read, .ctx = &f };
	/* HZ 250: jiffies_64 starts 300 s of ticks short of 2^32, 100 s of CLOCK_MONOTONIC ago */
	uint64_t jiffies = (1ULL << 32) - 300 * 250 + 100 * 250;
	struct vmcore_addrs a = { .tk_core = TKC,
				  .page_size = 4096,
				  .vmemmap = VMM,
				  .max_pfn = 202,
				  .jiffies = jiffies };
	uint64_t defer = jiffies - 2500; /* destroyed 10 s before the dump */
	uint32_t users = 0;
	struct vmcore_walk w;
	struct snapshot s;
	uint8_t *pages, *tail;
	size_t i;

	l.destroy_cnt = l.id = l.detach_time = l.dma_mapped_head = VM_ABSENT;
	l.xa_head = l.xn_slots = VM_ABSENT;
	/* pfns 0..127 and 192..201 in the dump, 128..191 not (a hole) */
	pages = region(&f, VMM, 128 * 64);
	tail = region(&f, VMM + 192 * 64, 10 * 64);
	put_pp_page(pages, 3, PPW_PP_SIGNATURE, POOL1);
	put_pp_page(pages, 4, PPW_PP_SIGNATURE | 1, POOL1);	    /* the low bits are others' */
	put_pp_page(pages, 7, PPW_PP_SIGNATURE | 5ULL << 7, POOL2); /* a DMA index in it */
	put_pp_page(pages, 9, PPW_PP_SIGNATURE, 0x1234);	    /* no kernel pointer */
	put_pp_page(pages, 11, PPW_PP_SIGNATURE + 0x80000000000ULL, POOL2); /* not the magic */
	put_pp_page(pages, 12, 0, POOL2);
	for (i = 3; i < 8; i++)
		put_pp_page(tail, i, PPW_PP_SIGNATURE, POOL2);
	put_pool(&f, POOL1, 0, 1000, 900, 0, 0, NETD, true);
	memcpy(f.r[f.n - 1].buf + 92, &(uint32_t){ 2 }, 4);
	put_pool(&f, POOL2, 0, 700, 694, 0, 0, 0, false);
	memcpy(f.r[f.n - 1].buf + 92, &users, 4);
	memcpy(f.r[f.n - 1].buf + 104, &defer, 8);
	put_vb_and_clock(&f);

	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK(w.scan.ran, "the page scan ran");
	CHECK_INT(w.scan.pages, 138);
	CHECK_INT(w.scan.missing, 64);
	CHECK_INT(w.scan.pool_pages, 9);
	CHECK_INT(w.scan.bad_pool_ptr, 1);
	CHECK_INT(w.entries, 2);
	CHECK(strstr(w.first_error, "64 struct pages are not in the dump") != NULL, "%s",
	      w.first_error);
	CHECK_INT(snapshot_build(&s, &w.rd, NULL), 0);
	CHECK_INT(s.n, 2);
	for (i = 0; i < s.n; i++) {
		const struct pool_row *r = &s.rows[i];

		if (r->addr == POOL1) {
			CHECK_INT(r->state, ROW_LIVE);
			CHECK_INT(r->inflight, 100);
			CHECK_STR(r->device, "vb");
		} else {
			CHECK_INT(r->addr, POOL2);
			CHECK_INT(r->state, ROW_ZOMBIE);
			CHECK_INT(r->inflight, 6);
			/* 2,500 ticks at 250 HZ, less the tick the destroy may have ended */
			CHECK_NEAR(r->detach_age_s, 9.996, 1e-9);
		}
	}
	snapshot_free(&s);
	vmcore_walk_free(&w);

	/* without jiffies_64 the destroy is not dated: unknown, not 0 */
	a.jiffies = 0;
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(snapshot_build(&s, &w.rd, NULL), 0);
	for (i = 0; i < s.n; i++)
		if (s.rows[i].addr == POOL2)
			CHECK(isnan(s.rows[i].detach_age_s), "%g", s.rows[i].detach_age_s);
	snapshot_free(&s);
	vmcore_walk_free(&w);

	/* a max_pfn far past the memory: every missing 2 MiB skipped at two reads, bounded */
	a.max_pfn = 1ULL << 40;
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), 0);
	CHECK_INT(w.entries, 2);
	CHECK_INT(w.scan.pages + w.scan.missing, VW_MAX_PFN);
	CHECK(m.reads < 3 * (VW_MAX_PFN * 64 >> 21) + 100, "%llu reads",
	      (unsigned long long)m.reads);
	vmcore_walk_free(&w);

	/* nothing to scan by: no vmemmap */
	a.max_pfn = 202;
	a.vmemmap = 0;
	CHECK_INT(vmcore_walk(&m, &l, &a, &w), -ENOENT);
	vmcore_walk_free(&w);
	fake_free(&f);
}

/* makedumpfile's dump level from a kdump-compressed header: where it is, what it leaves out */
static void test_dump_level(void)
{
	uint8_t hdr[DL_HEADER_BYTES] = "KDUMP   ", sub[DL_SUB_BYTES] = { 0 };
	uint32_t v = 6, bs = 4096, lv = 31;
	char buf[64];

	memcpy(hdr + 8, &v, 4);
	memcpy(hdr + 428, &bs, 4);
	memcpy(sub + 8, &lv, 4);
	CHECK_INT(dl_block_size(hdr, sizeof(hdr)), 4096);
	CHECK_INT(dl_level(hdr, sizeof(hdr), sub, sizeof(sub)), 31);
	CHECK_STR(dl_excluded(31, buf, sizeof(buf)), "zero, cache, private cache, user, free");
	CHECK_STR(dl_excluded(1, buf, sizeof(buf)), "zero"); /* QEMU's -z */
	CHECK_STR(dl_excluded(0, buf, sizeof(buf)), "");
	CHECK_STR(dl_excluded(31, buf, 8), "zero, c"); /* cut, terminated */
	lv = 32;
	memcpy(sub + 8, &lv, 4);
	CHECK_INT(dl_level(hdr, sizeof(hdr), sub, sizeof(sub)), -1);
	v = 0; /* header_version 0: no dump_level */
	memcpy(hdr + 8, &v, 4);
	CHECK_INT(dl_level(hdr, sizeof(hdr), sub, sizeof(sub)), -1);
	bs = 1000;
	memcpy(hdr + 428, &bs, 4);
	CHECK_INT(dl_block_size(hdr, sizeof(hdr)), -1);
	CHECK_INT(dl_block_size(hdr, 100), -1);
	memcpy(hdr,
	       "\x7f"
	       "ELF",
	       4);
	CHECK_INT(dl_block_size(hdr, sizeof(hdr)), -1);

	/* where the parts are: header, 1 block of sub-header, 4 blocks of bitmaps, descriptors */
	{
		struct dl_layout lay;
		uint8_t desc[DL_DESC_BYTES] = { 0 };
		uint64_t off = 1ULL << 20;
		uint32_t n = 3000, sub_blocks = 1, bitmap_blocks = 4;

		memcpy(hdr, "KDUMP   ", 8);
		bs = 4096;
		memcpy(hdr + 428, &bs, 4);
		memcpy(hdr + 432, &sub_blocks, 4);
		memcpy(hdr + 436, &bitmap_blocks, 4);
		CHECK_INT(dl_layout_of(hdr, sizeof(hdr), &lay), 0);
		CHECK_INT(lay.bitmap2_off, 4 * 4096);
		CHECK_INT(lay.bitmap2_len, 2 * 4096);
		CHECK_INT(lay.desc_off, 6 * 4096);
		memcpy(desc, &off, 8);
		memcpy(desc + 8, &n, 4);
		CHECK_INT(dl_desc_end(desc), (1 << 20) + 3000);
		off = 0; /* no data: says no end */
		memcpy(desc, &off, 8);
		CHECK_INT(dl_desc_end(desc), 0);
		off = ~0ULL - 10; /* past 2^63: none */
		memcpy(desc, &off, 8);
		CHECK_INT(dl_desc_end(desc), 0);
		bitmap_blocks = 0;
		memcpy(hdr + 436, &bitmap_blocks, 4);
		CHECK_INT(dl_layout_of(hdr, sizeof(hdr), &lay), -1);
	}
}

int main(void)
{
	TEST(test_vmcoreinfo);
	TEST(test_kallsyms);
	TEST(test_system_map);
	TEST(test_walk);
	TEST(test_page_scan);
	TEST(test_dump_level);
	TEST(test_report);
	TEST(test_holders);
	return unit_done();
}
