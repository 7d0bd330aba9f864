// SPDX-License-Identifier: GPL-2.0
/*
 * procsnap OUTPREFIX FILE: every process's /proc/PID/smaps_rollup, then FILE (meminspect's
 * procs), then every smaps_rollup again, all in this one process (test_procs.sh).
 *
 * Why one process: a process's PSS is its pages' share among the processes that map them, and a
 * busybox shell's fork (a COW copy of its memory) or one more busybox process (its text) moves
 * every busybox process's figures. Here the same processes live through all three reads, and
 * this program, linked -static, maps no page of theirs. Every file is opened and every buffer
 * touched first.
 *
 * Writes OUTPREFIX.a and OUTPREFIX.b ("== PID" then that process's smaps_rollup, empty for a
 * kernel thread or a process gone), OUTPREFIX.procs (FILE) and OUTPREFIX.self (our pid).
 * Exit 0; 1 on a failed call; 2 on bad arguments.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PIDS 4096
#define ROLLUP_SIZE 4096	/* a smaps_rollup is about 1 kB */
#define FILE_SIZE (4 << 20)	/* procs: about 250 bytes a process */

static int pid[MAX_PIDS], fd[MAX_PIDS], npids;
static char *rollup[2][MAX_PIDS];
static ssize_t rlen[2][MAX_PIDS];

static ssize_t read_whole(int f, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;

	if (lseek(f, 0, SEEK_SET) < 0)
		return -1;
	while ((r = read(f, buf + len, size - len)) > 0)
		len += (size_t)r;
	return r < 0 ? -1 : (ssize_t)len;
}

static void read_rollups(int k)
{
	for (int i = 0; i < npids; i++)
		rlen[k][i] = fd[i] < 0 ? -1 : read_whole(fd[i], rollup[k][i], ROLLUP_SIZE);
}

static int write_out(const char *prefix, const char *suffix, const char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s", prefix, suffix);
	f = fopen(path, "w");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

static int write_rollups(const char *prefix, int k)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.%c", prefix, "ab"[k]);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	for (int i = 0; i < npids; i++) {
		fprintf(f, "== %d\n", pid[i]);
		if (rlen[k][i] > 0)
			fwrite(rollup[k][i], 1, (size_t)rlen[k][i], f);
	}
	if (fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[64], self[32], *buf;
	struct dirent *d;
	ssize_t len;
	DIR *dir;
	int f;

	if (argc != 3) {
		fprintf(stderr, "usage: procsnap OUTPREFIX FILE\n");
		return 2;
	}
	dir = opendir("/proc");
	buf = malloc(FILE_SIZE);
	if (!dir || !buf) {
		perror("/proc");
		return 1;
	}
	memset(buf, 0, FILE_SIZE);
	while ((d = readdir(dir)) && npids < MAX_PIDS) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid[npids] = atoi(d->d_name);
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid[npids]);
		fd[npids] = open(path, O_RDONLY);
		for (int k = 0; k < 2; k++) {
			rollup[k][npids] = malloc(ROLLUP_SIZE);
			if (!rollup[k][npids]) {
				perror("malloc");
				return 1;
			}
			memset(rollup[k][npids], 0, ROLLUP_SIZE);
		}
		npids++;
	}
	closedir(dir);
	f = open(argv[2], O_RDONLY);
	if (f < 0) {
		perror(argv[2]);
		return 1;
	}
	read_rollups(0);
	len = read_whole(f, buf, FILE_SIZE);
	read_rollups(1);
	if (len < 0 || len == FILE_SIZE) {
		fprintf(stderr, "procsnap: %s: %s\n", argv[2], len < 0 ? "read error" : "too big");
		return 1;
	}
	snprintf(self, sizeof(self), "%d\n", (int)getpid());
	if (write_rollups(argv[1], 0) || write_rollups(argv[1], 1) ||
	    write_out(argv[1], "procs", buf, (size_t)len) ||
	    write_out(argv[1], "self", self, strlen(self)))
		return 1;
	return 0;
}
