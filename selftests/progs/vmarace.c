// SPDX-License-Identifier: GPL-2.0
/*
 * vmarace: a process that changes its VMAs under a reader of mm and vmas,
 * at the moments the module's walk drops mmap_lock (test_procmem_race.sh).
 *
 *   vmarace remap SECS   a 16 MiB memfd, half of it pushed to swap, mapped
 *                        private and writable at a 2 MiB aligned address;
 *                        in a loop, that mapping is replaced (MAP_FIXED) by
 *                        an anonymous one and back, a few pages written in
 *                        each.  The VMA that replaces a freed one at the
 *                        same address is usually the same slab object, so
 *                        a walk that resumes after dropping the lock sees
 *                        the same pointer with other contents.
 *   vmarace split SECS   the same memfd mapped shared, whole; in a loop the
 *                        lower part (a random number of 2 MiB steps) is
 *                        made read-only and writable again, so the VMA is
 *                        split at a PMD boundary (a chunk boundary of the
 *                        walk) and merged again.  The object's swap does
 *                        not move: every reading of swap_kb must be the
 *                        same.
 *
 * Both print "swapped KB" (the memfd's pages not in memory), then
 * "ready PID", run for SECS seconds or until SIGTERM, print "loops N" and
 * exit 0.  Transparent huge pages are off for the process, so that every
 * untouched part of a mapping is a hole in the page tables.
 *
 *   vmarace read FILE PID SECS CAP
 *                        a reader: opens FILE (mm or vmas of meminspect),
 *                        writes PID, and reads it from offset 0 again and
 *                        again for SECS seconds (no process per read, so
 *                        it is inside the walk most of the time).  A read
 *                        is bad unless it is the header and one record
 *                        (mm) or rows (vmas), each at least as wide as the
 *                        header (the last field is free text).  For mm,
 *                        "excess" is swap_kb - swap_ents_kb - CAP at most.
 *                        A "# pid" or "# the target exited" note ends it.
 *                        Prints "reads N bad M excess X"; exit 0.
 *
 * Exit 2: bad arguments; 1: failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024UL * 1024)
#define PAGE 4096UL
#define LEN (16 * MIB)
#define STEP (2 * MIB)		/* PMD_SIZE on x86_64 */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

#include "pageout.h"

/*
 * The memfd, every page written through a shared map, the first half
 * pushed to swap (retried: pages still in a per-CPU LRU batch are not
 * isolated at once).  The shared map stays at *shm.
 */
static int make_memfd(char **shm)
{
	size_t i;
	int fd;

	fd = memfd_create("vmarace", 0);
	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, LEN))
		die("ftruncate");
	*shm = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*shm == MAP_FAILED)
		die("mmap memfd");
	madvise(*shm, LEN, MADV_NOHUGEPAGE);
	for (i = 0; i < LEN; i += PAGE)
		(*shm)[i] = 1;
	printf("swapped %zu\n", page_out(*shm, LEN / 2));
	return fd;
}

/*
 * LEN bytes at a STEP-aligned address, between two PROT_NONE guards so
 * that nothing mapped there merges with a neighbour.
 */
