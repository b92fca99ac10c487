// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include "model/dump_level.h"
#include "sources/dump.h"

struct dump {
	kdump_ctx_t *ctx;
	int fd;
	char *vmcoreinfo;
	size_t vmcoreinfo_len;
};

static int status_errno(kdump_status s)
{
	switch (s) {
	case KDUMP_OK:
		return 0;
	case KDUMP_ERR_SYSTEM:
		return errno ? -errno : -EIO;
	case KDUMP_ERR_NOTIMPL:
		return -ENOTSUP;
	case KDUMP_ERR_NODATA:
	case KDUMP_ERR_ADDRXLAT:
		return -EFAULT;
	case KDUMP_ERR_EOF:
	case KDUMP_ERR_CORRUPT:
		return -EIO;
	case KDUMP_ERR_NOKEY:
		return -ENOENT;
	default:
		return -EINVAL;
	}
}

/*
 * makedumpfile's flattened stream (makedumpfile -F, and QEMU's
 * dump-guest-memory -z before QEMU 8.2's kdump-raw-* formats): a header
 * "makedumpfile" and then (offset, size, data) records. libkdumpfile
 * 0.5.1 reads the file they reassemble into, not the stream.
 */
static bool is_flattened(const uint8_t *hdr, size_t len)
{
	return len >= 16 && !memcmp(hdr, "makedumpfile\0\0\0\0", 16);
}

/*
 * An ELF core shorter than its own program headers say (a copy cut short,
 * a dump still being written, a full disk): the end its segments reach,
 * or 0 when the file is no 64-bit little-endian ELF core or is whole.
 * Read from the headers alone (the ELF and program headers: a few KiB),
 * every field bounded: the file is untrusted.
 */
static uint64_t elf_cut_short(int fd, const uint8_t *hdr, size_t len, uint64_t size)
{
	uint64_t end, want = 0;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uint16_t i;

	if (len < sizeof(eh))
		return 0;
	/* the fields are read as the host's: the check below admits little-endian only */
	memcpy(&eh, hdr, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	/* PN_XNUM: the count is elsewhere; libkdumpfile's to judge */
	if (eh.e_phentsize != sizeof(ph) || !eh.e_phnum || eh.e_phnum == PN_XNUM ||
	    eh.e_phoff > size)
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return eh.e_phoff +
			       (uint64_t)eh.e_phnum * sizeof(ph); /* the headers themselves */
		if (__builtin_add_overflow(ph.p_offset, ph.p_filesz, &end))
			continue; /* no segment ends there: a damaged header, libkdumpfile's to judge */
		if (end > want)
			want = end;
	}
	return want > size ? want : 0;
}

/*
 * A kdump-compressed file shorter than its own page descriptors say: the
 * end they reach (the descriptor table's, or the data of the last
 * DESC_TAIL pages' descriptors), or 0. Counting the pages dumped reads the
 * second bitmap (a bit a pfn: 32 KiB for 1 GiB); the data's end is the
 * furthest of the last descriptors' (zero pages share one early block, so
 * the last one alone may point back). A file cut short past all of those
 * is not caught here: its reads fail where they are.
 */
#define DESC_TAIL  4096
#define CHUNK	   65536
#define DESC_CHUNK (CHUNK / DL_DESC_BYTES * DL_DESC_BYTES) /* whole descriptors */

