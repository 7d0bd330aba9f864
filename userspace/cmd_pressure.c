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
#include "psi_file.h"
#include "status.h"
#include "views.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
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

/* --cgroup's columns, after the module's: its avg10, its interval's share */
static const char *const cg_groups[] = { "cg_avg10", "cg_stall" };
#define CG_NCOLS 4

static void group_head(const char *group, size_t n, bool first)
{
	size_t w = n * (COLW + 1) - 1, g = strlen(group);
	size_t left = g < w ? (w - g) / 2 : 0;

	printf("%s%.*s%s%.*s", first ? "" : " ", (int)left, "-----------------------------",
	       group, (int)(w > g + left ? w - g - left : 0), "-----------------------------");
}

static void vm_header(const struct stall_opts *s)
{
	for (size_t i = 0; i < NCOLS;) {
		size_t n = 1;

		while (i + n < NCOLS && !strcmp(vm_cols[i + n].group, vm_cols[i].group))
			n++;
		group_head(vm_cols[i].group, n, !i);
		i += n;
	}
	for (size_t i = 0; s->cgroup && i < CG_NCOLS / 2; i++)
		group_head(cg_groups[i], 2, false);
	putchar('\n');
	for (size_t i = 0; i < NCOLS; i++)
		printf("%s%*s", i ? " " : "", COLW, vm_cols[i].head);
	for (size_t i = 0; s->cgroup && i < CG_NCOLS; i++)
		printf(" %*s", COLW, i % 2 ? "full%" : "some%");
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

/* A stall total's change as a share of the interval: us over s, in percent */
static double stall_pct(unsigned long long delta_us, double dt)
{
	return dt > 0 ? (double)delta_us / (dt * 1e4) : 0;
}

/* JSON: a PSI total's interval, "NAME": {"stall_pct": P, "delta": D, "value": V} */
static void total_json(const char *name, unsigned long long delta, unsigned long long value,
		       double dt)
{
	printf(", \"%s\": {\"stall_pct\": %.3f, \"delta\": %llu, \"value\": %llu}", name,
	       stall_pct(delta, dt), delta, value);
}

/* JSON: the module's psi totals with their per-open delta, or null without psi records. */
static void psi_totals_json(const struct mi_table *t, double dt)
{
	static const struct vm_col tot[] = {
		{ NULL, NULL, "psi", "some_total" }, { NULL, NULL, "psi", "full_total" },
	};

	for (size_t i = 0; i < 2; i++) {
		long r = vm_record(t, &tot[i]);
		unsigned long long v, d;

		if (r >= 0 && !mi_parse_u64(mi_value(t, (size_t)r, 3), &v) &&
		    !mi_parse_u64(mi_value(t, (size_t)r, 4), &d))
			total_json(tot[i].name, d, v, dt);
		else
			printf(", \"%s\": null", tot[i].name);
	}
}

/* One round of --cgroup: its memory.pressure, read just after the module's file. */
struct cg_round {
	bool ok;
	struct mi_psi_rec r;
};

/*
 * --cgroup's columns (text) or object (JSON): avg10 as the file has it, and
 * the share of the interval from the totals' change since the previous read
 * (the open's for the first line). '-' / null where a read failed (the
 * cgroup removed meanwhile) or the file has no "full" line.
 */
static void cg_part(const struct mi_cli *c, struct stall_opts *s, const struct cg_round *cg,
		    double dt)
{
	const struct mi_psi_line *l[2] = { &cg->r.some, &cg->r.full };
	static const char *const kind[2] = { "some", "full" };
	char num[32], name[16];
	bool avg[2], tot[2];
	unsigned long long d[2];

	/* what each kind has this round: its avg10, and a total to subtract from */
	for (size_t k = 0; k < 2; k++) {
		avg[k] = cg->ok && l[k]->have;
		tot[k] = avg[k] && s->cg_prev_ok && l[k]->total >= s->cg_prev[k];
		d[k] = tot[k] ? l[k]->total - s->cg_prev[k] : 0;
	}
	if (c->json) {
		printf(", \"cgroup\": {\"path\": ");
		json_write_string(stdout, s->cg_file);
		for (size_t k = 0; k < 2; k++) {
			if (avg[k])
				printf(", \"%s_avg10\": %.2f", kind[k], (double)l[k]->avg10 / 100);
			else
				printf(", \"%s_avg10\": null", kind[k]);
		}
		for (size_t k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "%s_total", kind[k]);
			if (tot[k])
				total_json(name, d[k], l[k]->total, dt);
			else
				printf(", \"%s\": null", name);
		}
		putchar('}');
	} else {
		for (size_t k = 0; k < 2; k++) {
			if (avg[k])
				snprintf(num, sizeof(num), "%.2f", (double)l[k]->avg10 / 100);
			else
				snprintf(num, sizeof(num), "-");
			printf(" %*s", COLW, num);
		}
		for (size_t k = 0; k < 2; k++) {
			if (tot[k])
				snprintf(num, sizeof(num), "%.2f", stall_pct(d[k], dt));
			else
				snprintf(num, sizeof(num), "-");
			printf(" %*s", COLW, num);
		}
	}
	/* the next line's interval starts at this read */
	s->cg_prev_ok = cg->ok;
	s->cg_prev[0] = cg->r.some.total;
	s->cg_prev[1] = cg->r.full.total;
}

