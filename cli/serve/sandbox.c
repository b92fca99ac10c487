// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <seccomp.h>

#include "lib/log.h"
#include "serve/sandbox.h"

/* what serving needs, whatever the arguments */
static const char *const allowed[] = {
	/* descriptors */
	"read",
	"readv",
	"pread64",
	"write",
	"writev",
	"close",
	"fcntl",
	"lseek",
	"fstat",
	"newfstatat",
	"statx",
	"dup",
	/* waiting */
	"poll",
	"ppoll",
	"epoll_create1",
	"epoll_ctl",
	"epoll_wait",
	"epoll_pwait",
	"restart_syscall",
	/* the listener and its connections (no socket, bind, listen or connect) */
	"accept4",
	"accept",
	"recvfrom",
	"recvmsg",
	"sendto",
	"sendmsg",
	"shutdown",
	"setsockopt",
	"getsockopt",
	"getsockname",
	"getpeername",
	/* memory (mprotect and mmap below: never executable) */
	"brk",
	"munmap",
	"mremap",
	"madvise",
	/* time, randomness (GnuTLS), locks, identity */
	"clock_gettime",
	"clock_nanosleep",
	"gettimeofday",
	"nanosleep",
	"getrandom",
	"futex",
	"getpid",
	"gettid",
	"getuid",
	"geteuid",
	"getgid",
	"getegid",
	"getrusage",
	"sysinfo",
	"uname",
	/* signals (kill and tgkill below: to itself only) */
	"rt_sigaction",
	"rt_sigprocmask",
	"rt_sigreturn",
	"sigaltstack",
	"exit",
	"exit_group",
};

static void put(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

/* async-signal-safe: write(2) only */
static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char num[16];
	int n = si->si_syscall, i = sizeof(num);

	num[--i] = 0;
	do
		num[--i] = '0' + n % 10;
	while ((n /= 10) && i > 0);
	put("Error: export: the listener made system call ");
	put(num + i);
	put(", which its seccomp filter does not allow: stopped (a bug: please report "
	    "it, with 'ausyscall ");
	put(num + i);
	put("' for its name)\n");
	_exit(128 + SIGSYS);
}

/* what serving needs with these arguments only: one comparison each */
struct arg_rule {
	const char *name;
	unsigned int arg;
	enum scmp_compare op;
	scmp_datum_t mask, value; /* MASKED_EQ: arg & mask == value; EQ: arg == value */
};

#define NOT_WRITING (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_TMPFILE)

int sandbox_enter(void)
{
	const struct arg_rule rules[] = {
		/* files: read-only */
		{ "openat", 2, SCMP_CMP_MASKED_EQ, NOT_WRITING, 0 },
		{ "open", 1, SCMP_CMP_MASKED_EQ, NOT_WRITING, 0 },
		/* memory never executable */
		{ "mmap", 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0 },
		{ "mprotect", 2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0 },
		/* isatty() */
		{ "ioctl", 1, SCMP_CMP_EQ, 0, TCGETS },
		/* abort() and raise(): to itself */
		{ "tgkill", 0, SCMP_CMP_EQ, 0, (scmp_datum_t)getpid() },
		{ "kill", 0, SCMP_CMP_EQ, 0, (scmp_datum_t)getpid() },
		/* getrlimit() by prlimit64 without a new limit */
		{ "prlimit64", 2, SCMP_CMP_EQ, 0, 0 },
	};
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	struct scmp_arg_cmp cmp;
	scmp_filter_ctx ctx;
	const char *what = "";
	size_t i;
	int err = 0, nr;

	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (!ctx) {
		p_err("export: the listener's seccomp filter: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; !err && i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		what = allowed[i];
		nr = seccomp_syscall_resolve_name(allowed[i]);
		/* a call this architecture does not have is not needed on it */
		if (nr != __NR_SCMP_ERROR)
			err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	for (i = 0; !err && i < sizeof(rules) / sizeof(rules[0]); i++) {
		what = rules[i].name;
		nr = seccomp_syscall_resolve_name(rules[i].name);
		cmp = (struct scmp_arg_cmp){
			rules[i].arg, rules[i].op,
			rules[i].op == SCMP_CMP_MASKED_EQ ? rules[i].mask : rules[i].value,
			rules[i].op == SCMP_CMP_MASKED_EQ ? rules[i].value : 0
		};
		if (nr != __NR_SCMP_ERROR)
			err = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, &cmp);
	}
	what = "the SIGSYS handler";
	if (!err && sigaction(SIGSYS, &sa, NULL))
		err = -errno;
	what = "loading it";
	err = err ?: seccomp_load(ctx);
	seccomp_release(ctx);
	if (err)
		p_err("export: the listener's seccomp filter: %s: %s", what, strerror(-err));
	return err;
}
