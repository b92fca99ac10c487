// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "lib/escape.h"
#include "lib/log.h"
#include "lib/util.h"
#include "model/vmcore_blocks.h"
#include "model/vmcore_syms.h"
#include "model/vmcore_holders.h"
#include "model/vmcore_walk.h"
#include "output/vmcore_records.h"
#include "sources/dump.h"
#include "sources/vmcore.h"
#include "sources/vmcore_btf.h"

/* the symbols a dump is read by */
enum {
	S_START_BTF,
	S_STOP_BTF,
	S_PAGE_POOLS,
	S_TK_CORE,
	S_TK_DATA,
	S_SHADOW_TK,
	S_INIT_TASK,
	S_SOCK_FOPS,
	S_PAGE_OFFSET,
	S_MAX_PFN,
	S_JIFFIES,
	S_VMEMMAP_BASE,
	S_N
};

static const char *const sym_names[S_N] = {
	[S_START_BTF] = "__start_BTF",	      [S_STOP_BTF] = "__stop_BTF",
	[S_PAGE_POOLS] = "page_pools",	      [S_TK_CORE] = "tk_core",
	[S_TK_DATA] = "timekeeper_data",      [S_SHADOW_TK] = "shadow_timekeeper",
	[S_INIT_TASK] = "init_task",	      [S_SOCK_FOPS] = "socket_file_ops",
	[S_PAGE_OFFSET] = "page_offset_base", [S_MAX_PFN] = "max_pfn",
	[S_JIFFIES] = "jiffies_64",	      [S_VMEMMAP_BASE] = "vmemmap_base",
};

/* what a dump does not give yet: the report's vmcore.not_read */
static const char *const not_read[] = {
	"queue_holders",  /* qdiscs, fragment queues, defer lists, TCP out-of-order queues */
	"fdless_sockets", /* orphans, accept queues, kernel sockets, sockets in flight */
	"page_ages",	  /* no ledger in a dump: when each page was taken */
	"stacks",	  /* sampled by a recorder only */
};

static int fail(int err, const char *path, const char *what, const char *todo)
{
	char name[256];

	esc_buf(name, sizeof(name), path, strlen(path));
	p_err("postmortem: %s: %s (%s)%s%s", name, what, strerror(-err), todo ? ": " : "",
	      todo ? todo : "");
	return err;
}

/* the symbols: the dump's kallsyms, or --system-map */
static int find_syms(struct kmem *m, const struct vmcore_opts *o, const struct vmcoreinfo *vi,
		     struct vs_want *want, struct vs_result *r)
{
	char *map = NULL;
	size_t len = 0;
	int err;

	if (o->system_map) {
		err = read_file(o->system_map, VS_MAP_MAX, &map, &len);
		if (err)
			return fail(
				err, o->system_map, "cannot read the System.map",
				"give the dumped kernel's (Debian: /usr/lib/debug/boot/System.map-RELEASE "
				"of linux-image-RELEASE-dbg)");
		err = vs_system_map(map, len, vi, want, S_N, r);
		free(map);
		if (err)
			return fail(err, o->system_map, r->why,
				    "give the System.map of the kernel the dump is of");
		return 0;
	}
	if (!vs_have_kallsyms(vi))
		return fail(-ENOENT, o->path, "VMCOREINFO names no kallsyms tables",
			    "give --system-map FILE, the dumped kernel's System.map (Debian: "
			    "/usr/lib/debug/boot/System.map-RELEASE of linux-image-RELEASE-dbg)");
	err = vs_kallsyms(m, vi, want, S_N, r);
	if (err)
		return fail(err, o->path, r->why,
			    "give --system-map FILE to read the symbols from");
	return 0;
}

