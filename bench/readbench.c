// SPDX-License-Identifier: GPL-2.0
/*
 * readbench FILE COUNT: read FILE from start to end COUNT times (open once, pread from 0 each
 * time, as a monitoring agent does) and print the mean wall time per full read in ns.
 * Used by the bench/ scripts to compare a meminspect file with its procfs counterpart.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	long long start, count;
	ssize_t n;
	off_t off;
	char *end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: readbench FILE COUNT\n");
		return 2;
	}
	count = strtoll(argv[2], &end, 10);
	if (*end || count <= 0) {
		fprintf(stderr, "readbench: bad COUNT '%s'\n", argv[2]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "readbench: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	start = now_ns();
	for (long long i = 0; i < count; i++) {
		off = 0;
		while ((n = pread(fd, buf, sizeof(buf), off)) > 0)
			off += n;
		if (n < 0) {
			fprintf(stderr, "readbench: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
	}
	printf("%lld\n", (now_ns() - start) / count);
	return 0;
}
