// SPDX-License-Identifier: GPL-2.0
/*
 * fcbench COUNT: the pass fincore and vmtouch make to say which files are cached, over every
 * regular file of the mounted file systems: walk every directory from / (not /proc and /sys,
 * which hold no page cache), and for each regular file open, mmap, mincore, munmap, close.
 * Runs the pass COUNT times and prints "NS FILES RESIDENT": the mean wall time per pass in
 * ns, the files opened and the pages mincore() said were resident (last pass).  bench/files
 * compares it with one read of meminspect's files table.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static unsigned char vec[1 << 20];	/* 4 GiB of 4 KiB pages per mincore() call */
static long page;
static unsigned long long files, resident;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void one(const char *path, off_t size)
{
	int fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC);
	size_t pages, off, n, i;
	void *p;

	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	files++;
	if (size > 0) {
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			pages = (size + page - 1) / page;
			for (off = 0; off < pages; off += n) {
				n = pages - off < sizeof(vec) ? pages - off : sizeof(vec);
				if (mincore((char *)p + off * page, n * page, vec))
					break;
				for (i = 0; i < n; i++)
					resident += vec[i] & 1;
			}
			munmap(p, size);
		}
	}
	close(fd);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D && (!strcmp(path, "/proc") || !strcmp(path, "/sys")))
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && S_ISREG(st->st_mode))
		one(path, st->st_size);
	return FTW_CONTINUE;
}

int main(int argc, char **argv)
{
	long count = argc == 2 ? atol(argv[1]) : 0;
	long long t;
	long i;

	if (count <= 0) {
		fprintf(stderr, "usage: fcbench COUNT\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	t = now_ns();
	for (i = 0; i < count; i++) {
		files = resident = 0;
		if (nftw("/", visit, 64, FTW_PHYS | FTW_ACTIONRETVAL))
			return 1;
	}
	printf("%lld %llu %llu\n", (now_ns() - t) / count, files, resident);
	return 0;
}
