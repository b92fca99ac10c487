/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export --web-config in the listener (serve/listener.c): the file read
 * (the I/O model/web_config.c leaves to its caller) and parsed, checked
 * as exporter-toolkit checks it, and made into what lib/httpd.c serves
 * with: the TLS options, GnuTLS priorities for the versions it allows, and
 * a basic auth checker (lib/basic_auth.c) for its users. Loaded at start
 * and again on SIGHUP; a state is counted (web_state_put()): the daemons
 * a reload left draining keep theirs until they stop.
 *
 * What exporter-toolkit refuses is an error, at FILE:LINE:COL, and the
 * state in force is kept: a key that is not its certificate's, a
 * certificate or CA file GnuTLS finds no certificate in, what the parser
 * refuses. What it accepts but a client will not, a warning, at start and
 * at every reload alike: a certificate that has expired or is not valid
 * yet, a hash that can match no password (the example's placeholder
 * among them). And a reload that weakens what the exporter asks of its
 * clients says so as loudly as a start would.
 */
#ifndef __PPWATCH_SERVE_WEB_H
#define __PPWATCH_SERVE_WEB_H

#include <stdbool.h>

#include "lib/basic_auth.h"
#include "lib/httpd.h"
#include "model/web_config.h"

struct web_state {
	int refs;
	struct web_config c;
	struct httpd_tls tls; /* when c.tls */
	char priorities[160];
	struct basic_auth *auth; /* when c.nusers */
};

/*
 * The file read, checked and made ready (one reference), or NULL: what is
 * wrong with it printed (FILE:LINE:COL), TLS asked of a ppwatch built
 * without it said so. 'prev' (the state in force, or NULL at start):
 * what its basic auth checker remembered of the hashes kept carries over.
 */
struct web_state *web_state_load(const char *path, const struct web_state *prev);
/*
 * Note who reads the files from now on (the user, when not root), for
 * "Permission denied" to name it: before the sandbox (it reads the user
 * database), after the privileges are dropped.
 */
void web_state_note_reader(void);
/*
 * What a start (prev NULL) or a reload says about what the exporter now
 * asks of its clients on the listener 'where' (reaching beyond loopback
 * or not): serving beyond loopback without authentication or TLS, and,
 * on a reload, each thing prev asked that w no longer does.
 */
void web_state_warn(const struct web_state *w, const struct web_state *prev, const char *path,
		    const char *where, bool loopback);
void web_state_put(struct web_state *w);
/* lib/httpd.c's auth callback; arg: the web_state */
enum httpd_auth web_authorize(void *arg, const struct sockaddr *addr, const char *user,
			      const char *password);

#endif /* __PPWATCH_SERVE_WEB_H */
