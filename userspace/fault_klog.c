// SPDX-License-Identifier: GPL-2.0
/*
 * fault sweep's kernel log and taint checks (docs/fault-sweep.md): each
 * run's /dev/kmsg records sorted into splats and the kernel's own reports
 * of the failure the run injected, and the taint bits the run set.
 */
#include "fault_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * patterns.h, made by the Makefile from scripts/ (no copy to drift):
 * splat_patterns[], scripts/splat-patterns: a kernel log line matching one
 * of them is a splat; report_patterns[], scripts/alloc-failure-reports: the
 * headers of the kernel's own reports of a failed allocation;
 * dump_header_patterns[], scripts/stack-dump-header: the line a stack dump
 * starts with. A sweep injects failures in every run, and the kernel
 * answers some of them with a stack dump of its own ("Call Trace:"): after
 * such a header within REPORT_NEAR records, or after a dump header printed
 * by one of the run's tasks with no splat header (any other pattern)
 * within SPLAT_NEAR records, it is the kernel's report, not a splat
 * (scripts/splat-scan does the same inside a test's expect window).
 * TAINT_EXPECTED, scripts/taint-expected: the taint bits loading an
 * out-of-tree module sets (O, E, N), never a new taint.
 */
#include "patterns.h"

#define NPATTERNS (sizeof(splat_patterns) / sizeof(splat_patterns[0]))
#define NREPORTS (sizeof(report_patterns) / sizeof(report_patterns[0]))
#define NDUMPHDR (sizeof(dump_header_patterns) / sizeof(dump_header_patterns[0]))
/* a report's or a dump's header to its "Call Trace:" (CPU, Hardware name, Tainted, ...) */
#define REPORT_NEAR 20
/*
 * a splat's header to its "Call Trace:": an Oops prints #PF lines, the
 * modules, the registers and the code bytes in between
 */
#define SPLAT_NEAR 40
/* a report's name, as kept: its first line */
#define KLOG_NAME 200

struct klog {
	int fd;			/* /dev/kmsg, non-blocking; -1: unavailable */
	regex_t re[NPATTERNS];
	regex_t report[NREPORTS];
	regex_t dump[NDUMPHDR];
	unsigned int since_report;	/* records since a report header */
	unsigned int since_splat;	/* records since a splat header */
	unsigned int since_dump;	/* records since a stack dump's header */
	long dump_pid;			/* the task that printed that dump */
	char prev[KLOG_NAME];		/* the record before this one */
	char report_name[KLOG_NAME];	/* the report header's line */
	char dump_name[KLOG_NAME];	/* the record before the dump's header */
	bool own_scan;			/* kmemleak's line after the sweep's own scan is no splat */
	char buf[8192];
	unsigned long tainted;
	char tainted_path[PATH_MAX];
};

/* No header seen: the next "Call Trace:" needs one of its own. */
static void klog_forget(struct klog *k)
{
	k->since_report = UINT_MAX;
	k->since_splat = UINT_MAX;
	k->since_dump = UINT_MAX;
	k->prev[0] = '\0';
}

static bool read_tainted(struct klog *k, unsigned long *v)
{
	FILE *fp = fopen(k->tainted_path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "%lu", v) == 1;
	fclose(fp);
	return ok;
}

static void free_all(regex_t *re, size_t n)
{
	while (n--)
		regfree(&re[n]);
}

static bool compile_all(regex_t *re, const char *const *pats, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (regcomp(&re[i], pats[i], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "meminspect: bad kernel log pattern '%s'\n", pats[i]);
			free_all(re, i);
			return false;
		}
	}
	return true;
}

int klog_open(struct klog **kp)
{
	const char *kmsg = getenv("MEMINSPECT_KMSG"), *proc = getenv("MEMINSPECT_PROC");
	struct klog *k = calloc(1, sizeof(*k));

	*kp = NULL;
	if (!k) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	if (!compile_all(k->re, splat_patterns, NPATTERNS)) {
		free(k);
		return ST_FORMAT;
	}
	if (!compile_all(k->report, report_patterns, NREPORTS)) {
		free_all(k->re, NPATTERNS);
		free(k);
		return ST_FORMAT;
	}
	if (!compile_all(k->dump, dump_header_patterns, NDUMPHDR)) {
		free_all(k->re, NPATTERNS);
		free_all(k->report, NREPORTS);
		free(k);
		return ST_FORMAT;
	}
	klog_forget(k);
	snprintf(k->tainted_path, sizeof(k->tainted_path), "%s/sys/kernel/tainted",
		 proc && *proc ? proc : "/proc");
	kmsg = kmsg && *kmsg ? kmsg : "/dev/kmsg";
	k->fd = open(kmsg, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0 || lseek(k->fd, 0, SEEK_END) < 0) {
		fprintf(stderr, "meminspect: fault sweep: warning: cannot read the kernel log %s (%s): only taint is checked\n",
			kmsg, strerror(errno));
		if (k->fd >= 0)
			close(k->fd);
		k->fd = -1;
	}
	if (!read_tainted(k, &k->tainted)) {
		fprintf(stderr, "meminspect: fault sweep: warning: cannot read %s: taint is not checked\n",
			k->tainted_path);
		k->tainted = ULONG_MAX;
	}
	*kp = k;
	return ST_OK;
}