static uint64_t kdump_cut_short(int fd, const uint8_t *hdr, size_t len, uint64_t size)
{
	uint64_t n = 0, at, left, want, end, first;
	struct dl_layout lay;
	uint8_t buf[CHUNK];
	ssize_t got;
	size_t i;

	if (dl_layout_of(hdr, len, &lay))
		return 0;
	if (lay.desc_off > size)
		return lay.desc_off; /* the bitmaps are cut */
	for (at = lay.bitmap2_off, left = lay.bitmap2_len; left;) {
		got = pread(fd, buf, left < CHUNK ? left : CHUNK, (off_t)at);
		if (got <= 0)
			return lay.bitmap2_off + lay.bitmap2_len; /* the bitmap itself is cut */
		for (i = 0; i < (size_t)got; i++)
			n += (uint64_t)__builtin_popcount(buf[i]);
		at += (uint64_t)got;
		left -= (uint64_t)got;
	}
	if (!n)
		return 0;
	want = lay.desc_off + n * DL_DESC_BYTES;
	if (want > size)
		return want;
	first = n > DESC_TAIL ? n - DESC_TAIL : 0;
	for (want = 0, at = lay.desc_off + first * DL_DESC_BYTES;
	     at < lay.desc_off + n * DL_DESC_BYTES;) {
		left = lay.desc_off + n * DL_DESC_BYTES - at;
		got = pread(fd, buf, left < DESC_CHUNK ? left : DESC_CHUNK, (off_t)at);
		if (got < DL_DESC_BYTES)
			return 0;
		for (i = 0; i + DL_DESC_BYTES <= (size_t)got; i += DL_DESC_BYTES) {
			end = dl_desc_end(buf + i);
			if (end > want)
				want = end;
		}
		at += (uint64_t)got / DL_DESC_BYTES * DL_DESC_BYTES;
	}
	return want > size ? want : 0;
}

/* a kdump-compressed file's dump level (model/dump_level.h), or -1 */
static int level_of(int fd, const uint8_t *hdr, size_t len)
{
	uint8_t sub[DL_SUB_BYTES];
	long bs;

	bs = dl_block_size(hdr, len);
	if (bs < 0 || pread(fd, sub, sizeof(sub), bs) != (ssize_t)sizeof(sub))
		return -1;
	return dl_level(hdr, len, sub, sizeof(sub));
}

static void str_attr(kdump_ctx_t *ctx, const char *key, char *buf, size_t len)
{
	const char *s = NULL;

	if (kdump_get_string_attr(ctx, key, &s) != KDUMP_OK || !s)
		s = "";
	snprintf(buf, len, "%s", s);
}

