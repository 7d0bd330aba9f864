// SPDX-License-Identifier: GPL-2.0
/*
 * frag MIB: leave a great many free order-0 blocks in the buddy allocator.
 *
 * Maps MIB MiB of anonymous memory (no THP), touches every page, reads each
 * page's frame number from /proc/self/pagemap (root), and gives back with
 * MADV_DONTNEED every page whose frame number is odd.  The buddy of each
 * freed page (pfn ^ 1, even) is kept, so the freed pages cannot merge: they
 * stay order-0 free blocks, about MIB * 128 of them.  Then prints
 * "ready FREED KEPT" and holds the rest until SIGTERM/SIGINT; exits 0, 1
 * when the memory or pagemap is not available, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	4096UL
#define CHUNK	4096UL		/* pagemap entries read at once */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	unsigned long mib, pages, i, freed = 0, kept = 0;
	static uint64_t pm[CHUNK];
	struct sigaction sa;
	unsigned char *p;
	char *end;
	int fd;

	if (argc != 2 || !(mib = strtoul(argv[1], &end, 10)) || *end) {
		fprintf(stderr, "usage: frag MIB\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	pages = mib * (1024 * 1024 / PAGE);
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("frag: mmap");
		return 1;
	}
	/* 4 KiB pages only: a THP would be freed, or split, as a whole */
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * PAGE] = (unsigned char)i;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0) {
		perror("frag: /proc/self/pagemap");
		return 1;
	}
	for (i = 0; i < pages; i += CHUNK) {
		unsigned long n = pages - i < CHUNK ? pages - i : CHUNK, k;
		off_t off = (off_t)((uintptr_t)(p + i * PAGE) / PAGE) * 8;

		if (pread(fd, pm, n * 8, off) != (ssize_t)(n * 8)) {
			perror("frag: pagemap read");
			return 1;
		}
		for (k = 0; k < n; k++) {
			uint64_t e = pm[k];
			uint64_t pfn = e & ((1ULL << 55) - 1);

			if (!(e >> 63) || !pfn) {	/* not present, or no PFN (not root) */
				kept++;
				continue;
			}
			if (pfn & 1) {
				madvise(p + (i + k) * PAGE, PAGE, MADV_DONTNEED);
				freed++;
			} else {
				kept++;
			}
		}
	}
	close(fd);
	printf("ready %lu %lu\n", freed, kept);
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
