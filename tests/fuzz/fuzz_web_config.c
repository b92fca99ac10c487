// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export --web-config's parser (model/web_config.c) on any bytes: errors
 * are printed escaped and cost a moment at most (run.sh's -timeout); a
 * config that parses is consistent (TLS has its certificate and key, a
 * user has a bcrypt hash). The file sits in a directory that does not
 * exist, so the files it names relatively are never there.
 */
#include <errno.h>

#include "fuzz.h"
#include "lib/small_file.h"
#include "model/web_config.h"

static int read_pem(void *arg, const char *path, char **out)
{
	return small_file_read(path, WEB_CONFIG_MAX_BYTES, out);
}

static const struct web_reader reader = { read_pem, NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config c;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	int n;

	f = open_memstream(&buf, &len);
	n = web_config_parse(&c, "/nonexistent/fuzz/web.yml", (const char *)data, size, f, &reader);
	fclose(f);
	FUZZ_CHECK(n >= 0 || n == -ENOMEM);
	fuzz_check_text(buf, len);
	FUZZ_CHECK(n != 0 || !len);
	free(buf);
	if (!n) {
		FUZZ_CHECK(!c.tls || (c.cert_pem && c.key_pem));
		FUZZ_CHECK(!(c.tls && c.tls_off));
		FUZZ_CHECK(c.min_version >= 10 && c.min_version <= c.max_version &&
			   c.max_version <= 13);
		for (i = 0; i < c.nusers; i++)
			FUZZ_CHECK(strlen(c.users[i].hash) == 60 && !strchr(c.users[i].name, ':'));
	}
	web_config_free(&c);
	return 0;
}
