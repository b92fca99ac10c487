// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's bounded set of rotated files (lib/rotfile.h) and export's
 * textfile (lib/atomic_file.h), in a scratch directory: private files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#include "lib/atomic_file.h"
#include "lib/rotfile.h"
#include "lib/util.h"

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
	char *s = unit_read_text(at(name));

	return s ?: strdup("");
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

	CHECK_INT(rotfile_open(&r, at("rec"), 200, 3, NULL), 0);
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
	CHECK_INT(rotfile_open(&r, at("rec"), 200, 2, NULL), 0);
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
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 3, NULL), 0);
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
	CHECK_INT(rotfile_open(&r, at("rec"), 100, 1, NULL), 0);
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
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 2, NULL), 0);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK(size_of("rec.1") > 0, "rec.1 kept");
	CHECK(size_of("rec.2") < 0 && size_of("rec.3") < 0, "rec.2, rec.3 dropped");
	CHECK(size_of("rec.4") > 0, "not a recording: left");
}

/*
 * A FIFO: refused as not a regular file before anything opens it (a FIFO
 * opened to write would block, or fail with ENXIO with no reader), with a
 * reader or without, no byte written, nothing blocking either way.
 */
static void test_refuses_fifo(void)
{
	struct rotfile r;
	char c;
	int rd;

	CHECK_INT(mkfifo(at("fifo"), 0600), 0);
	CHECK(rotfile_open(&r, at("fifo"), 0, 1, NULL) < 0, "fifo without a reader");
	CHECK(strstr(r.what, "fifo for writing: not a regular file") != NULL, "%s", r.what);
	rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	CHECK(rd >= 0, "a reader for the fifo: %s", strerror(errno));
	CHECK(rotfile_open(&r, at("fifo"), 0, 1, NULL) < 0, "fifo with a reader");
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
	CHECK_INT(rotfile_open(&r, at("symlink"), 0, 1, NULL), -ELOOP);
	CHECK(strstr(r.what, "a symlink") != NULL, "%s", r.what);
	CHECK(rotfile_open(&r, at("hardlink"), 0, 1, NULL) < 0, "hard link");
	CHECK(strstr(r.what, "other hard links") != NULL, "%s", r.what);
	CHECK_INT(size_of("victim"), 8);
	test_refuses_fifo();
	/* a symlink planted as FILE.1: not a file rotation made, the set refused */
	clean();
	put_file("victim", "keep me\n");
	put_file("rec", HEADER);
	CHECK_INT(symlink(at("victim"), at("rec.1")), 0);
	CHECK(rotfile_open(&r, at("rec"), 1000, 3, NULL) < 0, "FILE.1 a symlink");
	CHECK(strstr(r.what, "rec.1 is not a regular file") != NULL, "%s", r.what);
	CHECK_INT(size_of("victim"), 8);
	CHECK(size_of("rec") > 0, "FILE left as it was");
}

static unsigned mode_of(const char *name)
{
	struct stat st;

	return stat(at(name), &st) ? 0 : st.st_mode & 07777;
}

/* 0600 whatever the umask, 0640 with a group; the older files of the set made private too */
static void test_modes(void)
{
	struct file_perm grp = { .group = true, .gid = getegid() };
	struct rotfile r;
	struct stat st;
	mode_t old;

	clean();
	old = umask(0);
	put_file("rec.1", HEADER RECORD);
	CHECK_INT(chmod(at("rec.1"), 0644), 0);
	CHECK_INT(rotfile_open(&r, at("rec"), 200, 3, NULL), 0);
	CHECK_INT(mode_of("rec"), 0600);
	CHECK_INT(mode_of("rec.1"), 0600); /* a recording a recorder before left 0644 */
	CHECK_INT(rotfile_write(&r, HEADER, strlen(HEADER)), 0);
	rotfile_mark_start(&r);
	write_records(&r, 20);
	CHECK(r.rotations > 0, "rotated");
	CHECK_INT(mode_of("rec"), 0600);
	CHECK_INT(mode_of("rec.1"), 0600);
	CHECK_INT(rotfile_close(&r), 0);
	/* a stricter umask does not make the group's files unreadable to it */
	clean();
	umask(0077);
	CHECK_INT(rotfile_open(&r, at("rec"), 0, 1, &grp), 0);
	CHECK_INT(mode_of("rec"), 0640);
	CHECK(!stat(at("rec"), &st) && st.st_gid == grp.gid, "its group");
	CHECK_INT(rotfile_close(&r), 0);
	umask(old);
}