static char *reserve(void)
{
	char *p = mmap(NULL, LEN + 4 * STEP, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	unsigned long a;

	if (p == MAP_FAILED)
		die("mmap reserve");
	a = ((unsigned long)p + 2 * STEP - 1) & ~(STEP - 1);
	return (char *)a;
}

static void map_at(char *a, int flags, int fd)
{
	if (mmap(a, LEN, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0) !=
	    a)
		die("mmap MAP_FIXED");
}

/* A page written every 1 MiB of the second half: the first stays holes. */
static void scribble(char *a)
{
	size_t i;

	for (i = LEN / 2; i < LEN; i += MIB)
		a[i] = 2;
}

static int remap(char *a, int fd, time_t end)
{
	long n = 0;

	while (!stop && time(NULL) < end) {
		map_at(a, MAP_PRIVATE, fd);
		scribble(a);
		map_at(a, MAP_PRIVATE | MAP_ANONYMOUS, -1);
		scribble(a);
		n++;
	}
	return n;
}

static int split(char *a, int fd, time_t end)
{
	long n = 0;
	size_t k;

	map_at(a, MAP_SHARED, fd);
	while (!stop && time(NULL) < end) {
		k = (size_t)(1 + rand() % (LEN / STEP - 1)) * STEP;
		if (mprotect(a, k, PROT_READ) ||
		    mprotect(a, k, PROT_READ | PROT_WRITE))
			die("mprotect");
		n++;
	}
	return n;
}

/* Column of NAME in the header line HDR (0-based), or -1 */
static int column(const char *hdr, const char *name)
{
	size_t len = strlen(name);
	const char *p = hdr;
	int i = 0;

	while (*p && *p != '\n') {
		if (!strncmp(p, name, len) && (p[len] == ' ' || p[len] == '\n'))
			return i;
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
		i++;
	}
	return -1;
}

/* Fields of the line at P (single-space separated), and field COL's value */
static int fields(const char *p, int col, long *val)
{
	int n = 1;

	if (col == 0)
		*val = atol(p);
	for (; *p && *p != '\n'; p++) {
		if (*p == ' ') {
			if (n == col)
				*val = atol(p + 1);
			n++;
		}
	}
	return n;
}

static char rbuf[4 * MIB];

/* One read of FILE from offset 0: 0 good, 1 bad, 2 the target is gone */
static int read_once(int fd, int is_mm, long cap, long *excess)
{
	int nf, sk, se, rows = 0;
	ssize_t r, len = 0;
	char *p, *nl;
	long swap = 0, ents = 0;

	if (lseek(fd, 0, SEEK_SET))
		return 1;
	while ((r = read(fd, rbuf + len, sizeof(rbuf) - 1 - len)) > 0)
		len += r;
	if (r < 0) {
		fprintf(stderr, "read: %s\n", strerror(errno));
		return 1;
	}
	rbuf[len] = '\0';
	if (strncmp(rbuf, is_mm ? "pid " : "start ", is_mm ? 4 : 6))
		return 1;
	nf = fields(rbuf, -1, &swap);
	sk = column(rbuf, "swap_kb");
	se = column(rbuf, "swap_ents_kb");
	for (p = strchr(rbuf, '\n'); p && p[1]; p = nl) {
		p++;
		nl = strchr(p, '\n');
		if (!nl)
			return 1;	/* a torn last line */
		if (*p == '#') {
			if (!strncmp(p, "# pid ", 6) ||
			    !strncmp(p, "# the target exited", 19))
				return 2;
			continue;
		}
		rows++;
		if (fields(p, -1, &swap) < nf)
			return 1;
		if (is_mm) {
			fields(p, sk, &swap);
			fields(p, se, &ents);
		}
	}
	if (is_mm ? rows != 1 : rows < 3)
		return 1;
	if (is_mm && swap - ents - cap > *excess)
		*excess = swap - ents - cap;
	return 0;
}

static int reader(const char *file, const char *pid, long secs, long cap)
{
	long reads = 0, bad = 0, excess = 0;
	time_t end = time(NULL) + secs;
	int fd, r, is_mm = !!strstr(file, "mm");

	fd = open(file, O_RDWR);
	if (fd < 0)
		die(file);
	if (write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid))
		die("write pid");
	while (!stop && time(NULL) < end) {
		r = read_once(fd, is_mm, cap, &excess);
		if (r == 2)
			break;
		reads++;
		if (r && bad++ < 3)
			fprintf(stderr, "bad read: %.300s\n", rbuf);
	}
	printf("reads %ld bad %ld excess %ld\n", reads, bad, excess);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	char *shm, *a;
	long secs, n;
	int fd;

	if (argc == 6 && !strcmp(argv[1], "read") && atol(argv[4]) > 0)
		return reader(argv[2], argv[3], atol(argv[4]), atol(argv[5]));
	if (argc != 3 || (secs = atol(argv[2])) <= 0 ||
	    (strcmp(argv[1], "remap") && strcmp(argv[1], "split"))) {
		fprintf(stderr, "usage: vmarace remap|split SECS | read FILE PID SECS CAP\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE)");

	fd = make_memfd(&shm);
	a = reserve();
	/* split reads swap through its own map: the shared one would add */
	if (!strcmp(argv[1], "split") && munmap(shm, LEN))
		die("munmap");
	printf("ready %d\n", (int)getpid());
	if (!strcmp(argv[1], "remap"))
		n = remap(a, fd, time(NULL) + secs);
	else
		n = split(a, fd, time(NULL) + secs);
	printf("loops %ld\n", n);
	return 0;
}
