// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The recorder's bounded set of rotated files (lib/rotfile.h), in a scratch directory. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "lib/rotfile.h"

static char dir[] = "/tmp/ppwatch-rotfile.XXXXXX";

static const char *at(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static long long size_of(const char *name)
{
	struct stat st;

	return stat(at(name), &st) ? -1 : (long long)st.st_size;
}

static void put_file(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *name)
{
	FILE *f = fopen(at(name), "r");
	char *s = NULL;
	size_t cap = 0;

	if (!f)
		return strdup("");
	if (getdelim(&s, &cap, '\0', f) < 0) {
		free(s);
		s = strdup("");
	}
	fclose(f);
	return s;
}

static void clean(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/*", dir);
	CHECK(system(cmd) == 0, "clean");
}

#define HEADER "{\"type\":\"header\"}\n"
#define RECORD "{\"type\":\"snapshot\",\"pools\":[]}\n"

/* write like the recorder: a header per file, records rotated past max_size */
static void write_records(struct rotfile *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (rotfile_due(r, strlen(RECORD))) {
			CHECK_INT(rotfile_rotate(r), 0);
			CHECK_INT(rotfile_write(r, HEADER, strlen(HEADER)), 0);
			rotfile_mark_start(r);
		}
		CHECK_INT(rotfile_write(r, RECORD, strlen(RECORD)), 0);
	}
}

/* the set never holds more than N files of at most SIZE each (whole records only) */
static void test_bounds(void)
{
	struct rotfile r;
	long long total = 0;
	char name[16], *s;
	int k;

	CHECK_INT(rotfile_open(&r, at("rec"), 200, 3), 0);
	CHECK_INT(rotfile_write(&r, HEADER, strlen(HEADER)), 0);
	rotfile_mark_start(&r);
	write_records(&r, 1000);
	CHECK_INT(rotfile_close(&r), 0);
	for (k = 0; k < 5; k++) {
		snprintf(name, sizeof(name), k ? "rec.%d" : "rec", k);
		if (k < 3) {
			CHECK(size_of(name) > 0 && size_of(name) <= 200, "%s: %lld bytes", name,
			      size_of(name));
			total += size_of(name);
			s = slurp(name);
			CHECK(!strncmp(s, HEADER, strlen(HEADER)), "%s starts with its header",
			      name);
			CHECK((strlen(s) - strlen(HEADER)) % strlen(RECORD) == 0,
			      "%s: whole records", name);
			free(s);
		} else {
			CHECK(size_of(name) < 0, "%s: none beyond max_files", name);
		}
	}
	CHECK(total <= 3 * 200, "%lld bytes in all", total);
}

/* a record bigger than SIZE gets a file to itself, no more */
static void test_big_record(void)
{
	struct rotfile r;
	char big[600];

	clean();
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\n';
	CHECK_INT(rotfile_open(&r, at("rec"), 200, 2), 0);
	write_records(&r, 3);
	CHECK(rotfile_due(&r, sizeof(big)), "due");
	CHECK_INT(rotfile_rotate(&r), 0);
	CHECK_INT(rotfile_write(&r, big, sizeof(big)), 0);
	CHECK(rotfile_due(&r, strlen(RECORD)), "a new file after it");
	CHECK_INT(rotfile_close(&r), 0);
	CHECK_INT(size_of("rec"), 600);
	CHECK_INT(size_of("rec.1"), 3 * strlen(RECORD));
}

/* a recorder restarted keeps what the last one wrote; N = 1 starts over */
static void test_restart(void)
{
	struct rotfile r;
	char *s;

	clean();
	put_file("rec", HEADER "{\"type\":\"event\",\"n\":\"crash\"}\n");
	put_file("rec.1", HEADER "older\n");
	put_file("rec.5", HEADER "from a recorder that kept more\n");
	put_file("rec.6", "not a recording\n");
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 3), 0);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK_INT(size_of("rec"), 0);
	s = slurp("rec.1");
	CHECK(strstr(s, "crash") != NULL, "the crash's recording kept as rec.1: %s", s);
	free(s);
	s = slurp("rec.2");
	CHECK(strstr(s, "older") != NULL, "the one before as rec.2");
	free(s);
	/* past a gap (no rec.3, rec.4) it is no part of the set: neither read nor dropped */
	CHECK(size_of("rec.5") > 0, "rec.5 left");
	CHECK(size_of("rec.6") > 0, "what is not a recording is left alone");

	/* N = 1: the file starts over, at open and at each rotation */
	put_file("rec", HEADER RECORD);
	CHECK_INT(rotfile_open(&r, at("rec"), 100, 1), 0);
	CHECK_INT(size_of("rec"), 0);
	write_records(&r, 10);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK(size_of("rec") <= 100, "%lld", size_of("rec"));
}

