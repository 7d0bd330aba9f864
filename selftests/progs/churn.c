// SPDX-License-Identifier: GPL-2.0
/*
 * churn SECONDS MIB [STATE]: keep the memory counters moving for SECONDS
 * seconds.
 *
 * Each round maps, touches and unmaps up to MIB MiB of anonymous memory,
 * writes and deletes a file in $TMPDIR (default /tmp, a tmpfs in the
 * guest: shmem and page cache move) and forks a short-lived child (kernel
 * stacks, page tables, slab move).  Failures to get memory or disk are part
 * of the game and are not errors.  Exits 0, or 2 on bad arguments.
 * SIGTERM/SIGINT end the run early, still cleanly.
 *
 * Holds, for tests that bracket a reading between two reads of the
 * kernel's own file: the anonymous memory goes up to MIB MiB and drops to
 * nothing at each unmap, so a reading taken between two reads can lie far
 * below both (a saw-tooth is not bracketed by its two ends).  SIGUSR1 asks
 * for a hold: from the moment STATE says "held" no mapping is unmapped,
 * the round's mapping and new ones (up to MIB MiB held in all) are only
 * touched, so AnonPages only grows and MemFree only falls, give or take the
 * small file and fork rounds.  SIGUSR2 ends it: the held mappings are
 * unmapped and STATE says "run" again.  STATE says "run" once the signal
 * handlers are in place.  It is replaced by rename(), never seen half
 * written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB		(1024UL * 1024UL)
#define FILE_BYTES	(256UL * 1024UL)
#define PAGE		4096UL

#define MAX_HELD	64

static volatile sig_atomic_t stop, hold;

/* the hold as the main flow sees it: only hold_sync() changes it */
static int held;
static const char *state_path;
static struct {
	void *p;
	unsigned long bytes;
} held_maps[MAX_HELD];
static unsigned long nr_held, held_bytes, max_held_bytes, nr_holds;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		hold = 1;
	else if (sig == SIGUSR2)
		hold = 0;
	else
		stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift: deterministic per process, good enough to vary sizes */
static unsigned long rnd(void)
{
	static unsigned long x = 88172645463325252UL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* write_state: STATE := WHAT, atomically (a temporary file renamed) */
static void write_state(const char *what)
{
	char tmp[512];
	int fd;

	if (!state_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", state_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	if (write(fd, what, strlen(what)) < 0 || close(fd) < 0) {
		unlink(tmp);
		return;
	}
	rename(tmp, state_path);
}

/*
 * hold_sync: follow the signals.  A hold is acknowledged only here, after
 * any unmap that was under way when SIGUSR1 came, and ended only here,
 * after the held mappings are gone.
 */
static void hold_sync(void)
{
	unsigned long i;

	if (hold && !held) {
		held = 1;
		nr_holds++;
		write_state("held\n");
	} else if (!hold && held) {
		for (i = 0; i < nr_held; i++)
			munmap(held_maps[i].p, held_maps[i].bytes);
		nr_held = 0;
		held_bytes = 0;
		held = 0;
		write_state("run\n");
	}
}

static unsigned char *map_touch(unsigned long bytes, int sync)
{
	unsigned char *p;
	unsigned long off;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (off = 0; off < bytes && !stop; off += PAGE) {
		p[off] = (unsigned char)off | 1;
		if (sync)
			hold_sync();
	}
	return p;
}

/* anon_round: map and touch BYTES; unmap them, or keep them while held */
static void anon_round(unsigned long bytes)
{
	unsigned char *p;

	if (held && (nr_held == MAX_HELD ||
		     held_bytes + bytes > max_held_bytes)) {
		usleep(1000);	/* full: the hold only waits */
		return;
	}
	p = map_touch(bytes, 1);
	if (!p)
		return;
	hold_sync();
	if (held && nr_held < MAX_HELD) {
		held_maps[nr_held].p = p;
		held_maps[nr_held].bytes = bytes;
		nr_held++;
		held_bytes += bytes;
		return;
	}
	munmap(p, bytes);
}

static void file_round(const char *path)
{
	static char buf[64 * 1024];
	unsigned long done;
	int fd;

	memset(buf, 0x5a, sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return;
	for (done = 0; done < FILE_BYTES; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) < 0)
			break;
	close(fd);
	unlink(path);
}

static void fork_round(void)
{
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		map_touch(MIB, 0);
		_exit(0);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int parse(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long secs, mib, rounds = 0;
	struct sigaction sa;
	const char *tmp;
	char path[256];
	double start, end;

	if (argc < 3 || argc > 4 || parse(argv[1], &secs) ||
	    parse(argv[2], &mib) || !mib) {
		fprintf(stderr, "usage: churn SECONDS MIB [STATE]\n");
		return 2;
	}
	state_path = argc == 4 ? argv[3] : NULL;
	max_held_bytes = mib * MIB;
	tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/churn.%d", tmp ? tmp : "/tmp",
		 (int)getpid());

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	write_state("run\n");

	start = now();
	end = start + secs;
	while (!stop && now() < end) {
		hold_sync();
		anon_round((rnd() % (mib * MIB / PAGE) + 1) * PAGE);
		file_round(path);
		fork_round();
		rounds++;
	}
	unlink(path);
	write_state("done\n");
	printf("churn: %lu rounds in %.1f s, %lu holds%s\n", rounds,
	       now() - start, nr_holds, stop ? " (stopped by a signal)" : "");
	return 0;
}
