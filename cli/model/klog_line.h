/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One line of a kernel log, read (pure): its time in whichever form the
 * log keeps it, and what a "stalled pool shutdown" line says (the forms:
 * model/kernel_log.h). Nothing is trusted: text is kept as written,
 * numbers are read by their words and range-checked.
 */
#ifndef __PPWATCH_MODEL_KLOG_LINE_H
#define __PPWATCH_MODEL_KLOG_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KLOG_TEXT_MAX 200

enum klog_fmt {
	KF_NONE,    /* no timestamp */
	KF_KMSG,    /* a /dev/kmsg record */
	KF_DMESG,   /* [seconds since boot] */
	KF_DMESG_T, /* [Www Mmm dd hh:mm:ss yyyy], local time */
	KF_ISO,	    /* 2025-01-13T10:01:02.123+01:00 */
	KF_SYSLOG,  /* Mmm dd hh:mm:ss host kernel: (syslog, journalctl -k) */
	KF_MAX,
};

/* when a line was written, as far as it says */
struct klog_time {
	double mono; /* the printk clock: seconds since boot; NAN: none */
	/*
	 * A wall-clock time: Unix time when the line gave its zone (zoned),
	 * else its local fields counted as if UTC (klog_wall_unix() converts);
	 * NAN: none. noyear: the line did not say the year (syslog's form): 2000.
	 */
	double wall;
	bool zoned, noyear;
	double resolution; /* of the stamp that dates the line: 1 s, 1 us... */
};

/* one line that says "stalled pool shutdown" */
struct klog_line {
	uint64_t lineno; /* 1 = the first line fed */
	unsigned boot;	 /* 0 = the first boot of the log */
	enum klog_fmt fmt;
	struct klog_time t;
	bool has_id;
	uint32_t id;
	int64_t inflight;	  /* may be negative: a double release */
	int64_t sec;		  /* since the destroy */
	bool variant;		  /* words the upstream forms do not have */
	char dev[32];		  /* a device a variant names, "" */
	char stamp[48];		  /* the line's time as written, "" */
	char text[KLOG_TEXT_MAX]; /* the message as written (from the function's name on) */
};

/*
 * What one line is (tests, fuzzing). A KL_STALL fills *out (lineno and
 * boot are the caller's); *kernel gets a banner's release.
 */
enum klog_kind { KL_OTHER, KL_STALL, KL_STALL_UNREAD, KL_BANNER, KL_BOOT, KL_NEGATIVE };
enum klog_kind klog_parse_line(const char *line, size_t len, struct klog_line *out,
			       int64_t *negative, char *kernel, size_t kernel_len);

const char *klog_fmt_name(enum klog_fmt f);
/* a line's wall time as Unix time: zoned as it is, local by utc_offset_s, noyear in year */
double klog_wall_unix(const struct klog_time *t, double utc_offset_s, int year);
/* the fields of a civil date counted as UTC seconds (days_from_civil) */
double klog_civil_s(int year, int mon, int day, int h, int m, double s);

#endif /* __PPWATCH_MODEL_KLOG_LINE_H */