/* a directory another user may write: refused, nothing made in it */
static void test_unsafe_dir(void)
{
	static const unsigned modes[] = { 0777, 01777, 0757 };
	struct rotfile r;
	size_t i;

	clean();
	CHECK_INT(mkdir(at("d"), 0700), 0);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		CHECK_INT(chmod(at("d"), modes[i]), 0);
		CHECK_INT(rotfile_open(&r, at("d/rec"), 0, 1, NULL), -EPERM);
		CHECK(strstr(r.what, "is writable by every user") != NULL, "%o: %s", modes[i],
		      r.what);
		CHECK(size_of("d/rec") < 0, "%o: nothing created", modes[i]);
	}
	/* a group's members: refused unless the group is root's */
	CHECK_INT(chmod(at("d"), 0770), 0);
	if (getegid() != 0) {
		CHECK_INT(rotfile_open(&r, at("d/rec"), 0, 1, NULL), -EPERM);
		CHECK(strstr(r.what, "is writable by group") != NULL, "%s", r.what);
	} else if (!chown(at("d"), -1, 1)) {
		CHECK_INT(rotfile_open(&r, at("d/rec"), 0, 1, NULL), -EPERM);
		CHECK(strstr(r.what, "is writable by group") != NULL, "%s", r.what);
		CHECK_INT(chown(at("d"), -1, 0), 0);
		CHECK_INT(rotfile_open(&r, at("d/rec"), 0, 1, NULL), 0); /* root's group */
		CHECK_INT(rotfile_close(&r), 0);
	}
	/* another user's directory (needs root to make one) */
	if (geteuid() == 0 && !chown(at("d"), 1, 0) && !chmod(at("d"), 0755)) {
		CHECK_INT(rotfile_open(&r, at("d/rec"), 0, 1, NULL), -EPERM);
		CHECK(strstr(r.what, "belongs to uid 1") != NULL, "%s", r.what);
	}
	/* a path that is no file */
	CHECK_INT(rotfile_open(&r, at("d/"), 0, 1, NULL), -EISDIR);
}

/* rotation touches only the files it made */
static void test_only_ours(void)
{
	struct rotfile r;
	char *s;

	/* FILE with something else in it: not overwritten, even without rotation */
	clean();
	put_file("rec", "my notes\n");
	CHECK(rotfile_open(&r, at("rec"), 0, 1, NULL) < 0, "not a recording");
	CHECK(strstr(r.what, "not a recording") != NULL, "%s", r.what);
	s = slurp("rec");
	CHECK_STR(s, "my notes\n");
	free(s);
	/* FILE.2 of a set of 3 that is not a recording: the set is refused */
	clean();
	put_file("rec.2", "mine\n");
	CHECK(rotfile_open(&r, at("rec"), 200, 3, NULL) < 0, "FILE.2 not ours");
	CHECK(strstr(r.what, "rec.2 is not a recording") != NULL, "%s", r.what);
	/* and one planted after the start: the rotation that would drop it refuses */
	clean();
	CHECK_INT(rotfile_open(&r, at("rec"), 200, 3, NULL), 0);
	CHECK_INT(rotfile_write(&r, HEADER, strlen(HEADER)), 0);
	rotfile_mark_start(&r);
	write_records(&r, 12); /* rec, rec.1 */
	put_file("rec.2", "mine\n");
	CHECK_INT(rotfile_write(&r, RECORD, strlen(RECORD)), 0);
	while (!rotfile_due(&r, strlen(RECORD)))
		CHECK_INT(rotfile_write(&r, RECORD, strlen(RECORD)), 0);
	CHECK(rotfile_rotate(&r) < 0, "refused");
	CHECK(strstr(r.what, "rec.2 is not a recording") != NULL, "%s", r.what);
	CHECK(r.fd >= 0, "the current file goes on");
	CHECK_INT(rotfile_write(&r, RECORD, strlen(RECORD)), 0);
	CHECK_INT(rotfile_close(&r), 0);
	s = slurp("rec.2");
	CHECK_STR(s, "mine\n");
	free(s);
}

