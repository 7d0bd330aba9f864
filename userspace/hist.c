// SPDX-License-Identifier: GPL-2.0
/*
 * latency/histograms: the record as a histogram, drawn as bpftrace draws
 * hist(), and exported as a Prometheus histogram.
 */
#include "hist.h"
#include "export.h"
#include "parse.h"
#include "status.h"
#include "views.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

unsigned long long hist_lo_ns(size_t i)
{
	return i ? 1ULL << i : 0;
}

unsigned long long hist_hi_ns(const struct mi_hist *h, size_t i)
{
	return i + 1 < h->nb ? 1ULL << (i + 1) : 0;
}

/* "n,n,...,n" into h->b; false unless 1 to MI_HIST_MAX_BUCKETS integers */
static bool parse_buckets(const char *v, struct mi_hist *h)
{
	char num[24];

	h->nb = 0;
	for (const char *p = v;;) {
		size_t n = strcspn(p, ",");

		if (h->nb == MI_HIST_MAX_BUCKETS || n == 0 || n >= sizeof(num))
			return false;
		memcpy(num, p, n);
		num[n] = '\0';
		if (mi_parse_u64(num, &h->b[h->nb++]))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

static bool get_u64(const struct mi_table *t, size_t rec, const char *field,
		    unsigned long long *v)
{
	const char *s = mi_get(t, rec, field);

	if (s && !mi_parse_u64(s, v))
		return true;
	view_format_error(t, rec, field[0] == 'b' ? "bad bucket list" : "value is not a count",
			  s ? s : "(none)");
	return false;
}

bool hist_parse(const struct mi_table *t, size_t rec, struct mi_hist *h)
{
	const char *b = mi_get(t, rec, "buckets");

	h->kind = mi_get(t, rec, "kind");
	if (!get_u64(t, rec, "events", &h->events) || !get_u64(t, rec, "sum_ns", &h->sum_ns) ||
	    !get_u64(t, rec, "unpaired", &h->unpaired))
		return false;
	if (!b || !parse_buckets(b, h)) {
		view_format_error(t, rec, "bad bucket list", b ? b : "(none)");
		return false;
	}
	return true;
}

int check_latency(const struct mi_table *t)
{
	struct mi_hist h;

	for (size_t r = 0; r < mi_nrecords(t); r++) {
		if (!hist_parse(t, r, &h))
			return ST_FORMAT;
		/* a JSON key and a label: a duplicate would be one series twice */
		if ((size_t)mi_find(t, "kind", h.kind) != r)
			return view_format_error(t, r, "duplicate kind", h.kind);
	}
	return ST_OK;
}

/*
 * Every field of @counts (NULL-terminated) a count, and one record per
 * value of the first (a JSON element and a label each: a duplicate would
 * be one series twice).
 */
static int check_counts(const struct mi_table *t, const char *const *counts)
{
	unsigned long long v;

	for (size_t r = 0; r < mi_nrecords(t); r++) {
		for (const char *const *f = counts; *f; f++)
			if (!get_u64(t, r, *f, &v))
				return ST_FORMAT;
		if ((size_t)mi_find(t, counts[0], mi_get(t, r, counts[0])) != r)
			return view_format_error(t, r, "duplicate key", mi_get(t, r, counts[0]));
	}
	return ST_OK;
}

int check_stallers(const struct mi_table *t)
{
	static const char *const counts[] = { "pid", "cgroup_id", "events", "stall_ns", NULL };

	return check_counts(t, counts);
}

int check_page_alloc(const struct mi_table *t)
{
	static const char *const counts[] = { "order", "fast", "slow", "failed", NULL };

	return check_counts(t, counts);
}

bool hist_sub(struct mi_hist *out, const struct mi_hist *cur, const struct mi_hist *prev)
{
	if (cur->nb != prev->nb || cur->events < prev->events || cur->sum_ns < prev->sum_ns ||
	    cur->unpaired < prev->unpaired)
		return false;
	*out = *cur;
	out->events -= prev->events;
	out->sum_ns -= prev->sum_ns;
	out->unpaired -= prev->unpaired;
	for (size_t i = 0; i < cur->nb; i++) {
		if (cur->b[i] < prev->b[i])
			return false;
		out->b[i] -= prev->b[i];
	}
	return true;
}

void hist_fmt_ns(char *buf, size_t len, double ns)
{
	static const struct { double div; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
	};
	size_t u = 0;

	while (u < sizeof(units) / sizeof(units[0]) && ns < units[u].div)
		u++;
	if (u == sizeof(units) / sizeof(units[0])) {
		snprintf(buf, len, "%.0fns", ns);
		return;
	}
	ns /= units[u].div;
	/* 3 significant digits; rounding may reach the next decade (999.5us) */
	snprintf(buf, len, ns < 9.995 ? "%.2f%s" : ns < 99.95 ? "%.1f%s" : "%.0f%s", ns,
		 units[u].unit);
}

#define BAR_WIDTH 52	/* bpftrace's */

void hist_print(const struct mi_hist *h)
{
	unsigned long long max = 0;
	char lo[16], hi[16], label[40], sum[16], mean[16];
	size_t first = h->nb, last = 0;

	for (size_t i = 0; i < h->nb; i++) {
		if (!h->b[i])
			continue;
		if (first == h->nb)
			first = i;
		last = i;
		if (h->b[i] > max)
			max = h->b[i];
	}
	printf("@%s: events %llu", h->kind, h->events);
	if (h->events) {
		hist_fmt_ns(sum, sizeof(sum), (double)h->sum_ns);
		hist_fmt_ns(mean, sizeof(mean), (double)h->sum_ns / (double)h->events);
		printf(", sum %s, mean %s", sum, mean);
	}
	printf(", unpaired %llu\n", h->unpaired);
	for (size_t i = first; max && i <= last; i++) {
		int bar = (int)((double)h->b[i] / (double)max * BAR_WIDTH);

		hist_fmt_ns(lo, sizeof(lo), (double)hist_lo_ns(i));
		if (hist_hi_ns(h, i)) {
			hist_fmt_ns(hi, sizeof(hi), (double)hist_hi_ns(h, i));
			snprintf(label, sizeof(label), "[%s, %s)", lo, hi);
		} else {
			snprintf(label, sizeof(label), "[%s, ...)", lo);
		}
		printf("%-16s %8llu |%.*s%*s|\n", label, h->b[i], bar,
		       "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", BAR_WIDTH - bar, "");
	}
	putchar('\n');
}

/*
 * One Prometheus histogram per kind: le is each bucket's upper bound in
 * seconds (2^(i+1) ns), the last bucket only in +Inf. _count is the +Inf
 * bucket, the sum of the buckets (the file's events is summed apart from
 * them, without a lock: it may differ by a stall that ended during the
 * read, and Prometheus requires the two to be equal).
 */
int prom_export_histograms(struct prom_out *o, const char *file, const struct mi_table *t)
{
	static const char bucket[] = "meminspect_latency_seconds_bucket";
	static const char sum[] = "meminspect_latency_seconds_sum";
	static const char count[] = "meminspect_latency_seconds_count";
	static const char unpaired[] = "meminspect_latency_unpaired_total";
	char le[32], val[32], help[200];
	struct mi_hist h;
	int ret;

	snprintf(help, sizeof(help),
		 "%s: stalls by kind, buckets of 2^i ns (docs/latency.md); restarts at each arming",
		 file);
	ret = prom_family(o, "meminspect_latency_seconds", "histogram", help);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	/* one family, three sample names: HELP and TYPE name the family */
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		unsigned long long cum = 0;
		const char *lab[] = { "kind", NULL, "le", le, NULL };

		if (!hist_parse(t, r, &h))
			return -EINVAL;
		lab[1] = h.kind;
		for (size_t i = 0; i < h.nb; i++) {
			cum += h.b[i];
			if (!hist_hi_ns(&h, i))
				break;
			snprintf(le, sizeof(le), "%.12g", (double)hist_hi_ns(&h, i) / 1e9);
			snprintf(val, sizeof(val), "%llu", cum);
			prom_sample(o, bucket, lab, val);
		}
		snprintf(le, sizeof(le), "+Inf");
		snprintf(val, sizeof(val), "%llu", cum);
		prom_sample(o, bucket, lab, val);
		lab[2] = NULL;
		snprintf(val, sizeof(val), "%.9f", (double)h.sum_ns / 1e9);
		prom_sample(o, sum, lab, val);
		snprintf(val, sizeof(val), "%llu", cum);
		prom_sample(o, count, lab, val);
	}
	snprintf(help, sizeof(help),
		 "%s: begins or ends of a stall that could not be paired (not in the histogram)",
		 file);
	ret = prom_family(o, unpaired, "counter", help);
	if (ret)
		return ret == -ENOMEM ? ret : -EINVAL;
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *lab[] = { "kind", NULL, NULL };

		if (!hist_parse(t, r, &h))
			return -EINVAL;
		lab[1] = h.kind;
		snprintf(val, sizeof(val), "%llu", h.unpaired);
		prom_sample(o, unpaired, lab, val);
	}
	return 0;
}
