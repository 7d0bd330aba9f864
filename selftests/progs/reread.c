// SPDX-License-Identifier: GPL-2.0
/*
 * reread: read a table file again from offset 0 on the same open file,
 * around writes that change what it shows (test_slabs.sh).
 *
 *   reread FILE KEY FIELD [KNOB VALUE]...
 *
 * Opens FILE once and reads it whole, from offset 0; then for each
 * KNOB VALUE pair writes VALUE to KNOB (a file of its own) and reads FILE
 * whole again on the same open file, rewinding with pread() at offset 0
 * and lseek(0) + read() in turn.  After each read it prints
 * "read N HOW VALUE": FIELD (a header name) of the record whose first
 * field is KEY, or "none".  Exit 0; 1 on a failed call; 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[8 << 20];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* FILE whole from offset 0: the first read by HOW, then on from there */
static size_t read_all(int fd, int use_pread)
{
	size_t len = 0;
	ssize_t r;

	if (use_pread) {
		while ((r = pread(fd, buf + len, sizeof(buf) - 1 - len,
				  (off_t)len)) > 0)
			len += r;
	} else {
		if (lseek(fd, 0, SEEK_SET))
			die("lseek");
		while ((r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += r;
	}
	if (r < 0)
		die("read");
	buf[len] = '\0';
	return len;
}

/* FIELD of the record whose first field is KEY, into out */
static void lookup(const char *key, const char *field, char *out, size_t n)
{
	char *line, *save, *tok, *s;
	int col = -1, i;

	snprintf(out, n, "none");
	line = strtok_r(buf, "\n", &save);
	if (!line)
		return;
	for (i = 0, tok = strtok_r(line, " ", &s); tok;
	     i++, tok = strtok_r(NULL, " ", &s))
		if (!strcmp(tok, field))
			col = i;
	if (col < 0)
		return;
	while ((line = strtok_r(NULL, "\n", &save))) {
		tok = strtok_r(line, " ", &s);
		if (!tok || strcmp(tok, key))
			continue;
		for (i = 0; tok && i < col; i++)
			tok = strtok_r(NULL, " ", &s);
		if (tok)
			snprintf(out, n, "%s", tok);
		return;
	}
}

static void report(int fd, int n, int use_pread, const char *key,
		   const char *field)
{
	char val[64];

	read_all(fd, use_pread);
	lookup(key, field, val, sizeof(val));
	printf("read %d %s %s\n", n, use_pread ? "pread" : "lseek+read", val);
}

int main(int argc, char **argv)
{
	int fd, kfd, i, n = 1;
	size_t len;

	if (argc < 4 || (argc - 4) % 2) {
		fprintf(stderr, "usage: reread FILE KEY FIELD [KNOB VALUE]...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	report(fd, n++, 0, argv[2], argv[3]);
	for (i = 4; i + 1 < argc; i += 2) {
		kfd = open(argv[i], O_WRONLY);
		if (kfd < 0)
			die(argv[i]);
		len = strlen(argv[i + 1]);
		if (write(kfd, argv[i + 1], len) != (ssize_t)len)
			die("write");
		close(kfd);
		report(fd, n, n % 2 == 0, argv[2], argv[3]);
		n++;
	}
	return 0;
}
