// SPDX-License-Identifier: GPL-2.0
/*
 * readtwice: two reads of one open file, each bracketed by copies of a
 * reference file (test_pressure.sh: per-open deltas against /proc/vmstat).
 *
 *   readtwice FILE REF OUTDIR
 *
 * Copies REF to OUTDIR/ref0, opens FILE, then twice: copies REF to
 * OUTDIR/refNa, reads FILE whole from offset 0 (pread) into OUTDIR/rN,
 * copies REF to OUTDIR/refNb (N = 1, 2).  Exit 0; 1 on a failed call;
 * 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char buf[1 << 20];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* fd whole from offset 0 into OUTDIR/NAME */
static void dump(int fd, const char *dir, const char *name)
{
	char path[4096];
	size_t len = 0;
	ssize_t r;
	int out;

	while ((r = pread(fd, buf + len, sizeof(buf) - len, (off_t)len)) > 0)
		len += r;
	if (r < 0)
		die("pread");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, buf, len) != (ssize_t)len || close(out))
		die(path);
}

static void copy(const char *ref, const char *dir, const char *name)
{
	int fd = open(ref, O_RDONLY);

	if (fd < 0)
		die(ref);
	dump(fd, dir, name);
	close(fd);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: readtwice FILE REF OUTDIR\n");
		return 2;
	}
	copy(argv[2], argv[3], "ref0");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	copy(argv[2], argv[3], "ref1a");
	dump(fd, argv[3], "r1");
	copy(argv[2], argv[3], "ref1b");
	copy(argv[2], argv[3], "ref2a");
	dump(fd, argv[3], "r2");
	copy(argv[2], argv[3], "ref2b");
	close(fd);
	return 0;
}
