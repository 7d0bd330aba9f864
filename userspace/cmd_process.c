// SPDX-License-Identifier: GPL-2.0
/*
 * mm, vmas, top: one process's memory and every process's (the module's
 * docs/procmem.md).  A PID is written to the open file, then the file is
 * read; top reads procs, every process in one read, and with a module
 * that has no procs re-targets one open mm per process.
 */
#include "access.h"
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool process_is_pid(const char *s)
{
	if (!*s || strlen(s) > 10)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Choose PID as the target of the open file fd (docs: write the pid, then
 * read).  Quiet: ST_OK, or the errno in *err and a non-zero status.
 */
static int choose_pid(int fd, const char *pid, int *err)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%s\n", pid);

	if (write(fd, line, (size_t)n) == n)
		return ST_OK;
	*err = errno;
	return ST_FORMAT;
}

static int pid_error(const char *file, const char *pid, int err)
{
	switch (err) {
	case ESRCH:
		fprintf(stderr, "meminspect: %s: no process %s\n", file, pid);
		return ST_FORMAT;
	case EACCES:
	case EPERM:
		fprintf(stderr, "meminspect: %s: may not read process %s (needs ptrace read access, as /proc/%s/smaps)\n",
			file, pid, pid);
		return ST_PERM;
	case EINVAL:
	case ERANGE:
		fprintf(stderr, "meminspect: %s: bad pid '%s'\n", file, pid);
		return ST_USAGE;
	default:
		fprintf(stderr, "meminspect: %s: choosing pid %s: %s\n", file, pid, strerror(err));
		return ST_FORMAT;
	}
}

/* Read an already open module file from its start and parse it. */
static int read_table(int fd, const char *path, struct mi_table **t)
{
	struct mi_error e;

	if (lseek(fd, 0, SEEK_SET) < 0) {
		fprintf(stderr, "meminspect: %s: %s\n", path, strerror(errno));
		return ST_FORMAT;
	}
	*t = mi_table_read_fd(fd, path, &e);
	if (!*t) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	return ST_OK;
}

/* FILE (mm or vmas) for pid, or for the reader itself without one. */
static int load_process(const struct mi_cli *c, const char *pid, const char *file,
			struct mi_table **t)
{
	char path[4096];
	int fd, st, err;

	if (!pid)
		return mi_load(&c->acc, file, t);
	/* a pid is written to the file: never to a copy of it */
	st = view_open_live(c, file, "a PID", path, sizeof(path), &fd);
	if (st)
		return st;
	st = choose_pid(fd, pid, &err);
	if (st)
		st = pid_error(file, pid, err);
	else
		st = read_table(fd, path, t);
	close(fd);
	return st;
}

/* The notes of a record-less answer (kernel thread, zombie) as an error. */
static int no_memory(const struct mi_table *t, const char *file)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: %s: %s\n", file, mi_note(t, i));
	return ST_FORMAT;
}

static const char *const mm_fields[] = { "pid", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "comm", NULL };
static const char *const vmas_fields[] = { "start", "end", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "name", NULL };

/* mm's one record as "field value" rows, the notes kept. */
static int mm_rows(const struct mi_table *t, struct mi_table **v)
{
	static const char *const fields[] = { "field", "value", NULL };
	struct mi_error e;

	*v = mi_table_new("mm", fields, &e);
	if (!*v) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	for (size_t i = 0; i < mi_nfields(t); i++) {
		long r = mi_table_add_record(*v);

		if (r < 0)
			break;
		mi_table_set(*v, (size_t)r, 0, mi_field_name(t, i));
		mi_table_set(*v, (size_t)r, 1, mi_value(t, 0, i));
	}
	mi_table_copy_notes(*v, t);
	if (!mi_table_error(*v))
		return ST_OK;
	view_build_failed(*v, "mm");
	mi_table_free(*v);
	*v = NULL;
	return ST_FORMAT;
}

/* mm: the one record, shown as "field value" rows; JSON: one object. */
int cmd_mm(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *t, *v;
	int st = load_process(c, o->proc.pid, "mm", &t);

	if (st)
		return st;
	st = view_require(t, mm_fields);
	if (!st && mi_nrecords(t) != 1)
		st = no_memory(t, "mm");
	if (st)
		goto out;
	if (c->json) {
		struct json j;

		json_init(&j, stdout);
		json_record(&j, t, 0);
		json_finish(&j);
		view_notes_to_stderr(t, "mm");
		goto out;
	}
	st = mm_rows(t, &v);
	if (!st) {
		st = view_print(c, v);
		mi_table_free(v);
	}
out:
	mi_table_free(t);
	return st;
}

const char *process_sort_field(const char *key)
{
	static const char *const keys[][2] = {
		{ "rss", "rss_kb" }, { "pss", "pss_kb" }, { "uss", "uss_kb" }, { "swap", "swap_kb" },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i][0]))
			return keys[i][1];
	return NULL;
}

static long long num_of(const char *v)
{
	long long n;

	return mi_parse_s64(v, &n) ? -1 : n;
}

/* descending by the column; mi_table_sort keeps the original order of ties */
static int by_column(const struct mi_table *t, size_t a, size_t b, const void *arg)
{
	size_t col = *(const size_t *)arg;
	long long va = num_of(mi_value(t, a, col)), vb = num_of(mi_value(t, b, col));

	return va == vb ? 0 : va < vb ? 1 : -1;
}