/* The line, or with --json one object on one line (newline-delimited JSON). */
static int vm_line(const struct mi_cli *c, struct stall_opts *s, const struct mi_table *t,
		   const struct cg_round *cg, double dt, const struct timespec *wall)
{
	char ts[32], num[32];
	struct tm tm;

	if (c->json) {
		gmtime_r(&wall->tv_sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		printf("{\"time\": \"%s\", \"interval_s\": %.6f", ts, dt);
	} else if (s->lines++ % page_lines() == 0) {
		vm_header(s);
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
	if (c->json)
		psi_totals_json(t, dt);
	if (s->cgroup)
		cg_part(c, s, cg, dt);
	printf(c->json ? "}\n" : "\n");
	return ST_OK;
}

/*
 * --cgroup DIR: DIR/memory.pressure, DIR absolute or under /sys/fs/cgroup.
 * Checked once, when the file is opened: an unusable DIR is a usage error
 * that says why (ST_PERM when root is needed).
 */
static int cg_resolve(struct stall_opts *s, struct cg_round *cg)
{
	const char *dir = s->cgroup;
	const char *base = dir[0] == '/' ? "" : "/sys/fs/cgroup/";
	size_t len = strlen(base) + strlen(dir) + sizeof("/memory.pressure");
	struct stat sb;
	int err;

	s->cg_file = malloc(len);
	if (!s->cg_file) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	snprintf(s->cg_file, len, "%s%s/memory.pressure", base, dir);
	err = mi_psi_read(s->cg_file, &cg->r);
	if (!err) {
		cg->ok = true;
		return ST_OK;
	}
	if (err == -EACCES || err == -EPERM) {
		fprintf(stderr, "meminspect: --cgroup: %s: %s (run as root)\n", s->cg_file,
			strerror(-err));
		return ST_PERM;
	}
	if (err == -ENOENT) {
		char *d = strdup(s->cg_file);

		if (d)
			*strrchr(d, '/') = '\0';
		if (d && stat(d, &sb))
			fprintf(stderr, "meminspect: --cgroup: no such directory %s\n", d);
		else
			fprintf(stderr,
				"meminspect: --cgroup: %s has no memory.pressure: not a cgroup v2 directory, or the kernel has no PSI (CONFIG_PSI, psi=0)\n",
				d ? d : s->cg_file);
		free(d);
		return ST_USAGE;
	}
	if (err == -EOPNOTSUPP)
		fprintf(stderr,
			"meminspect: --cgroup: %s: PSI is off for this cgroup (cgroup.pressure is 0)\n",
			s->cg_file);
	else
		fprintf(stderr, "meminspect: --cgroup: %s: %s\n", s->cg_file,
			err == -EINVAL ? "not in PSI's format" : strerror(-err));
	return ST_USAGE;
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
	struct cg_round cg = { 0 };
	struct mi_table *t;
	struct mi_error e;
	size_t len = 4096;
	char *path = malloc(len);
	int st = ST_OK;

	if (!path) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	snprintf(path, len, "%s/pressure", c->acc.dir);
	if (!s->open && s->cgroup && !s->cg_file) {
		st = cg_resolve(s, &cg);
		if (st) {
			free(path);
			return st;
		}
	}
	if (!s->open) {
		s->fd = mi_open(&c->acc, "pressure", O_RDONLY, path, len);
		if (s->fd < 0) {
			e.sys_errno = errno;
			snprintf(e.msg, sizeof(e.msg), "%s: %s", path, strerror(errno));
			free(path);
			return mi_open_failed(&c->acc, &e);
		}
		clock_gettime(CLOCK_MONOTONIC, &s->last);
		s->open = true;
		/* the first line's cgroup interval starts with the file's */
		if (s->cgroup) {
			cg.ok = !mi_psi_read(s->cg_file, &cg.r);
			s->cg_prev_ok = cg.ok;
			s->cg_prev[0] = cg.r.some.total;
			s->cg_prev[1] = cg.r.full.total;
		}
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
	if (s->cgroup)
		cg.ok = !mi_psi_read(s->cg_file, &cg.r);
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
			st = vm_line(c, s, t, &cg, elapsed(&s->last, &now), &wall);
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
