// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect latency: latency/histograms drawn as bpftrace draws hist(),
 * then latency/page_alloc's allocations by order; under --watch each
 * round's difference from the previous one.
 */
#include "access.h"
#include "cli.h"
#include "hist.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * latency/armed: 1, 0, or -1 when it cannot be read; @path the file read
 * (under lockdown, the /dev/meminspect copy: the one to write to).
 */
static int read_armed(const struct mi_access *a, char *path, size_t len)
{
	char buf[8] = "";
	int fd = mi_open(a, "latency/armed", O_RDONLY, path, len);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && (buf[0] == '0' || buf[0] == '1') && (buf[1] == '\n' || !buf[1]))
		return buf[0] - '0';
	return -1;
}

static void json_u64(struct json *j, const char *key, unsigned long long v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", v);
	if (key)
		json_key(j, key);
	json_value(j, num);
}

static void json_hist(struct json *j, const struct mi_hist *h)
{
	json_begin_object(j);
	json_key(j, "kind");
	json_string(j, h->kind);
	json_u64(j, "events", h->events);
	json_u64(j, "sum_ns", h->sum_ns);
	json_key(j, "mean_ns");
	if (h->events)
		json_u64(j, NULL, h->sum_ns / h->events);
	else
		json_null(j);
	json_u64(j, "unpaired", h->unpaired);
	json_key(j, "buckets");
	json_begin_array(j);
	for (size_t i = 0; i < h->nb; i++) {
		json_begin_object(j);
		json_u64(j, "lo_ns", hist_lo_ns(i));
		json_key(j, "hi_ns");
		if (hist_hi_ns(h, i))
			json_u64(j, NULL, hist_hi_ns(h, i));
		else
			json_null(j);
		json_u64(j, "count", h->b[i]);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

/* a count of record r (page_alloc, stallers); 0 if absent (view_load checked it) */
static unsigned long long table_count(const struct mi_table *t, size_t r, const char *field)
{
	unsigned long long v = 0;
	const char *s = mi_get(t, r, field);

	if (s)
		mi_parse_u64(s, &v);
	return v;
}

/*
 * latency/page_alloc, where the module has it (before it, only the
 * histograms): the orders with any allocation, or the round's difference
 * from the previous one; *reset when a count went down (re-armed).
 */
static void page_alloc_show(const struct mi_cli *c, struct stall_opts *s, struct json *j,
			    const struct mi_table *t, bool *reset)
{
	static const char *const cols[] = { "fast", "slow", "failed" };
	bool any = false;

	if (c->json) {
		json_key(j, "page_alloc");
		if (!t) {
			json_null(j);
			return;
		}
		json_begin_array(j);
	}
	for (size_t r = 0; t && r < mi_nrecords(t); r++) {
		const char *order = mi_get(t, r, "order");
		long p = s->prev_pa ? mi_find(s->prev_pa, "order", order) : -1;
		unsigned long long v[3];

		for (size_t i = 0; i < 3; i++) {
			unsigned long long old = p >= 0 ? table_count(s->prev_pa, (size_t)p, cols[i]) : 0;

			v[i] = table_count(t, r, cols[i]);
			if (old > v[i])
				*reset = true;
			else
				v[i] -= old;
		}
		if (c->json) {
			json_begin_object(j);
			json_key(j, "order");
			json_value(j, order);
			for (size_t i = 0; i < 3; i++)
				json_u64(j, cols[i], v[i]);
			json_end_object(j);
			continue;
		}
		if (!v[0] && !v[1] && !v[2])
			continue;
		if (!any)
			printf("page allocations (latency/page_alloc):\n%5s %14s %12s %10s\n", "order",
			       "fast", "slow", "failed");
		any = true;
		printf("%5s %14llu %12llu %10llu\n", order, v[0], v[1], v[2]);
	}
	if (c->json)
		json_end_array(j);
	else if (any)
		putchar('\n');
}

/* latency/FILE if this module has it (page_alloc, stallers); NULL without it */
static struct mi_table *latency_load(const struct mi_cli *c, const char *file, int *st)
{
	size_t len = strlen(c->acc.dir) + strlen(file) + 2;
	struct mi_table *t = NULL;
	char *path = malloc(len);

	*st = ST_OK;
	if (!path)
		return NULL;
	snprintf(path, len, "%s/%s", c->acc.dir, file);
	if (!access(path, F_OK))
		*st = view_load(c, file, &t);
	free(path);
	return t;
}

#define STALLERS_SHOWN 10	/* in text; --json has them all */

/*
 * latency/stallers as the module sorts it (longest total first): the tasks
 * that stalled longest since arming, with their mean stall.  Not a round's
 * difference under --watch: a task's row may be new, or gone with a re-arm.
 */
static void stallers_show(const struct mi_cli *c, struct json *j, const struct mi_table *t)
{
	unsigned long long over_ev = 0, over_ns = 0;
	char total[16], mean[16];
	size_t n = t ? mi_nrecords(t) : 0;

	/* "overflow: events N stall_ns NS table 64": stalls in no row */
	for (size_t i = 0; t && i < mi_nnotes(t); i++)
		sscanf(mi_note(t, i), "overflow: events %llu stall_ns %llu", &over_ev, &over_ns);
	if (c->json) {
		json_key(j, "stallers");
		if (t)
			view_json_shape(j, t, "latency/stallers");
		else
			json_null(j);
		json_key(j, "stallers_overflow");
		if (t) {
			json_begin_object(j);
			json_u64(j, "events", over_ev);
			json_u64(j, "stall_ns", over_ns);
			json_end_object(j);
		} else {
			json_null(j);
		}
		return;
	}
	if (!n)
		return;
	printf("tasks that stalled longest since arming (latency/stallers):\n"
	       "%8s %10s %8s %9s %9s  %s\n", "pid", "cgroup_id", "stalls", "total", "mean", "comm");
	for (size_t r = 0; r < n && r < STALLERS_SHOWN; r++) {
		unsigned long long ev = table_count(t, r, "events"), ns = table_count(t, r, "stall_ns");

		hist_fmt_ns(total, sizeof(total), (double)ns);
		hist_fmt_ns(mean, sizeof(mean), ev ? (double)ns / (double)ev : 0);
		printf("%8s %10s %8llu %9s %9s  %s\n", mi_get(t, r, "pid"), mi_get(t, r, "cgroup_id"),
		       ev, total, mean, mi_get(t, r, "comm"));
	}
	if (n > STALLERS_SHOWN)
		printf("(%zu more: --json, or cat latency/stallers)\n", n - STALLERS_SHOWN);
	if (over_ev) {
		hist_fmt_ns(total, sizeof(total), (double)over_ns);
		printf("(%llu stalls, %s, of tasks that found the table full: in no row)\n",
		       over_ev, total);
	}
	putchar('\n');
}

/*
 * Every kind's histogram; under --watch from the second round on, the
 * difference from the previous round (a re-arming in between zeroes the
 * counts: that round shows the counts since the arming, and says so).
 */
int cmd_latency(const struct mi_cli *c, struct cmd_opts *o)
{
	struct stall_opts *s = &o->stall;
	struct mi_table *t, *pa, *stl;
	struct timespec now;
	struct json j;
	const char *since = "since arming";
	char what[64], armed_path[4096];
	bool reset = false;
	int armed, st = view_load(c, "latency/histograms", &t);

	if (st)
		return st;	/* the view checked the fields and every bucket list */
	pa = latency_load(c, "latency/page_alloc", &st);
	stl = st ? NULL : latency_load(c, "latency/stallers", &st);
	if (st) {
		mi_table_free(pa);
		mi_table_free(t);
		return st;
	}
	armed = read_armed(&c->acc, armed_path, sizeof(armed_path));
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (s->prev) {
		snprintf(what, sizeof(what), "last %.1f s", elapsed(&s->last, &now));
		since = what;
	}
	if (c->json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "armed");
		if (armed < 0)
			json_null(&j);
		else
			json_value(&j, armed ? "1" : "0");	/* the knob's value */
		json_key(&j, "interval_ms");
		if (s->prev) {
			char num[32];

			snprintf(num, sizeof(num), "%lld",
				 (long long)(elapsed(&s->last, &now) * 1000 + 0.5));
			json_value(&j, num);
		} else {
			json_null(&j);
		}
		json_key(&j, "kinds");
		json_begin_array(&j);
	} else if (armed == 0) {
		printf("# disarmed: nothing is measured; echo 1 > %s (docs/latency.md)\n",
		       armed_path);
	}
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		struct mi_hist cur, old, shown;
		long p = s->prev ? mi_find(s->prev, "kind", mi_get(t, r, "kind")) : -1;

		hist_parse(t, r, &cur);	/* view_load checked it */
		shown = cur;
		if (p >= 0 && hist_parse(s->prev, (size_t)p, &old) && !hist_sub(&shown, &cur, &old)) {
			shown = cur;
			reset = true;
		}
		if (c->json) {
			json_hist(&j, &shown);
		} else {
			if (r == 0)
				printf("# %s\n", since);
			/* the page allocator's slow path: only the orders that took it */
			if (strncmp(shown.kind, "page_alloc_slow_order_", 22) || shown.events ||
			    shown.unpaired)
				hist_print(&shown);
		}
	}
	if (c->json)
		json_end_array(&j);
	page_alloc_show(c, s, &j, pa, &reset);
	stallers_show(c, &j, stl);
	if (c->json) {
		json_key(&j, "reset");
		json_value(&j, reset ? "1" : "0");
		json_end_object(&j);
		json_finish(&j);
	} else if (reset) {
		printf("# re-armed since the previous round: these are the counts since the arming\n");
	}
	view_notes_to_stderr(t, "latency/histograms");
	view_keep_round(c, &s->prev, t);
	view_keep_round(c, &s->prev_pa, pa);
	mi_table_free(stl);
	s->last = now;
	return ST_OK;
}
