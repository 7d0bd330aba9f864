// SPDX-License-Identifier: GPL-2.0
/*
 * churn SECONDS MIB: keep the memory counters moving for SECONDS seconds.
 *
 * Each round maps, touches and unmaps up to MIB MiB of anonymous memory,
 * writes and deletes a file in $TMPDIR (default /tmp, a tmpfs in the
 * guest: shmem and page cache move) and forks a short-lived child (kernel
 * stacks, page tables, slab move).  Failures to get memory or disk are part
 * of the game and are not errors.  Exits 0, or 2 on bad arguments.
 * SIGTERM/SIGINT end the run early, still cleanly.
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

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
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

static void touch_anon(unsigned long bytes)
{
	unsigned char *p;
	unsigned long off;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (off = 0; off < bytes && !stop; off += PAGE)
		p[off] = (unsigned char)off | 1;
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
		touch_anon(MIB);
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

	if (argc != 3 || parse(argv[1], &secs) || parse(argv[2], &mib) ||
	    !mib) {
		fprintf(stderr, "usage: churn SECONDS MIB\n");
		return 2;
	}
	tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/churn.%d", tmp ? tmp : "/tmp",
		 (int)getpid());

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	start = now();
	end = start + secs;
	while (!stop && now() < end) {
		touch_anon((rnd() % (mib * MIB / PAGE) + 1) * PAGE);
		file_round(path);
		fork_round();
		rounds++;
	}
	unlink(path);
	printf("churn: %lu rounds in %.1f s%s\n", rounds, now() - start,
	       stop ? " (stopped by a signal)" : "");
	return 0;
}