void klog_close(struct klog *k)
{
	if (!k)
		return;
	free_all(k->re, NPATTERNS);
	free_all(k->report, NREPORTS);
	free_all(k->dump, NDUMPHDR);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
}

void klog_own_scan(struct klog *k, bool on)
{
	k->own_scan = on;
}

unsigned long klog_new_taint(struct klog *k)
{
	unsigned long taint, bits = 0;

	if (k->tainted != ULONG_MAX && read_tainted(k, &taint)) {
		bits = taint & ~k->tainted & ~TAINT_EXPECTED;
		k->tainted = taint;
	}
	return bits;
}

/* Keep @line in @kept (the first SPLAT_KEEP), as one line of printable text; count it. */
static void keep_line(char **kept, unsigned int *n, const char *line)
{
	char *p;

	if (*n < SPLAT_KEEP) {
		kept[*n] = strdup(line);
		/* a note is one line of printable text */
		for (p = kept[*n]; p && *p; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f)
				*p = '?';
	}
	(*n)++;
}

static bool match_any(regex_t *re, size_t n, const char *line)
{
	for (size_t i = 0; i < n; i++)
		if (!regexec(&re[i], line, 0, NULL, 0))
			return true;
	return false;
}

/*
 * A "Call Trace:" with no splat header within SPLAT_NEAR records: whose
 * report is it? One of the kernel's allocation-failure reports (its header
 * within REPORT_NEAR records: expected wherever failures are injected), or
 * the report of the failure this run injected (a dump header within
 * REPORT_NEAR records, printed by one of the run's tasks, in a run that
 * failed something: sysctl's "could not get directory", say). Its name,
 * or NULL: a splat.
 */
static const char *report_of(const struct klog *k, const struct run_result *res)
{
	if (k->since_splat <= SPLAT_NEAR)
		return NULL;
	if (k->since_report <= REPORT_NEAR)
		return k->report_name;
	if (k->since_dump <= REPORT_NEAR && res->failed > 0 &&
	    pid_in(k->dump_pid, res->pid_first, res->pid_last))
		return k->dump_name[0] ? k->dump_name : "a stack dump";
	return NULL;
}

/* One log line (a /dev/kmsg record's text after "prio,seq,ts,flags;"). */
static void klog_line(struct klog *k, char *line, struct run_result *res)
{
	char *semi = strchr(line, ';');
	const char *pid, *name;

	if (*line == ' ')	/* a record's KEY=value continuation */
		return;
	if (semi && strspn(line, "0123456789,-abcdefghijklmnopqrstuvwxyzACDNP=") ==
	    (size_t)(semi - line))
		line = semi + 1;
	if (k->since_report < UINT_MAX)
		k->since_report++;
	if (k->since_splat < UINT_MAX)
		k->since_splat++;
	if (k->since_dump < UINT_MAX)
		k->since_dump++;
	if (match_any(k->report, NREPORTS, line)) {
		k->since_report = 0;
		snprintf(k->report_name, sizeof(k->report_name), "%s", line);
		goto out;
	}
	if (match_any(k->dump, NDUMPHDR, line)) {
		/* the record before it is what the kernel is reporting */
		k->since_dump = 0;
		pid = strstr(line, "PID: ");
		k->dump_pid = pid ? strtol(pid + 5, NULL, 10) : -1;
		snprintf(k->dump_name, sizeof(k->dump_name), "%s", k->prev);
		goto out;
	}
	for (size_t i = 0; i < NPATTERNS; i++) {
		if (regexec(&k->re[i], line, 0, NULL, 0))
			continue;
		if (!strcmp(splat_patterns[i], "Call Trace:")) {
			name = report_of(k, res);
			if (name) {
				keep_line(res->report, &res->nreport, name);
				/* one dump, one report: the next needs a header of its own */
				k->since_report = UINT_MAX;
				k->since_dump = UINT_MAX;
				break;
			}
		} else {
			k->since_splat = 0;
		}
		if (k->own_scan && !strcmp(splat_patterns[i], "kmemleak:.*new suspected"))
			break;		/* counted as the run's leaks instead */
		keep_line(res->splat, &res->nsplat, line);
		break;
	}
out:
	snprintf(k->prev, sizeof(k->prev), "%s", line);
}

void klog_read(struct klog *k, struct run_result *res)
{
	size_t have = 0;

	if (k->fd < 0)
		return;
	/* what came before a run is not its own: no header carries over */
	if (!res)
		klog_forget(k);
	for (;;) {
		ssize_t n = read(k->fd, k->buf + have, sizeof(k->buf) - 1 - have);
		char *line, *nl;

		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records overwritten meanwhile */
		if (n <= 0)
			break;
		have += (size_t)n;
		k->buf[have] = '\0';
		line = k->buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (res)
				klog_line(k, line, res);
			line = nl + 1;
		}
		/* a record is one read on /dev/kmsg; a plain file may cut a line */
		have = strlen(line);
		memmove(k->buf, line, have);
		if (have == sizeof(k->buf) - 1)
			have = 0;
	}
}
