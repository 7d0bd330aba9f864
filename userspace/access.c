// SPDX-License-Identifier: GPL-2.0
/* Reaching the module's files; naming the real reason when that fails. */
#include "access.h"
#include "parse.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

void mi_access_init(struct mi_access *a)
{
	const char *env;

	a->sysfs = "/sys";
	if ((env = getenv("MEMINSPECT_SYSFS")) && *env)
		a->sysfs = env;
	snprintf(a->debugfs, sizeof(a->debugfs), "%s/kernel/debug", a->sysfs);
	snprintf(a->default_dir, sizeof(a->default_dir), "%s/meminspect", a->debugfs);
	a->dir = (env = getenv("MEMINSPECT_DIR")) && *env ? env : a->default_dir;
	a->dev_dir = (env = getenv("MEMINSPECT_DEV_DIR")) && *env ? env : "/dev/meminspect";
	snprintf(a->lockdown, sizeof(a->lockdown), "%s/kernel/security/lockdown", a->sysfs);
}

/* "none [integrity] confidentiality": the bracketed word. */
const char *mi_lockdown_level(const struct mi_access *a, char *buf, size_t len)
{
	char line[128], *got, *l, *r;
	FILE *f = fopen(a->lockdown, "re");

	if (!f)
		return NULL;
	got = fgets(line, sizeof(line), f);
	fclose(f);
	l = got ? strchr(line, '[') : NULL;
	r = l ? strchr(l, ']') : NULL;
	if (!r || r == l + 1 || (size_t)(r - l) > len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(r - l - 1), l + 1);
	return buf;
}

const char *mi_locked_down(const struct mi_access *a, char *buf, size_t len)
{
	const char *level = mi_lockdown_level(a, buf, len);

	return level && strcmp(level, "none") ? level : NULL;
}

static bool is_debugfs(const char *dir)
{
	struct statfs fs;

	return statfs(dir, &fs) == 0 && fs.f_type == DEBUGFS_MAGIC;
}

int mi_open(const struct mi_access *a, const char *rel, int flags, char *path, size_t len)
{
	struct stat st;
	int fd;

	if ((size_t)snprintf(path, len, "%s/%s", a->dir, rel) >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, flags | O_CLOEXEC);
	/*
	 * Only debugfs is locked down: a copy of the files (--dir) that
	 * refuses an open is never swapped for the live module's devices.
	 */
	if (fd >= 0 || errno != EPERM || !is_debugfs(a->dir))
		return fd;
	if ((size_t)snprintf(path, len, "%s/%s", a->dev_dir, rel) >= len || stat(path, &st)) {
		snprintf(path, len, "%s/%s", a->dir, rel);
		errno = EPERM;
		return -1;
	}
	return open(path, flags | O_CLOEXEC);
}

bool mi_module_version(const struct mi_access *a, char *buf, size_t len)
{
	char path[300];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/module/meminspect/version", a->sysfs);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return buf[0] != '\0';
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool mi_module_loaded(const struct mi_access *a)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/module/meminspect", a->sysfs);
	return exists(path);
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int no_permission(const struct mi_access *a, const char *what)
{
	const char *level;
	char buf[32];

	if (geteuid() != 0) {
		fprintf(stderr, "meminspect: %s: not root; run meminspect as root (e.g. sudo meminspect ...)%s\n",
			what, mi_module_loaded(a) ? "" :
			"\nmeminspect: note: the meminspect module does not seem to be loaded either");
		return ST_PERM;
	}
	level = mi_lockdown_level(a, buf, sizeof(buf));
	if (!level) {
		fprintf(stderr, "meminspect: %s even as root (kernel lockdown? see dmesg)\n", what);
		return ST_PERM;
	}
	if (!strcmp(level, "none")) {
		fprintf(stderr, "meminspect: %s even as root (see dmesg)\n", what);
		return ST_PERM;
	}
	fprintf(stderr, "meminspect: %s: kernel lockdown (%s) refuses debugfs files that can be written, and %s has no copy of this one (a module without the lockdown mirror?) (docs/lockdown.md)\n",
		what, level, a->dev_dir);
	return ST_LOCKDOWN;
}

/*
 * a->dir is missing. Checked in the order a user must fix things: debugfs
 * mounted, then module loaded. A non-root user never gets here for the
 * default dir: debugfs is 0700, so the open fails with EACCES instead.
 */
static int dir_missing(const struct mi_access *a)
{
	struct statfs fs;
	bool in_debugfs = under(a->dir, a->debugfs);

	if (in_debugfs && (statfs(a->debugfs, &fs) != 0 || fs.f_type != DEBUGFS_MAGIC)) {
		fprintf(stderr, "meminspect: debugfs is not mounted on %s; mount it: mount -t debugfs none %s%s\n",
			a->debugfs, a->debugfs,
			geteuid() ? "\nmeminspect: note: reading debugfs also needs root" : "");
		return ST_NO_DEBUGFS;
	}
	if (!mi_module_loaded(a)) {
		fprintf(stderr, "meminspect: %s does not exist: the meminspect module is not loaded; load it: insmod meminspect.ko (or modprobe meminspect)\n",
			a->dir);
		return ST_NO_MODULE;
	}
	if (in_debugfs) {
		fprintf(stderr, "meminspect: %s does not exist although the meminspect module is loaded (see dmesg)\n",
			a->dir);
		return ST_FORMAT;
	}
	fprintf(stderr, "meminspect: %s does not exist (check --dir and MEMINSPECT_DIR)\n", a->dir);
	return ST_USAGE;
}

int mi_open_failed(const struct mi_access *a, const struct mi_error *e)
{
	struct stat st;

	switch (e->sys_errno) {
	case EACCES:
	case EPERM:
		return no_permission(a, e->msg);
	case ENOENT:
	case ENOTDIR:
		if (stat(a->dir, &st) != 0)
			return errno == EACCES ? no_permission(a, a->dir) : dir_missing(a);
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "meminspect: %s is not a directory (check --dir)\n", a->dir);
			return ST_USAGE;
		}
		fprintf(stderr, "meminspect: %s (the module did not create it?)\n", e->msg);
		return ST_FORMAT;
	default:	/* a format error (0), EIO, ENOMEM, ... */
		fprintf(stderr, "meminspect: %s\n", e->msg);
		return ST_FORMAT;
	}
}

int mi_load(const struct mi_access *a, const char *file, struct mi_table **t)
{
	struct mi_error e;
	char path[4096];
	int fd = mi_open(a, file, O_RDONLY, path, sizeof(path));

	*t = NULL;
	if (fd < 0) {
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
	} else {
		*t = mi_table_read_fd(fd, path, &e);
		close(fd);
	}
	return *t ? ST_OK : mi_open_failed(a, &e);
}