/* t's records in --sort order (descending), in place. */
static int sort_rows(const struct process_opts *o, struct mi_table *t, const char *dflt)
{
	const char *field = process_sort_field(o->sort ? o->sort : dflt);
	int col;
	size_t ucol;

	if (!field)
		return mi_bad_usage("--sort takes rss, pss, uss or swap, not '%s'", o->sort);
	col = mi_field_index(t, field);
	if (col < 0) {
		fprintf(stderr, "meminspect: %s has no field %s\n", mi_table_name(t), field);
		return ST_FORMAT;
	}
	ucol = (size_t)col;
	if (mi_table_sort(t, by_column, &ucol)) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	return ST_OK;
}

int cmd_vmas(const struct mi_cli *c, struct cmd_opts *o)
{
	struct mi_table *t;
	int st = load_process(c, o->proc.pid, "vmas", &t);

	if (st)
		return st;
	st = view_require(t, vmas_fields);
	if (!st && !mi_nrecords(t) && mi_nnotes(t))
		st = no_memory(t, "vmas");
	if (!st && o->proc.sort)
		st = sort_rows(&o->proc, t, "pss");
	if (!st)
		st = view_show(c, t, "vmas");
	mi_table_free(t);
	return st;
}

/* top's table, the sums and counts its note gives */
struct top_acc {
	struct mi_table *all;
	unsigned long long pss, uss;
	unsigned int n;
};

/* One mm or procs record into top's table, if it has rollup figures. */
static void top_add(struct top_acc *a, const struct mi_table *t, size_t r)
{
	if (mi_is_none(mi_get(t, r, "pss_kb")))
		return;
	mi_table_copy_record(a->all, t, r);
	a->pss += (unsigned long long)num_of(mi_get(t, r, "pss_kb"));
	a->uss += (unsigned long long)num_of(mi_get(t, r, "uss_kb"));
	a->n++;
}

/*
 * top from procs: every process in one open and read (docs/procmem.md).
 * ST_OK, an error status, or -1 when the module has no procs (an older
 * module, or no mm_access on this kernel): then top asks mm, pid by pid.
 */
static int top_procs(const struct mi_cli *c, struct top_acc *a)
{
	struct mi_table *t;
	struct mi_error e;
	char path[4096];
	int fd = mi_open(&c->acc, "procs", O_RDONLY, path, sizeof(path));
	int st;

	if (fd < 0) {
		if (errno == ENOENT || errno == EOPNOTSUPP)
			return -1;
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
		return mi_open_failed(&c->acc, &e);
	}
	t = mi_table_read_fd(fd, path, &e);
	close(fd);
	if (!t) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	st = view_require(t, mm_fields);
	for (size_t r = 0; !st && r < mi_nrecords(t); r++)
		top_add(a, t, r);
	if (!st)
		mi_table_add_note(a->all, "%u processes: pss %llu kB, uss %llu kB in all (procs, one read); kernel threads, exited processes and those not permitted are not listed",
				  a->n, a->pss, a->uss);
	mi_table_free(t);
	return st;
}

/* top from mm: one open file re-targeted per pid of /proc (older modules). */
static int top_mm(const struct mi_cli *c, struct top_acc *a)
{
	struct mi_table *t;
	char path[4096], proc[300];
	unsigned int skipped = 0;
	struct mi_error e;
	struct dirent *d;
	int fd, err;
	DIR *dir;

	fd = mi_open(&c->acc, "mm", O_RDWR, path, sizeof(path));
	if (fd < 0) {
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%.400s: %s", path, strerror(errno));
		return mi_open_failed(&c->acc, &e);
	}
	snprintf(proc, sizeof(proc), "%s/../proc", c->acc.sysfs);
	dir = opendir(strcmp(c->acc.sysfs, "/sys") ? proc : "/proc");
	if (!dir) {
		fprintf(stderr, "meminspect: /proc: %s\n", strerror(errno));
		close(fd);
		return ST_FORMAT;
	}
	while ((d = readdir(dir))) {
		if (!process_is_pid(d->d_name))
			continue;
		/* gone, or not ours to read: skip, as smem does */
		if (choose_pid(fd, d->d_name, &err)) {
			skipped++;
			continue;
		}
		if (read_table(fd, path, &t))
			continue;
		if (mi_nrecords(t) == 1 && !view_require(t, mm_fields))
			top_add(a, t, 0);
		mi_table_free(t);
	}
	mi_table_add_note(a->all, "%u processes: pss %llu kB, uss %llu kB in all; %u could not be read (exited or not permitted); kernel threads have no user memory",
			  a->n, a->pss, a->uss, skipped);
	closedir(dir);
	close(fd);
	return ST_OK;
}

/* top: every process's rollup, from procs, else from mm pid by pid. */
int cmd_top(const struct mi_cli *c, struct cmd_opts *o)
{
	static const char *const cols[] = {
		"pid", "rss_kb", "pss_kb", "uss_kb", "swap_kb", "swap_pss_kb", "comm", NULL };
	struct top_acc a = { 0 };
	struct mi_error e;
	int st;

	if (o->proc.sort && !process_sort_field(o->proc.sort))
		return mi_bad_usage("--sort takes rss, pss, uss or swap, not '%s'", o->proc.sort);
	a.all = mi_table_new("top", cols, &e);
	if (!a.all) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	st = top_procs(c, &a);
	if (st < 0)
		st = top_mm(c, &a);
	if (!st && mi_table_error(a.all))
		st = view_build_failed(a.all, "top");
	if (!st)
		st = sort_rows(&o->proc, a.all, "pss");
	if (!st)
		st = view_show(c, a.all, "top");
	mi_table_free(a.all);
	return st;
}
