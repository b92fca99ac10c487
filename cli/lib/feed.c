// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/feed.h"

int feed_queue(struct feed_out *o, const struct feed_head *h, const char *text, const char *om)
{
	struct feed_head hd = *h;
	size_t tl = strlen(text), ol = strlen(om), len;
	char *f;

	if (tl > FEED_MAX_BODY || ol > FEED_MAX_BODY - tl)
		return -E2BIG;
	hd.magic = FEED_MAGIC;
	hd.version = FEED_VERSION;
	hd.seq = ++o->seq;
	hd.text_len = tl;
	hd.om_len = ol;
	len = sizeof(hd) + tl + ol;
	f = malloc(len);
	if (!f)
		return -ENOMEM;
	memcpy(f, &hd, sizeof(hd));
	memcpy(f + sizeof(hd), text, tl);
	memcpy(f + sizeof(hd) + tl, om, ol);
	if (!o->buf || !o->off) { /* nothing of the one waiting went out: replace it */
		free(o->buf);
		o->buf = f;
		o->len = len;
		o->off = 0;
	} else {
		free(o->next);
		o->next = f;
		o->next_len = len;
	}
	return 0;
}

int feed_flush(struct feed_out *o, int fd)
{
	ssize_t n;

	while (o->buf) {
		n = send(fd, o->buf + o->off, o->len - o->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			return -errno;
		}
		o->off += n;
		if (o->off < o->len)
			continue;
		free(o->buf);
		o->buf = o->next;
		o->len = o->next_len;
		o->off = 0;
		o->next = NULL;
		o->next_len = 0;
	}
	return 0;
}

bool feed_pending(const struct feed_out *o)
{
	return o->buf != NULL;
}

void feed_out_free(struct feed_out *o)
{
	free(o->buf);
	free(o->next);
	memset(o, 0, sizeof(*o));
}

/* the frame just read becomes the current one: its bodies NUL-terminated */
static int take(struct feed_in *in)
{
	const struct feed_head *h = &in->head;
	char *b = malloc((size_t)h->text_len + h->om_len + 2);

	if (!b)
		return -ENOMEM;
	memcpy(b, in->body, h->text_len);
	b[h->text_len] = 0;
	memcpy(b + h->text_len + 1, in->body + h->text_len, h->om_len);
	b[h->text_len + 1 + h->om_len] = 0;
	free(in->cur_body);
	in->cur_body = b;
	in->cur = *h;
	in->have = true;
	free(in->body);
	in->body = NULL;
	in->got = 0;
	return 1;
}

int feed_read(struct feed_in *in, int fd)
{
	size_t want, blen;
	int ret = 0;
	ssize_t n;

	for (;;) {
		if (in->got < sizeof(in->head)) {
			n = read(fd, (char *)&in->head + in->got, sizeof(in->head) - in->got);
		} else {
			blen = (size_t)in->head.text_len + in->head.om_len;
			want = sizeof(in->head) + blen - in->got;
			n = want ? read(fd, in->body + (in->got - sizeof(in->head)), want) : 0;
			if (!want) {
				ret = take(in);
				if (ret < 0)
					return ret;
				continue;
			}
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? ret : -errno;
		if (!n)
			return -EPIPE;
		in->got += n;
		if (in->got == sizeof(in->head)) {
			const struct feed_head *h = &in->head;

			if (h->magic != FEED_MAGIC || h->version != FEED_VERSION ||
			    h->text_len > FEED_MAX_BODY || h->om_len > FEED_MAX_BODY - h->text_len)
				return -EPROTO;
			in->body = malloc((size_t)h->text_len + h->om_len + 1);
			if (!in->body)
				return -ENOMEM;
		}
	}
}

const char *feed_text(const struct feed_in *in)
{
	return in->have ? in->cur_body : "";
}

const char *feed_om(const struct feed_in *in)
{
	return in->have ? in->cur_body + in->cur.text_len + 1 : "";
}

void feed_in_free(struct feed_in *in)
{
	free(in->body);
	free(in->cur_body);
	memset(in, 0, sizeof(*in));
}
