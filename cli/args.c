// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "lib/util.h"
#include "main.h"
#include "sources/stacks.h"

/* a filter of that kind; usage errors reported */
static int add_filter(struct view_opts *v, enum pool_filter_kind kind, const char *word)
{
	int err = view_add_filter(v, kind, word);

	if (err == -E2BIG)
		usage_error("at most %d pool/device filters", VIEW_MAX_FILTERS);
	else if (err && kind == PF_NETNS)
		usage_error("netns '%s': expected a name of ip netns or a namespace's inode", word);
	else if (err)
		usage_error("ifindex '%s': expected an interface index", word);
	return err ? -EINVAL : 0;
}

/*
 * netns NAME|INODE: a name of 'ip netns' (/run/netns/NAME) becomes its
 * inode, as pools carry it (.netns); kept for the filter to point at
 */
static const char *netns_word(const char *w)
{
	static char inos[VIEW_MAX_FILTERS][24];
	static int n;
	char path[4096];
	struct stat st;

	if (!*w || strspn(w, "0123456789") == strlen(w) || strchr(w, '/') || n >= VIEW_MAX_FILTERS)
		return w;
	snprintf(path, sizeof(path), "/run/netns/%s", w);
	if (stat(path, &st))
		return w; /* refused by the filter, named in the error */
	snprintf(inos[n], sizeof(inos[n]), "%llu", (unsigned long long)st.st_ino);
	return inos[n++];
}

int args_filter(struct view_opts *v, const char *word)
{
	return add_filter(v, PF_ANY, word);
}

static int group_by(struct view_opts *v, const char *g)
{
	if (!g) {
		usage_error("group-by needs one of: device, pool, none");
		return -EINVAL;
	}
	if (!strcmp(g, "device") || !strcmp(g, "dev")) {
		v->group_by_device = true;
	} else if (!strcmp(g, "pool") || !strcmp(g, "page-pool") || !strcmp(g, "pp") ||
		   !strcmp(g, "none")) {
		v->group_by_device = false;
	} else {
		usage_error("group-by '%s': expected device, pool or none", g);
		return -EINVAL;
	}
	return 0;
}

int args_view_word(struct view_opts *v, int *i, int argc, char **argv)
{
	const char *a = argv[*i];
	enum pool_filter_kind kind;

	if (!strcmp(a, "group-by")) {
		if (group_by(v, *i + 1 < argc ? argv[*i + 1] : NULL))
			return -EINVAL;
		*i += 2;
		return 1;
	}
	if (!strcmp(a, "pool") || !strcmp(a, "id"))
		kind = PF_POOL;
	else if (!strcmp(a, "dev") || !strcmp(a, "device"))
		kind = PF_DEVICE;
	else if (!strcmp(a, "ifindex"))
		kind = PF_IFINDEX;
	else if (!strcmp(a, "netns"))
		kind = PF_NETNS;
	else
		return 0;
	if (*i + 1 >= argc) {
		usage_error("'%s' needs a value", a);
		return -EINVAL;
	}
	if (add_filter(v, kind, kind == PF_NETNS ? netns_word(argv[*i + 1]) : argv[*i + 1]))
		return -EINVAL;
	*i += 2;
	return 1;
}

static int check_sort(const struct view_opts *v)
{
	if (view_sort_known(v))
		return 0;
	usage_error("cannot sort by '%s': not a column (see the JSON keys)", v->sort);
	return -EINVAL;
}

int args_view(struct view_opts *v, int argc, char **argv, double *duration)
{
	int i = 0, r;

	while (i < argc) {
		r = args_view_word(v, &i, argc, argv);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (duration && !*duration && !parse_duration(argv[i], duration) && *duration > 0) {
			i++;
			continue;
		}
		if (args_filter(v, argv[i++]))
			return -EINVAL;
	}
	return check_sort(v);
}

int args_view_interval(struct view_opts *v, int argc, char **argv, bool first_is_filter,
		       double min_interval, double *interval, uint64_t *count)
{
	int i = 0, r, npos = 0;
	uint64_t c;

	while (i < argc) {
		r = args_view_word(v, &i, argc, argv);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		if (first_is_filter && !v->nfilters) {
			if (args_filter(v, argv[i++]))
				return -EINVAL;
		} else if (npos == 0 && !parse_duration(argv[i], interval) &&
			   *interval >= min_interval) {
			npos++;
			i++;
		} else if (npos == 1 && !parse_u64(argv[i], 1, UINT64_MAX, &c)) {
			*count = c;
			npos++;
			i++;
		} else {
			usage_error("'%s': expected %sINTERVAL (>= %gs) then COUNT%s", argv[i],
				    first_is_filter ? "POOL|DEVICE, then " : "", min_interval,
				    first_is_filter ? "" : ", or pool/dev filters");
			return -EINVAL;
		}
	}
	return check_sort(v);
}

int args_view_opt(struct view_opts *v, int o, const char *arg)
{
	switch (o) {
	case 's':
		v->sort = arg;
		return 0;
	case 'r':
		v->reverse = true;
		return 0;
	case 'a':
		v->show_freed = true;
		return 0;
	case ARGS_OPT_RECYCLING:
		v->recycling = true;
		return 0;
	}
	return -ENOENT;
}

int args_duration(const char *opt, const char *arg, double *out)
{
	if (parse_duration(arg, out)) {
		usage_error("%s '%s': expected a duration such as 5s", opt, arg);
		return -EINVAL;
	}
	return 0;
}

int args_stack_every(const char *arg, uint32_t *every)
{
	uint64_t v = STACKS_DEFAULT_EVERY;

	if (arg && parse_u64(arg, 1, 1 << 20, &v)) {
		usage_error("--stacks=%s: expected 1..1048576 (1 in N events)", arg);
		return -EINVAL;
	}
	*every = v;
	return 0;
}

int args_group(const char *arg, struct file_perm *perm)
{
	char why[128];

	if (file_perm_group(perm, arg, why, sizeof(why))) {
		usage_error("--group: %s", why);
		return -EINVAL;
	}
	return 0;
}
