// SPDX-License-Identifier: GPL-2.0
/*
 * pmbench: measurements for bench/procmem (guest side, static).
 *
 *   pmbench read FILE PID COUNT   mean ns per full read of FILE for PID: FILE is
 *                                 a meminspect file (the pid is written to it
 *                                 once) or a /proc/PID/ file (PID unused)
 *   pmbench loop FILE PID SECONDS read FILE for PID back to back for SECONDS;
 *                                 prints the number of reads
 *   pmbench rollups               read every /proc/PID/smaps_rollup and sum
 *                                 Pss and Private_* (what smem does); prints
 *                                 the number of processes read
 *   pmbench run COUNT CMD...      mean ns per run of CMD (fork, exec, wait)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[16 << 20];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int open_target(const char *file, const char *pid)
{
	int fd;

	if (!strncmp(file, "/proc/", 6))
		return open(file, O_RDONLY);
	fd = open(file, O_RDWR);
	if (fd >= 0 && write(fd, pid, strlen(pid)) < 0) {
		perror("write pid");
		exit(1);
	}
	return fd;
}

/* one full read from offset 0; bytes read */
static long read_once(int fd)
{
	long total = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), total)) > 0)
		total += n;
	if (n < 0) {
		perror("read");
		exit(1);
	}
	return total;
}

static int cmd_read(const char *file, const char *pid, long count)
{
	int fd = open_target(file, pid);
	long long t;
	long i;

	if (fd < 0) {
		perror(file);
		return 1;
	}
	read_once(fd);
	t = now_ns();
	for (i = 0; i < count; i++)
		read_once(fd);
	printf("%lld\n", (now_ns() - t) / count);
	return 0;
}

static int cmd_loop(const char *file, const char *pid, long seconds)
{
	int fd = open_target(file, pid);
	long long end = now_ns() + seconds * 1000000000LL;
	long n = 0;

	if (fd < 0) {
		perror(file);
		return 1;
	}
	while (now_ns() < end) {
		read_once(fd);
		n++;
	}
	printf("%ld\n", n);
	return 0;
}

static int cmd_rollups(void)
{
	char path[300], line[256];
	unsigned long long pss = 0, uss = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");
	long n = 0;
	FILE *f;

	if (!dir)
		return 1;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Pss:", 4))
				pss += strtoull(line + 4, NULL, 10);
			else if (!strncmp(line, "Private_", 8))
				uss += strtoull(strchr(line, ':') + 1, NULL, 10);
		}
		fclose(f);
		n++;
	}
	closedir(dir);
	printf("%ld processes, pss %llu kB, uss %llu kB\n", n, pss, uss);
	return 0;
}

static int cmd_run(long count, char **argv)
{
	long long t = now_ns();
	long i;
	pid_t p;

	for (i = 0; i < count; i++) {
		p = fork();
		if (p == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execv(argv[0], argv);
			_exit(127);
		}
		if (p < 0 || waitpid(p, NULL, 0) < 0)
			return 1;
	}
	printf("%lld\n", (now_ns() - t) / count);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "read"))
		return cmd_read(argv[2], argv[3], atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "loop"))
		return cmd_loop(argv[2], argv[3], atol(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "rollups"))
		return cmd_rollups();
	if (argc >= 4 && !strcmp(argv[1], "run"))
		return cmd_run(atol(argv[2]), argv + 3);
	fprintf(stderr, "usage: pmbench read FILE PID COUNT | loop FILE PID SECONDS | rollups | run COUNT CMD...\n");
	return 2;
}
