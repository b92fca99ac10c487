/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exporter's feed: what the privileged sampler sends the unprivileged
 * listener (serve/listener.c) over their socketpair, one way only. Each
 * frame is the latest exposition, rendered in both formats (the listener
 * picks one per scrape and appends its own families, output/prom.h's
 * prom_render_serve()), and what the listener needs of the sampler's
 * process for the process_* families:
 *
 *   struct feed_head, then text_len bytes of text 0.0.4, then om_len
 *   bytes of OpenMetrics (without its '# EOF')
 *
 * The sampler never waits for the listener: frames are written without
 * blocking, and a frame that could not be sent yet is replaced by a newer
 * one (only the latest exposition matters). The listener reads without
 * blocking and keeps the last whole frame. Nothing travels the other
 * way: the sampler reads nothing the listener, or a client, sent.
 */
#ifndef __PPWATCH_LIB_FEED_H
#define __PPWATCH_LIB_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FEED_MAGIC   0x70707766u /* "ppwf" */
#define FEED_VERSION 1
/* an exposition larger than this is no exposition */
#define FEED_MAX_BODY (256u << 20)

struct feed_head {
	uint32_t magic, version;
	uint64_t seq;
	double cpu_seconds; /* the sampler's user + system */
	uint64_t rss_bytes; /* the sampler's */
	double start_time;  /* Unix time the exporter started */
	uint32_t text_len, om_len;
};

/* the sampler's side: frames waiting to go out on a non-blocking descriptor */
struct feed_out {
	char *buf; /* the frame being sent */
	size_t len, off;
	char *next; /* a newer one, sent once buf is */
	size_t next_len;
	uint64_t seq;
};

/* a frame of the two bodies; 0 or -ENOMEM */
int feed_queue(struct feed_out *o, const struct feed_head *h, const char *text, const char *om);
/* send what can be sent: 0 (done or would block), or -errno (the listener is gone) */
int feed_flush(struct feed_out *o, int fd);
bool feed_pending(const struct feed_out *o);
void feed_out_free(struct feed_out *o);

/* the listener's side */
struct feed_in {
	struct feed_head head; /* of the frame being read */
	char *body;
	size_t got; /* bytes of the frame so far (head included) */
	/* the last whole frame */
	struct feed_head cur;
	char *cur_body; /* text, then om, each NUL-terminated */
	bool have;
};

/*
 * Read what has arrived: 1 when a new frame is whole (in cur), 0 when
 * nothing more is there now, -EPIPE at the end (the sampler is gone),
 * -EPROTO for a frame that is not one, or -errno.
 */
int feed_read(struct feed_in *in, int fd);
/* the current frame's bodies (after feed_read() returned 1 once) */
const char *feed_text(const struct feed_in *in);
const char *feed_om(const struct feed_in *in);
void feed_in_free(struct feed_in *in);

#endif /* __PPWATCH_LIB_FEED_H */
