// SPDX-License-Identifier: GPL-2.0
/*
 * The first screen of a memory incident (docs/pressure.md, docs/latency.md):
 * pressure --watch N, a `vmstat N` for memory (one line of rates per
 * interval, from the module's per-open deltas), and latency, the stall
 * histograms drawn as bpftrace draws hist().
 */
#include "access.h"
#include "cli.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* ---- pressure --watch: one line per interval ---- */

/*
 * The columns: a vmstat record's delta as a rate per second, or (psi) the
 * record's value, a percentage in centipercent. A record the module left
 * out (capabilities pressure.events, pressure.compact, pressure.psi) is `-`.
 */
static const struct vm_col {
	const char *group;	/* the first header line, over its columns */
	const char *head;	/* the second */
	const char *section;
	const char *name;	/* the record's name, and the JSON key */
} vm_cols[] = {
	{ "stall", "alloc", "vmstat", "allocstall" },
	{ "pgscan", "direct", "vmstat", "pgscan_direct" },
	{ "pgscan", "kswapd", "vmstat", "pgscan_kswapd" },
	{ "pgsteal", "direct", "vmstat", "pgsteal_direct" },
	{ "pgsteal", "kswapd", "vmstat", "pgsteal_kswapd" },
	{ "compact", "stall", "vmstat", "compact_stall" },
	{ "compact", "fail", "vmstat", "compact_fail" },
	{ "oom", "kill", "vmstat", "oom_kill" },
	{ "refault", "anon", "vmstat", "workingset_refault_anon" },
	{ "refault", "file", "vmstat", "workingset_refault_file" },
	{ "psi_avg10", "some%", "psi", "some_avg10" },
	{ "psi_avg10", "full%", "psi", "full_avg10" },
};

#define NCOLS (sizeof(vm_cols) / sizeof(vm_cols[0]))
#define COLW 8

static const char *const pressure_fields[] = {
	"section", "scope", "name", "value", "delta", "unit", NULL,
};

/* The record of a column; -1 if the module left it out. */
static long vm_record(const struct mi_table *t, const struct vm_col *col)
{
	for (size_t r = 0; r < mi_nrecords(t); r++)
		if (!strcmp(mi_get(t, r, "section"), col->section) &&
		    !strcmp(mi_get(t, r, "name"), col->name))
			return (long)r;
	return -1;
}

/* Data lines between two headers: the terminal's height, as vmstat. */
static unsigned long page_lines(void)
{
	struct winsize ws;
	const char *env = getenv("LINES");
	unsigned long long n = 24;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 0)
		n = ws.ws_row;
	else if (env && !mi_parse_u64(env, &n) && n > 0)
		;
	else
		n = 24;
	return n > 3 ? (unsigned long)n - 2 : 1;
}

static void vm_header(void)
{
	for (size_t i = 0; i < NCOLS;) {
		size_t n = 1, w, g, left;

		while (i + n < NCOLS && !strcmp(vm_cols[i + n].group, vm_cols[i].group))
			n++;
		w = n * (COLW + 1) - 1;
		g = strlen(vm_cols[i].group);
		left = g < w ? (w - g) / 2 : 0;
		printf("%s%.*s%s%.*s", i ? " " : "", (int)left, "-----------------------------",
		       vm_cols[i].group, (int)(w > g + left ? w - g - left : 0),
		       "-----------------------------");
		i += n;
	}
	putchar('\n');
	for (size_t i = 0; i < NCOLS; i++)
		printf("%s%*s", i ? " " : "", COLW, vm_cols[i].head);
	putchar('\n');
}

/* A rate as vmstat prints it, one decimal below 100 (so 0.3/s shows). */
static void fmt_rate(char *buf, size_t len, double rate)
{
	snprintf(buf, len, rate == 0 ? "0" : rate < 99.95 ? "%.1f" : "%.0f", rate);
}

double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* The line, or with --json one object on one line (newline-delimited JSON). */
static int vm_line(const struct mi_cli *c, struct stall_opts *s, const struct mi_table *t,
		   double dt, const struct timespec *wall)
{
	char ts[32], num[32];
	struct tm tm;

	if (c->json) {
		gmtime_r(&wall->tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("{\"time\": \"%s\", \"interval_s\": %.6f", ts, dt);
	} else if (s->lines++ % page_lines() == 0) {
		vm_header();
	}
	for (size_t i = 0; i < NCOLS; i++) {
		const struct vm_col *col = &vm_cols[i];
		long r = vm_record(t, col);
		long long v, d;
		bool rate = !strcmp(col->section, "vmstat");
		bool have = r >= 0 && !mi_parse_s64(mi_value(t, (size_t)r, 3), &v) &&
			    (!rate || !mi_parse_s64(mi_value(t, (size_t)r, 4), &d));

		if (!have)
			snprintf(num, sizeof(num), c->json ? "null" : "-");
		else if (!rate)
			snprintf(num, sizeof(num), "%.2f", (double)v / 100);
		else if (c->json)
			snprintf(num, sizeof(num), "%.3f", (double)d / dt);
		else
			fmt_rate(num, sizeof(num), (double)d / dt);
		if (!c->json) {
			printf("%s%*s", i ? " " : "", COLW, num);
		} else if (rate && have) {
			printf(", \"%s\": {\"rate\": %s, \"delta\": %lld, \"value\": %lld}", col->name,
			       num, d, v);
		} else {
			printf(", \"%s\": %s", col->name, num);
		}
	}
	printf(c->json ? "}\n" : "\n");
	return ST_OK;
}

/*
 * The file stays open from the first round on: each read's delta is the
 * change since the previous read of this open file (docs/pressure.md), so
 * every line is exactly one interval. The first round opens it, waits one
 * interval and reads: the first line is the first interval, not the time
 * since boot as vmstat's.
 */
static int pressure_watch(const struct mi_cli *c, struct stall_opts *s)
{
	struct timespec now, wall, wait = { .tv_sec = c->watch };
	struct mi_table *t;
	struct mi_error e;
	size_t len = strlen(c->acc.dir) + sizeof("/pressure");
	char *path = malloc(len);
	int st = ST_OK;

	if (!path) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	snprintf(path, len, "%s/pressure", c->acc.dir);
	if (!s->open) {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			e.sys_errno = errno;
			snprintf(e.msg, sizeof(e.msg), "%s: %s", path, strerror(errno));
			free(path);
			return mi_open_failed(&c->acc, &e);
		}
		clock_gettime(CLOCK_MONOTONIC, &s->last);
		s->open = true;
		/* a signal (SIGINT) ends the wait: no line then */
		if (nanosleep(&wait, NULL)) {
			free(path);
			return ST_OK;
		}
	}
	if (lseek(s->fd, 0, SEEK_SET) < 0) {
		e.sys_errno = errno;
		snprintf(e.msg, sizeof(e.msg), "%s: %s", path, strerror(errno));
		t = NULL;
	} else {
		t = mi_table_read_fd(s->fd, path, &e);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &wall);
	if (!t) {
		/* the module went away: open it anew next round (a new first interval) */
		close(s->fd);
		s->open = false;
		st = mi_open_failed(&c->acc, &e);
	} else {
		st = view_require(t, pressure_fields);
		if (!st)
			st = vm_line(c, s, t, elapsed(&s->last, &now), &wall);
		s->last = now;
		mi_table_free(t);
	}
	free(path);
	return st;
}

int cmd_pressure_lines(const struct mi_cli *c, struct cmd_opts *o)
{
	return pressure_watch(c, &o->stall);
}
