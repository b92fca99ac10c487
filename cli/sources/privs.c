// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"
#include "sources/privs.h"

struct caps {
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
};

static int caps_get(struct caps *c)
{
	memset(c, 0, sizeof(*c));
	c->h.version = _LINUX_CAPABILITY_VERSION_3;
	return syscall(SYS_capget, &c->h, c->d) ? -errno : 0;
}

static int caps_set(struct caps *c)
{
	c->h.version = _LINUX_CAPABILITY_VERSION_3;
	c->h.pid = 0;
	return syscall(SYS_capset, &c->h, c->d) ? -errno : 0;
}

static bool has(const __u32 *set, int cap)
{
	return set[cap / 32] & (1u << (cap % 32));
}

static const char *cap_name(int cap)
{
	switch (cap) {
	case CAP_BPF:
		return "cap_bpf";
	case CAP_SYS_ADMIN:
		return "cap_sys_admin";
	case CAP_SYS_PTRACE:
		return "cap_sys_ptrace";
	case CAP_PERFMON:
		return "cap_perfmon";
	case CAP_NET_ADMIN:
		return "cap_net_admin";
	}
	return "cap_?";
}

bool privs_have(int cap)
{
	struct caps c;
	__u32 perm[2];

	if (caps_get(&c))
		return false;
	perm[0] = c.d[0].permitted;
	perm[1] = c.d[1].permitted;
	return has(perm, cap);
}

int privs_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct passwd *pw;
	uint64_t v;

	errno = 0;
	pw = getpwnam(name);
	if (!pw && !parse_u64(name, 1, UINT32_MAX - 1, &v))
		pw = getpwuid(v);
	if (pw) {
		*uid = pw->pw_uid;
		*gid = pw->pw_gid;
		return 0;
	}
	if (!parse_u64(name, 1, UINT32_MAX - 1, &v)) {
		*uid = v; /* a number no database names: its own group */
		*gid = v;
		return 0;
	}
	p_err("--user '%s': no such user", name);
	return -EINVAL;
}

int privs_drop(const int *keep, size_t n, const uid_t *uid, const gid_t *gid, char *kept,
	       size_t kept_len)
{
	__u32 want[_LINUX_CAPABILITY_U32S_3] = { 0 };
	const char *step;
	struct caps c;
	size_t i, off = 0;
	int cap, last, err;

	err = caps_get(&c);
	if (err) {
		step = "reading capabilities";
		goto fail;
	}
	kept[0] = 0;
	for (i = 0; i < n; i++) {
		__u32 perm[2] = { c.d[0].permitted, c.d[1].permitted };

		if (!has(perm, keep[i]))
			continue;
		want[keep[i] / 32] |= 1u << (keep[i] % 32);
		off += snprintf(kept + off, off < kept_len ? kept_len - off : 0, "%s%s",
				off ? "," : "", cap_name(keep[i]));
	}
	/*
	 * the bounding set first: dropping from it needs CAP_SETPCAP. A
	 * process started without it (systemd's User= with
	 * AmbientCapabilities=) keeps the bounding set it was given: with
	 * no_new_privs and no uid 0 it can gain nothing from it.
	 */
	last = 63;
	while (last > 0 && prctl(PR_CAPBSET_READ, last) < 0)
		last--;
	if (!has((__u32[2]){ c.d[0].effective, c.d[1].effective }, CAP_SETPCAP) && getuid())
		last = -1;
	for (cap = 0; cap <= last; cap++) {
		if (has(want, cap) || prctl(PR_CAPBSET_READ, cap) != 1)
			continue;
		if (prctl(PR_CAPBSET_DROP, cap)) {
			err = -errno;
			step = "dropping from the bounding set";
			goto fail;
		}
	}
	/* already that user (systemd's User=), with no other group: nothing to change */
	if (uid && getuid() == *uid && geteuid() == *uid && getgid() == *gid && getegid() == *gid &&
	    getgroups(0, NULL) == 0)
		uid = NULL;
	if (uid) {
		/* capabilities survive the change of user, then get trimmed below */
		if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
		    setresgid(*gid, *gid, *gid) || setresuid(*uid, *uid, *uid) ||
		    prctl(PR_SET_KEEPCAPS, 0)) {
			err = -errno;
			step = "changing user";
			goto fail;
		}
	}
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		c.d[i] = (struct __user_cap_data_struct){ .effective = want[i],
							  .permitted = want[i] };
	err = caps_set(&c);
	if (err) {
		step = "setting capabilities";
		goto fail;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		err = -errno;
		step = "clearing ambient capabilities";
		goto fail;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err = -errno;
		step = "setting no_new_privs";
		goto fail;
	}
	return 0;
fail:
	p_err("dropping privileges: %s: %s", step, strerror(-err));
	return err;
}
