/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * export --web-config: the file (model/web_config.c) made into what the
 * exporter's server runs with (lib/httpd.c): the TLS options, with
 * GnuTLS priorities for the versions it allows, and a basic auth checker
 * (lib/basic_auth.c) for its users. Loaded at start and again on SIGHUP;
 * a state stays valid while a server uses it.
 */
#ifndef __PPWATCH_SOURCES_WEB_H
#define __PPWATCH_SOURCES_WEB_H

#include "lib/basic_auth.h"
#include "lib/httpd.h"
#include "model/web_config.h"

struct web_state {
	struct web_config c;
	struct httpd_tls tls; /* when c.tls */
	char priorities[160];
	struct basic_auth *auth; /* when c.nusers */
};

/*
 * The file read and made ready, or NULL: what is wrong with it printed
 * (FILE:LINE:COL), TLS asked of a ppwatch built without it said so.
 */
struct web_state *web_state_load(const char *path);
void web_state_free(struct web_state *w);
/* lib/httpd.c's auth callback; arg: the web_state */
enum httpd_auth web_authorize(void *arg, const char *user, const char *password);

#endif /* __PPWATCH_SOURCES_WEB_H */