int dump_open(const char *path, struct dump **out, struct dump_info *info, char *why, size_t whylen)
{
	struct dump *d = calloc(1, sizeof(*d));
	uint8_t hdr[DL_HEADER_BYTES]; /* the file's start: every format's header is in it */
	size_t hlen = 0;
	ssize_t got;
	kdump_num_t num = 0;
	kdump_status st;
	struct stat sb;
	char *raw = NULL;
	uint64_t want;
	const char *kind;
	int err;

	*out = NULL;
	memset(info, 0, sizeof(*info));
	if (!d)
		return -ENOMEM;
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		err = -errno;
		snprintf(why, whylen, "cannot open it");
		free(d);
		return err;
	}
	if (!fstat(d->fd, &sb))
		info->bytes = (uint64_t)sb.st_size;
	d->ctx = kdump_new();
	if (!d->ctx) {
		dump_close(d);
		return -ENOMEM;
	}
	got = pread(d->fd, hdr, sizeof(hdr), 0);
	if (got > 0)
		hlen = (size_t)got;
	if (is_flattened(hdr, hlen)) {
		snprintf(why, whylen,
			 "a flattened makedumpfile stream (makedumpfile -F; QEMU's "
			 "dump-guest-memory -z before 8.2), not the dump file it carries: "
			 "reassemble it with 'makedumpfile -R NEWFILE < DUMP' and give NEWFILE");
		dump_close(d);
		return -ENOTSUP;
	}
	want = elf_cut_short(d->fd, hdr, hlen, info->bytes);
	kind = "its ELF headers place memory and notes";
	if (!want) {
		want = kdump_cut_short(d->fd, hdr, hlen, info->bytes);
		kind = "its header and page descriptors place its data";
	}
	if (want) {
		snprintf(
			why, whylen,
			"truncated: %llu bytes, where %s up to byte %llu: an incomplete copy (a "
			"dump still being written, a full disk, a transfer cut short); copy it whole",
			(unsigned long long)info->bytes, kind, (unsigned long long)want);
		dump_close(d);
		return -EIO;
	}
	st = kdump_open_fd(d->ctx, d->fd);
	if (st != KDUMP_OK) {
		err = status_errno(st);
		snprintf(why, whylen, "not a dump libkdumpfile reads (ELF, kdump-compressed): %s",
			 kdump_get_err(d->ctx));
		dump_close(d);
		return err == -ENOTSUP || err == -EFAULT ? -EINVAL : err;
	}
	str_attr(d->ctx, KDUMP_ATTR_FILE_FORMAT, info->format, sizeof(info->format));
	info->dump_level = level_of(d->fd, hdr, hlen);
	str_attr(d->ctx, KDUMP_ATTR_ARCH_NAME, info->arch, sizeof(info->arch));
	if (kdump_get_number_attr(d->ctx, KDUMP_ATTR_PAGE_SIZE, &num) == KDUMP_OK)
		info->page_size = num;
	if (kdump_get_number_attr(d->ctx, KDUMP_ATTR_PTR_SIZE, &num) != KDUMP_OK || num != 8 ||
	    kdump_get_number_attr(d->ctx, KDUMP_ATTR_BYTE_ORDER, &num) != KDUMP_OK ||
	    num != KDUMP_LITTLE_ENDIAN) {
		snprintf(
			why, whylen,
			"a dump of %s, not of a 64-bit little-endian kernel: ppwatch reads those only",
			info->arch[0] ? info->arch : "an unknown architecture");
		dump_close(d);
		return -ENOTSUP;
	}
	/*
	 * the kernel's page tables translate addresses: Linux's, as VMCOREINFO
	 * describes them; libkdumpfile (0.5.1) gives VMCOREINFO only once the
	 * OS type is set
	 */
	kdump_set_string_attr(d->ctx, KDUMP_ATTR_OSTYPE, "linux");
	if (kdump_vmcoreinfo_raw(d->ctx, &raw) == KDUMP_OK && raw) {
		d->vmcoreinfo = raw;
		d->vmcoreinfo_len = strlen(raw);
	}
	/*
	 * a kdump-compressed file whose header names no machine (QEMU 7.2's
	 * dump-guest-memory -z leaves its utsname empty): libkdumpfile then has
	 * no address translation at all. VMCOREINFO's own keys say which
	 * kernel wrote it: the x86_64 page-table root (init_top_pgt, or
	 * init_level4_pgt before 4.13), arm64's kimage_voffset.
	 */
	if (!info->arch[0] && raw) {
		const char *a = strstr(raw, "SYMBOL(init_top_pgt)=") ||
						strstr(raw, "SYMBOL(init_level4_pgt)=") ?
					"x86_64" :
				strstr(raw, "NUMBER(kimage_voffset)=") ? "aarch64" :
									 NULL;

		if (a && kdump_set_string_attr(d->ctx, KDUMP_ATTR_ARCH_NAME, a) == KDUMP_OK) {
			snprintf(info->arch, sizeof(info->arch), "%s", a);
			info->arch_from_vmcoreinfo = true;
		}
	}
	kdump_clear_err(d->ctx);
	*out = d;
	return 0;
}

const char *dump_vmcoreinfo(struct dump *d, size_t *len)
{
	*len = d->vmcoreinfo_len;
	return d->vmcoreinfo;
}

int dump_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct dump *d = ctx;
	size_t got = n;
	kdump_status st;

	errno = 0;
	st = kdump_read(d->ctx, KDUMP_KVADDR, addr, buf, &got);
	if (st == KDUMP_OK && got == n)
		return 0;
	kdump_clear_err(d->ctx);
	return st == KDUMP_OK ? -EFAULT : status_errno(st);
}

void dump_close(struct dump *d)
{
	if (!d)
		return;
	if (d->ctx)
		kdump_free(d->ctx);
	if (d->fd >= 0)
		close(d->fd);
	free(d->vmcoreinfo);
	free(d);
}