static json_t *about_of(const struct vmcore_opts *o, const struct dump_info *di,
			const struct vmcoreinfo *vi, const struct vs_result *sr, size_t btf_bytes,
			const struct vmcore_walk *w, const struct vmcore_hstats *hst,
			const struct vmcore_bstats *bst, const struct kmem *m)
{
	json_t *nr = json_array(), *a, *h;
	size_t i;

	for (i = 0; nr && i < ARRAY_SIZE(not_read); i++)
		json_array_append_new(nr, json_string(not_read[i]));
	if (!hst->walked)
		json_array_append_new(nr, json_string("fd_sockets"));
	a = json_pack(
		"{s:s,s:s,s:I,s:s,s:s,s:o,s:s,s:I,s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:o,s:o}", "file",
		o->path, "format", di->format, "bytes", (json_int_t)di->bytes, "arch", di->arch,
		"arch_from", di->arch_from_vmcoreinfo ? "vmcoreinfo" : "header", "osrelease",
		vmcoreinfo_get(vi, "OSRELEASE") ? json_string(vmcoreinfo_get(vi, "OSRELEASE")) :
						  json_null(),
		"symbols", sr->how, "symbols_read", (json_int_t)sr->decoded, "btf_bytes",
		(json_int_t)btf_bytes, "clock", w->clock ? json_string("timekeeper") : json_null(),
		"list", json_string(w->scan.ran ? "struct pages" : "page_pools xarray"), "pools",
		(json_int_t)w->entries, "unreadable", (json_int_t)w->unreadable, "not_listed",
		(json_int_t)w->not_listed, "reads", (json_int_t)m->reads, "first_error",
		w->first_error[0] ? json_string(w->first_error) : json_null(), "not_read",
		nr ?: json_null());
	h = json_pack("{s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "walked", hst->walked, "processes",
		      (json_int_t)hst->tasks, "fds", (json_int_t)hst->fds, "sockets",
		      (json_int_t)hst->sockets, "skbs", (json_int_t)hst->skbs, "pages",
		      (json_int_t)hst->pages, "not_pool_pages", (json_int_t)hst->nonpp, "cut",
		      (json_int_t)hst->cut, "why",
		      hst->why[0] ? json_string(hst->why) : json_null());
	if (a &&
	    json_object_set_new(a, "dump_level",
				di->dump_level >= 0 ? json_integer(di->dump_level) : json_null())) {
		json_decref(a);
		a = NULL;
	}
	if (a && w->scan.ran &&
	    json_object_set_new(a, "page_scan",
				json_pack("{s:I,s:I,s:I,s:I}", "pages", (json_int_t)w->scan.pages,
					  "missing", (json_int_t)w->scan.missing, "pool_pages",
					  (json_int_t)w->scan.pool_pages, "bad_pool_ptr",
					  (json_int_t)w->scan.bad_pool_ptr))) {
		json_decref(a);
		a = NULL;
	}
	/* the item-block series' blocks, where the kernel has them (model/vmcore_blocks.h) */
	if (a &&
	    json_object_set_new(a, "item_blocks",
				bst->kernel_has ?
					json_pack("{s:I,s:I,s:I}", "pools", (json_int_t)bst->pools,
						  "blocks", (json_int_t)bst->blocks, "unreadable",
						  (json_int_t)bst->unreadable) :
					json_null())) {
		json_decref(a);
		a = NULL;
	}
	if (!a || !h || json_object_set_new(a, "holders", h)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* what no dump tells: ages of pages, when ppwatch first saw a pool */
static void dump_rows(struct snapshot *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		s->rows[i].seen_age_s = NAN;
		s->rows[i].oldest_age_s = NAN;
		s->rows[i].oldest_at_least = false;
	}
}

int vmcore_records(const struct vmcore_opts *o, FILE **f, json_t **about)
{
	struct vs_want want[S_N];
	struct vmcore_addrs addrs = { 0 };
	struct vmcore_layout lay;
	struct vmcoreinfo vi = { 0 };
	struct vmcore_walk w = { 0 };
	struct snapshot snap = { 0 };
	struct vmcore_haddrs ha = { 0 };
	struct vmcore_hstats hst = { 0 };
	struct vmcore_bstats bst = { 0 };
	struct scan_result scan = { 0 };
	struct dump_info di;
	struct vs_result sr;
	struct dump *d = NULL;
	struct btf *btf = NULL;
	FILE *out = NULL;
	struct kmem m = { .read = dump_read };
	const char *text, *release;
	char why[256];
	size_t len, i;
	uint32_t btf_bytes = 0;
	int err, fd;

	*f = NULL;
	*about = NULL;
	err = dump_open(o->path, &d, &di, why, sizeof(why));
	if (err)
		return fail(err, o->path, why,
			    err == -ENOTSUP || err == -EIO ? NULL : "give a kernel crash dump");
	m.ctx = d;
	text = dump_vmcoreinfo(d, &len);
	if (!text || vmcoreinfo_parse(&vi, text, len)) {
		err = fail(-ENODATA, o->path, "the dump has no VMCOREINFO",
			   "ppwatch finds the kernel's symbols and BTF through it: kdump's dumps "
			   "have it; a QEMU dump-guest-memory has it with -device vmcoreinfo and "
			   "the guest's qemu_fw_cfg module loaded");
		goto out;
	}
	for (i = 0; i < S_N; i++)
		want[i] = (struct vs_want){ .name = sym_names[i] };
	err = find_syms(&m, o, &vi, want, &sr);
	if (err)
		goto out;
	err = vmcore_btf_read(&m, want[S_START_BTF].addr, want[S_STOP_BTF].addr, &btf, why,
			      sizeof(why));
	if (err) {
		fail(err, o->path, why, "a kernel without CONFIG_DEBUG_INFO_BTF cannot be read");
		goto out;
	}
	btf__raw_data(btf, &btf_bytes);
	err = vmcore_layout_of(btf, &lay, why, sizeof(why));
	if (err) {
		fail(err, o->path, why, NULL);
		goto out;
	}
	if (want[S_PAGE_POOLS].seen > 1) {
		err = fail(-ENOTUNIQ, o->path, "the symbol page_pools is defined more than once",
			   "give --system-map FILE");
		goto out;
	}
	addrs.page_pools = want[S_PAGE_POOLS].addr;
	/* tk_core: a variable of its own, or an element of timekeeper_data[] */
	addrs.tk_core = want[S_TK_CORE].addr;
	if (!addrs.tk_core && want[S_TK_DATA].addr)
		addrs.tk_core = want[S_TK_DATA].addr + lay.tk_core_off;
	addrs.shadow_tk = want[S_SHADOW_TK].addr;
	vmcoreinfo_symbol(&vi, "init_uts_ns", &addrs.init_uts_ns);
	addrs.page_size = di.page_size;
	/* before 6.8 no list has every pool: the struct pages say whose they are */
	if (vmcoreinfo_symbol(&vi, "vmemmap", &addrs.vmemmap) && want[S_VMEMMAP_BASE].addr)
		kmem_u64(&m, want[S_VMEMMAP_BASE].addr, &addrs.vmemmap); /* x86_64's variable */
	if (want[S_MAX_PFN].addr)
		kmem_u64(&m, want[S_MAX_PFN].addr, &addrs.max_pfn);
	if (want[S_JIFFIES].addr)
		kmem_u64(&m, want[S_JIFFIES].addr, &addrs.jiffies);
	err = vmcore_walk(&m, &lay, &addrs, &w);
	if (err == -ENOENT) {
		fail(err, o->path,
		     addrs.page_pools ?
			     "the page_pools xarray cannot be read by its BTF" :
			     "no page_pools xarray (Linux 6.8 on), and no vmemmap (VMCOREINFO) "
			     "and max_pfn to scan the struct pages by",
		     NULL);
		goto out;
	}
	if (err) {
		fail(err, o->path, w.first_error[0] ? w.first_error : "walking the page pools",
		     NULL);
		goto out;
	}
	/* the item blocks' occupancy, into the pools' rows as a live walk's is */
	err = vmcore_blocks(&m, &lay, addrs.vmemmap, (uint32_t)di.page_size, &w.rd, &bst);
	if (err) {
		p_err("postmortem: reading the item blocks: %s", strerror(-err));
		goto out;
	}
	err = snapshot_build(&snap, &w.rd, NULL);
	if (err) {
		p_err("postmortem: %s", strerror(-err));
		goto out;
	}
	/* who holds the pages: the sockets the dump's processes have an fd for */
	ha.init_task = want[S_INIT_TASK].addr;
	ha.socket_file_ops = want[S_SOCK_FOPS].addr;
	if (want[S_PAGE_OFFSET].addr)
		kmem_u64(&m, want[S_PAGE_OFFSET].addr, &ha.page_offset);
	ha.vmemmap = addrs.vmemmap;
	for (ha.page_shift = 12; (1ULL << ha.page_shift) < di.page_size && ha.page_shift < 20;)
		ha.page_shift++;
	err = vmcore_holders(&m, &lay, &ha, &w.rd, &scan, &hst);
	if (err) {
		p_err("postmortem: walking the dump's processes: %s", strerror(-err));
		goto out;
	}
	dump_rows(&snap);
	release = vmcoreinfo_get(&vi, "OSRELEASE");
	fd = memfd_create("ppwatch-vmcore", MFD_CLOEXEC);
	out = fd >= 0 ? fdopen(fd, "w+") : NULL;
	err = out ? vmcore_records_write(out, &w, &snap, hst.walked ? &scan : NULL, release,
					 o->stall_after) :
		    -errno;
	if (!err && (fflush(out) || fseek(out, 0, SEEK_SET)))
		err = -errno;
	if (err) {
		p_err("postmortem: the dump's records: %s", strerror(-err));
		if (out)
			fclose(out);
		else if (fd >= 0)
			close(fd);
		goto out;
	}
	*f = out;
	*about = about_of(o, &di, &vi, &sr, btf_bytes, &w, &hst, &bst, &m);
	if (!*about) {
		fclose(*f);
		*f = NULL;
		err = -ENOMEM;
		p_err("postmortem: %s", strerror(ENOMEM));
	}
out:
	scan_free(&scan);
	snapshot_free(&snap);
	vmcore_walk_free(&w);
	btf__free(btf);
	vmcoreinfo_free(&vi);
	dump_close(d);
	return err;
}