/* beyond max_files, recordings a bigger set left go; other files stay */
static void test_leftovers(void)
{
	struct rotfile r;

	clean();
	put_file("rec.1", HEADER);
	put_file("rec.2", HEADER);
	put_file("rec.3", HEADER);
	put_file("rec.4", "mine\n");
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 2), 0);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK(size_of("rec.1") > 0, "rec.1 kept");
	CHECK(size_of("rec.2") < 0 && size_of("rec.3") < 0, "rec.2, rec.3 dropped");
	CHECK(size_of("rec.4") > 0, "not a recording: left");
}

/*
 * A FIFO: with no reader the open fails (ENXIO) and nothing blocks; with a
 * reader it opens, and the check after it refuses: not a regular file, no
 * byte written, the open does not block either way.
 */
static void test_refuses_fifo(void)
{
	struct rotfile r;
	char c;
	int rd;

	CHECK_INT(mkfifo(at("fifo"), 0600), 0);
	CHECK_INT(rotfile_open(&r, at("fifo"), 0, 1), -ENXIO);
	CHECK(strstr(r.what, "for writing: No such device or address") != NULL, "%s", r.what);
	rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	CHECK(rd >= 0, "a reader for the fifo: %s", strerror(errno));
	CHECK(rotfile_open(&r, at("fifo"), 0, 1) < 0, "fifo with a reader");
	CHECK(strstr(r.what, "fifo for writing: not a regular file") != NULL, "%s", r.what);
	CHECK(read(rd, &c, 1) == 0, "something was written to the fifo");
	close(rd);
}

/* what root must not write through in a directory others write */
static void test_refuses(void)
{
	struct rotfile r;

	clean();
	put_file("victim", "keep me\n");
	CHECK_INT(symlink(at("victim"), at("symlink")), 0);
	CHECK_INT(link(at("victim"), at("hardlink")), 0);
	CHECK_INT(rotfile_open(&r, at("symlink"), 0, 1), -ELOOP);
	CHECK(strstr(r.what, "a symlink") != NULL, "%s", r.what);
	CHECK(rotfile_open(&r, at("hardlink"), 0, 1) < 0, "hard link");
	CHECK(strstr(r.what, "other hard links") != NULL, "%s", r.what);
	CHECK_INT(size_of("victim"), 8);
	test_refuses_fifo();
	/* a symlink planted as FILE.1 is replaced by the rotation, never written through */
	clean();
	put_file("victim", "keep me\n");
	put_file("rec", HEADER);
	CHECK_INT(symlink(at("victim"), at("rec.1")), 0);
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 3), 0);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK_INT(size_of("victim"), 8);
}

/* a write that cannot be whole (here past RLIMIT_FSIZE: EFBIG) leaves no half record */
static void test_no_half_record(void)
{
	struct rotfile r;
	char big[300];
	pid_t pid;
	int st;

	clean();
	memset(big, 'y', sizeof(big));
	pid = fork();
	if (!pid) {
		struct rlimit rl = { 200, 200 };
		int ok;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		ok = !rotfile_open(&r, at("rec"), 0, 1);
		ok = ok && !rotfile_write(&r, RECORD, strlen(RECORD));
		ok = ok && rotfile_write(&r, big, sizeof(big)) == -EFBIG;
		ok = ok && strstr(r.what, "File too large") != NULL;
		ok = ok && !rotfile_write(&r, RECORD, strlen(RECORD));
		rotfile_close(&r);
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), "the child");
	CHECK_INT(size_of("rec"), 2 * strlen(RECORD));
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	TEST(test_bounds);
	TEST(test_big_record);
	TEST(test_restart);
	TEST(test_leftovers);
	TEST(test_refuses);
	TEST(test_no_half_record);
	clean();
	rmdir(dir);
	return unit_done();
}