/* FILE missing, its rotations there (a crash between the renames and the new file) */
static void test_missing_newest(void)
{
	struct rotfile r;
	char *s;

	clean();
	put_file("rec.1", HEADER "{\"n\":1}\n");
	put_file("rec.2", HEADER "{\"n\":2}\n");
	CHECK_INT(rotfile_open(&r, at("rec"), 1000, 3, NULL), 0);
	CHECK_INT(r.rotations, 0);
	CHECK_INT(rotfile_close(&r), 0);
	CHECK_INT(size_of("rec"), 0);
	s = slurp("rec.1");
	CHECK(strstr(s, "\"n\":1") != NULL, "rec.1 kept as it was: %s", s);
	free(s);
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
		ok = !rotfile_open(&r, at("rec"), 0, 1, NULL);
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

/* export --textfile: replaced whole, 0600 (0640 with a group), never through a symlink */
static void test_atomic_file(void)
{
	struct file_perm grp = { .group = true, .gid = getegid() };
	char what[1024];
	struct stat st;
	mode_t old;
	char *s;

	clean();
	old = umask(0);
	CHECK_INT(atomic_file_write(at("pp.prom"), "a 1\n", 4, NULL, what, sizeof(what)), 0);
	CHECK_INT(atomic_file_write(at("pp.prom"), "b 2\n", 4, NULL, what, sizeof(what)), 0);
	s = slurp("pp.prom");
	CHECK_STR(s, "b 2\n");
	free(s);
	CHECK_INT(mode_of("pp.prom"), 0600);
	umask(0077);
	CHECK_INT(atomic_file_write(at("pp.prom"), "c 3\n", 4, &grp, what, sizeof(what)), 0);
	CHECK_INT(mode_of("pp.prom"), 0640);
	CHECK(!stat(at("pp.prom"), &st) && st.st_gid == grp.gid, "its group");
	umask(old);
	/* a directory that is not there: the step named, no file left */
	CHECK_INT(atomic_file_write(at("nope/pp.prom"), "c\n", 2, NULL, what, sizeof(what)),
		  -ENOENT);
	CHECK(strstr(what, "opening the directory") != NULL, "%s", what);
	/* a symlink, a FIFO at PATH: refused, left as they are */
	put_file("victim", "keep me\n");
	CHECK_INT(symlink(at("victim"), at("link.prom")), 0);
	CHECK_INT(atomic_file_write(at("link.prom"), "x\n", 2, NULL, what, sizeof(what)), -EINVAL);
	CHECK(strstr(what, "link.prom is a symlink, not a regular file: not replaced") != NULL,
	      "%s", what);
	CHECK_INT(mkfifo(at("fifo.prom"), 0600), 0);
	CHECK_INT(atomic_file_write(at("fifo.prom"), "x\n", 2, NULL, what, sizeof(what)), -EINVAL);
	CHECK(strstr(what, "not a regular file") != NULL, "%s", what);
	CHECK_INT(size_of("victim"), 8);
	/* a directory others may write */
	CHECK_INT(mkdir(at("d"), 0700), 0);
	CHECK_INT(chmod(at("d"), 01777), 0);
	CHECK_INT(atomic_file_write(at("d/pp.prom"), "x\n", 2, NULL, what, sizeof(what)), -EPERM);
	CHECK(strstr(what, "is writable by every user (mode 1777)") != NULL, "%s", what);
	CHECK(size_of("d/pp.prom") < 0, "not made");
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
	TEST(test_modes);
	TEST(test_unsafe_dir);
	TEST(test_only_ours);
	TEST(test_missing_newest);
	TEST(test_atomic_file);
	TEST(test_no_half_record);
	clean();
	rmdir(dir);
	return unit_done();
}
