// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the host tests: regular files stand in for the
 * module's debugfs directory and its /dev/meminspect mirror, so the reader's
 * own code (built without -static, unchanged) meets what a locked-down
 * kernel does.  Nothing of it is in the reader.
 *
 * MI_SHIM_DEBUGFS=DIR[:DIR]  statfs() of these reports DEBUGFS_MAGIC.
 * MI_SHIM_LOCKED=DIR         as debugfs_locked_down() (fs/debugfs/file.c)
 *                            under lockdown: an open under DIR of a file
 *                            whose mode has a bit beyond 0444, or for
 *                            writing, fails with EPERM.
 * MI_SHIM_PIDS=DIR[:DIR]     files named mm or vmas under these answer as
 *                            the module's do: "PID\n" written to the open
 *                            file makes it read FILE.pids/PID from its
 *                            start (ESRCH when there is none).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define MAX_FDS 1024
static char *pid_file[MAX_FDS];	/* fd -> the mm/vmas file it was opened on */

/* PATH is DIR or below one of the ':'-separated DIRs of $VAR. */
static bool under_env(const char *var, const char *path)
{
	const char *l = getenv(var);

	while (l && *l) {
		size_t n = strcspn(l, ":");

		if (n && !strncmp(path, l, n) && (path[n] == '/' || !path[n]))
			return true;
		l += n + (l[n] == ':');
	}
	return false;
}

static bool refused(const char *path, int flags)
{
	struct stat st;

	if (!under_env("MI_SHIM_LOCKED", path) || stat(path, &st))
		return false;
	return (st.st_mode & 07777 & ~0444) || (flags & O_ACCMODE) != O_RDONLY;
}

static void track(int fd, const char *path)
{
	const char *base = strrchr(path, '/');

	if (fd < 0 || fd >= MAX_FDS || !base || !under_env("MI_SHIM_PIDS", path))
		return;
	if (strcmp(base, "/mm") && strcmp(base, "/vmas"))
		return;
	free(pid_file[fd]);
	pid_file[fd] = strdup(path);
}

static int do_open(const char *path, int flags, mode_t mode)
{
	static int (*real)(const char *, int, ...);
	int fd;

	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (refused(path, flags)) {
		errno = EPERM;
		return -1;
	}
	fd = real(path, flags, mode);
	track(fd, path);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return do_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	return do_open(path, flags, mode);
}

FILE *fopen(const char *path, const char *how)
{
	static FILE *(*real)(const char *, const char *);

	if (!real)
		real = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
	if (refused(path, strchr(how, 'w') || strchr(how, 'a') || strchr(how, '+') ?
		    O_RDWR : O_RDONLY)) {
		errno = EPERM;
		return NULL;
	}
	return real(path, how);
}

FILE *fopen64(const char *path, const char *how)
{
	return fopen(path, how);
}

static int real_close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	return real(fd);
}

int close(int fd)
{
	if (fd >= 0 && fd < MAX_FDS) {
		free(pid_file[fd]);
		pid_file[fd] = NULL;
	}
	return real_close(fd);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	char pid[16], path[4096];
	int answer;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd < 0 || fd >= MAX_FDS || !pid_file[fd])
		return real(fd, buf, len);
	if (len == 0 || len >= sizeof(pid) || ((const char *)buf)[len - 1] != '\n') {
		errno = EINVAL;
		return -1;
	}
	memcpy(pid, buf, len - 1);
	pid[len - 1] = '\0';
	snprintf(path, sizeof(path), "%s.pids/%s", pid_file[fd], pid);
	answer = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (answer < 0) {
		errno = ESRCH;
		return -1;
	}
	/* the fd now reads the answer; it stays tracked for the next pid */
	dup2(answer, fd);
	real_close(answer);
	return (ssize_t)len;
}

static bool faked_debugfs(const char *path, struct statfs *fs)
{
	if (!under_env("MI_SHIM_DEBUGFS", path))
		return false;
	memset(fs, 0, sizeof(*fs));
	fs->f_type = DEBUGFS_MAGIC;
	return true;
}

int statfs(const char *path, struct statfs *fs)
{
	static int (*real)(const char *, struct statfs *);

	if (faked_debugfs(path, fs))
		return 0;
	if (!real)
		real = (int (*)(const char *, struct statfs *))dlsym(RTLD_NEXT, "statfs");
	return real(path, fs);
}

int statfs64(const char *path, struct statfs64 *fs)
{
	static int (*real)(const char *, struct statfs64 *);

	if (faked_debugfs(path, (struct statfs *)fs))
		return 0;
	if (!real)
		real = (int (*)(const char *, struct statfs64 *))dlsym(RTLD_NEXT, "statfs64");
	return real(path, fs);
}
