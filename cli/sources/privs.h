/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Dropping privileges once the BPF objects are loaded: a long-running
 * command that serves others (export) keeps only the capabilities it
 * still uses, and may leave uid 0 altogether. Raw capget/capset and prctl:
 * the process is single-threaded, so no libcap/psx is needed.
 */
#ifndef __PPWATCH_SOURCES_PRIVS_H
#define __PPWATCH_SOURCES_PRIVS_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef CAP_BPF
#define CAP_BPF 39 /* linux/capability.h before 5.8 */
#endif

/* whether the process may use capability 'cap' (it is in its permitted set) */
bool privs_have(int cap);

/* a --user value: a name from the user database or a number; 0 or -EINVAL (reported) */
int privs_user(const char *name, uid_t *uid, gid_t *gid);

/*
 * Keep only the capabilities in keep[n] that the process has; drop every
 * other one from the effective, permitted, inheritable, ambient and
 * bounding sets, and set no_new_privs. With 'user' (uid and gid), change
 * to it first (no supplementary groups), keeping those capabilities. The
 * kept ones are written to 'kept' (e.g. "cap_bpf,cap_sys_admin"). 0, or
 * -errno (reported).
 */
int privs_drop(const int *keep, size_t n, const uid_t *uid, const gid_t *gid, char *kept,
	       size_t kept_len);

#endif /* __PPWATCH_SOURCES_PRIVS_H */
