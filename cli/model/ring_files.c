// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ring_files.h"

/* the line after p's, or NULL at the end */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

int ring_fdinfo_parse(const char *text, struct ring_slot *out, size_t max, size_t *n, __u32 *files)
{
	const char *p = text, *q;
	unsigned long v;
	char *end;
	size_t len;

	*n = 0;
	*files = 0;
	while (p && strncmp(p, "UserFiles:", 10))
		p = next_line(p);
	if (!p)
		return -EINVAL;
	v = strtoul(p + 10, &end, 10);
	if (end == p + 10 || v > 0xffffffffUL)
		return -EINVAL;
	*files = v;
	/* "%5u: NAME" lines until the next "Key:" line */
	for (p = next_line(p); p && *p == ' '; p = next_line(p)) {
		struct ring_slot s = { 0 };

		for (q = p; *q == ' '; q++)
			;
		v = strtoul(q, &end, 10);
		if (end == q || *end != ':' || v > 0xffffffffUL)
			break;
		s.slot = v;
		q = end + 1;
		if (*q == ' ')
			q++;
		len = strcspn(q, "\n");
		if (!strncmp(q, "<none>", 6) && len == 6)
			continue;
		if (!strncmp(q, "socket:[", 8)) {
			v = strtoul(q + 8, &end, 10);
			if (end == q + 8 || *end != ']' || !v || v > 0xffffffffUL)
				continue;
			s.ino = v;
		} else if (memchr(q, '/', len) || memchr(q, ':', len)) {
			continue; /* a path or a pseudo file's name: not a socket */
		} else {
			/* a dentry's name: a socket's is its protocol's ("UDP"), "" for some */
			if (len >= sizeof(s.name))
				len = sizeof(s.name) - 1;
			memcpy(s.name, q, len);
		}
		if (*n < max)
			out[*n] = s;
		(*n)++;
	}
	if (*n > max)
		*n = max;
	return 0;
}
