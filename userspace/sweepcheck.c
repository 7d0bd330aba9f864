// SPDX-License-Identifier: GPL-2.0
/*
 * fault sweep's checks after each run: module state, the module's loads
 * (tracefs) and kmemleak (sweepcheck.h).
 */
/* syscall(): delete_module has no libc wrapper */
#define _DEFAULT_SOURCE
#include "sweepcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const char *prefix(const char *var, const char *def)
{
	const char *p = getenv(var);

	return p && *p ? p : def;
}

/* @name with every '-' as '_', as the kernel keeps module names */
static void normalise(const char *name, char *out, size_t len)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < len; i++)
		out[i] = name[i] == '-' ? '_' : name[i];
	out[i] = '\0';
}

/* /proc/modules' state column for @name ("" if not listed) */
static void proc_state(const char *name, char *state, size_t len)
{
	char path[PATH_MAX], line[512], n[64], st[32];
	FILE *fp;

	*state = '\0';
	snprintf(path, sizeof(path), "%s/modules", prefix("MEMINSPECT_PROC", "/proc"));
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		/* name size refcount deps state address */
		if (sscanf(line, "%63s %*s %*s %*s %31s", n, st) == 2 && !strcmp(n, name)) {
			snprintf(state, len, "%s", st);
			break;
		}
	}
	fclose(fp);
}

/* /sys/module/NAME/initstate ("" if absent: built in, or gone) */
static void init_state(const char *name, char *state, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;

	*state = '\0';
	snprintf(path, sizeof(path), "%s/module/%s/initstate", prefix("MEMINSPECT_SYS", "/sys"),
		 name);
	fp = fopen(path, "r");
	if (!fp)
		return;
	if (fgets(state, (int)len, fp))
		state[strcspn(state, "\n")] = '\0';
	fclose(fp);
}

enum mod_state mod_state(const char *name, char *why, size_t len)
{
	char n[64], ps[32], is[32];
	int tries;

	normalise(name, n, sizeof(n));
	for (tries = 0;; tries++) {
		proc_state(n, ps, sizeof(ps));
		init_state(n, is, sizeof(is));
		if (!*ps && !*is)
			return MOD_GONE;
		if (!strcmp(ps, "Live") && (!*is || !strcmp(is, "live")))
			return MOD_LIVE;
		if (tries == 10)
			break;
		sleep_s(0.1);	/* a module going after its command ended: settle */
	}
	if (*ps && strcmp(ps, "Live"))
		snprintf(why, len, "/proc/modules: %s", ps);
	else if (!*ps)
		snprintf(why, len, "not in /proc/modules, initstate: %s", is);
	else
		snprintf(why, len, "initstate: %s", is);
	return MOD_HALF;
}

int mod_unload(const char *name)
{
	char n[64];

	normalise(name, n, sizeof(n));
	if (syscall(SYS_delete_module, n, O_NONBLOCK))
		return errno;
	return 0;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

/* The events of the module's life a sweep counts (include/trace/events/module.h). */
static const char *const load_events[] = { "module_load", "module_free" };

static int load_events_set(const struct load_trace *t, const char *val)
{
	char path[4200];
	int err;

	for (size_t i = 0; i < sizeof(load_events) / sizeof(load_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/module/%s/enable", t->dir, load_events[i]);
		err = write_str(path, val);
		if (err)
			return err;
	}
	return 0;
}

bool load_trace_open(struct load_trace *t, const char *debugfs_dir, char *why, size_t len)
{
	const char *env = getenv("MEMINSPECT_TRACE_INSTANCE");
	char root[4000], path[4200], *slash;
	int err;

	memset(t, 0, sizeof(*t));
	if (env && *env) {
		snprintf(t->dir, sizeof(t->dir), "%s", env);
	} else {
		/* tracefs where it is mounted, else debugfs' automount of it */
		snprintf(root, sizeof(root), "/sys/kernel/tracing");
		if (access("/sys/kernel/tracing/instances", F_OK)) {
			snprintf(root, sizeof(root) - 8, "%s", debugfs_dir);
			slash = strrchr(root, '/');
			strcpy(slash ? slash : root + strlen(root), "/tracing");
		}
		/* a name of its own: two sweeps at once each count their own loads */
		snprintf(t->dir, sizeof(t->dir), "%s/instances/meminspect-sweep-%ld", root,
			 (long)getpid());
		if (mkdir(t->dir, 0700)) {
			snprintf(why, len, "cannot make the tracefs instance %s: %s", t->dir,
				 strerror(errno));
			t->dir[0] = '\0';
			return false;
		}
		t->made = true;
		/* a few events a run: a small ring buffer will do (best effort) */
		snprintf(path, sizeof(path), "%s/buffer_size_kb", t->dir);
		write_str(path, "64");
	}
	err = load_events_set(t, "1");
	if (err) {
		snprintf(why, len, "cannot enable the module_load and module_free events in %s: %s",
			 t->dir, strerror(err));
		load_trace_close(t);
		return false;
	}
	return true;
}

void load_trace_clear(const struct load_trace *t)
{
	char path[4200];
	int fd;

	if (!t->dir[0])
		return;
	/* writing the trace file empty clears the instance's ring buffer */
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
}

/* Is @line the event @ev of module @name?  "  insmod-9 [000] ..... 1.2: module_load: dummy (E)" */
static bool load_event_is(const char *line, const char *ev, const char *name)
{
	char key[48];
	const char *p;
	size_t n = strlen(name);

	snprintf(key, sizeof(key), ": %s: ", ev);
	p = strstr(line, key);
	if (!p)
		return false;
	p += strlen(key);
	return !strncmp(p, name, n) && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n');
}

bool load_trace_count(const struct load_trace *t, const char *name, int *loads, int *frees)
{
	char path[4200], line[1024], n[64];
	FILE *fp;

	*loads = *frees = 0;
	if (!t->dir[0])
		return false;
	normalise(name, n, sizeof(n));
	snprintf(path, sizeof(path), "%s/trace", t->dir);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		if (*line == '#')
			continue;
		if (load_event_is(line, load_events[0], n))
			(*loads)++;
		else if (load_event_is(line, load_events[1], n))
			(*frees)++;
	}
	fclose(fp);
	return true;
}

void load_trace_close(struct load_trace *t)
{
	if (!t->dir[0])
		return;
	load_events_set(t, "0");
	if (t->made)
		rmdir(t->dir);
	t->dir[0] = '\0';
	t->made = false;
}

bool pid_in(long pid, long first, long last)
{
	if (pid < 0 || first < 0 || last < 0)
		return false;
	if (first <= last)
		return pid >= first && pid <= last;
	return pid >= first || pid <= last;
}

/* The pid and jiffies of '  comm "NAME", pid 123, jiffies 456 ...' (NAME may hold quotes). */
static bool leak_comm_line(const char *line, struct leak_obj *o)
{
	const char *c = strstr(line, "comm \""), *p = NULL, *q;
	size_t n;

	if (!c)
		return false;
	c += 6;
	/* the last '", pid ': the comm before it may hold one */
	for (q = strstr(c, "\", pid "); q; q = strstr(q + 1, "\", pid "))
		p = q;
	if (!p || sscanf(p, "\", pid %ld, jiffies %lu", &o->pid, &o->jiffies) < 1)
		return false;
	n = (size_t)(p - c) < sizeof(o->comm) - 1 ? (size_t)(p - c) : sizeof(o->comm) - 1;
	memcpy(o->comm, c, n);
	o->comm[n] = '\0';
	/* a note is one line of printable text: any task can name itself */
	for (char *q = o->comm; *q; q++)
		if ((unsigned char)*q < ' ' || *q == 0x7f)
			*q = '?';
	return true;
}

/* Every record of the report at @path; the count, or -1 if unreadable. */
static long leak_read(const char *path, struct leak_obj **objs)
{
	struct leak_obj *o = NULL, *grown;
	unsigned long addr;
	char line[1024];
	long size = -1, n = 0, cap = 0;
	bool percpu;
	FILE *fp;

	*objs = NULL;
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		/*
		 * Per-CPU objects, since kmemleak reports them, come as
		 * "unreferenced object (percpu) 0x... (size N):".
		 */
		percpu = sscanf(line, "unreferenced object (percpu) %lx (size %ld)", &addr, &size) == 2;
		if (percpu || sscanf(line, "unreferenced object %lx (size %ld)", &addr, &size) == 2) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				grown = realloc(o, (size_t)cap * sizeof(*o));
				if (!grown) {
					fclose(fp);
					free(o);
					return -1;
				}
				o = grown;
			}
			o[n].addr = addr;
			o[n].jiffies = 0;
			o[n].size = size;
			o[n].percpu = percpu;
			o[n].pid = -1;
			o[n].comm[0] = '\0';
			n++;
			continue;
		}
		/* the record's next line names the task that allocated it */
		if (size >= 0)
			leak_comm_line(line, &o[n - 1]);
		size = -1;
	}
	fclose(fp);
	*objs = o;
	return n;
}

/*
 * Objects by kind (a per-CPU object's address is an offset of another space), address, then
 * allocation time: the baseline is sorted once and searched.
 */
static int leak_cmp(const void *a, const void *b)
{
	const struct leak_obj *x = a, *y = b;

	if (x->percpu != y->percpu)
		return x->percpu ? 1 : -1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->jiffies != y->jiffies)
		return x->jiffies < y->jiffies ? -1 : 1;
	return 0;
}

/*
 * Was @o listed before the sweep?  The same address and allocation time (a
 * machine can carry thousands of boot-time reports: a search, not a scan).
 */
static bool leak_in_base(const struct leak_scan *l, const struct leak_obj *o)
{
	return l->nbase > 0 &&
	       bsearch(o, l->base, (size_t)l->nbase, sizeof(*o), leak_cmp) != NULL;
}

bool leak_open(struct leak_scan *l, const char *debugfs_dir)
{
	const char *env = getenv("MEMINSPECT_KMEMLEAK");
	char dir[4000], *slash;

	memset(l, 0, sizeof(*l));
	if (env && *env) {
		snprintf(l->path, sizeof(l->path), "%s", env);
	} else {
		snprintf(dir, sizeof(dir), "%s", debugfs_dir);
		slash = strrchr(dir, '/');
		if (!slash)
			return false;
		*slash = '\0';
		snprintf(l->path, sizeof(l->path), "%s/kmemleak", *dir ? dir : "");
	}
	if (access(l->path, F_OK) || write_str(l->path, "scan")) {
		l->path[0] = '\0';
		return false;
	}
	l->nbase = leak_read(l->path, &l->base);
	if (l->nbase < 0) {
		l->path[0] = '\0';
		return false;
	}
	if (l->nbase > 0)
		qsort(l->base, (size_t)l->nbase, sizeof(*l->base), leak_cmp);
	return true;
}

void leak_close(struct leak_scan *l)
{
	free(l->base);
	l->base = NULL;
	l->nbase = 0;
}

long leak_scan(struct leak_scan *l, double since, struct leak_obj **objs)
{
	struct leak_obj *o;
	long n, kept = 0;

	*objs = NULL;
	if (!l->path[0])
		return -1;
	/* kmemleak's MSECS_MIN_AGE (mm/kmemleak.c) and a margin for jiffies */
	sleep_s(since + 5.5 - mono_now());
	if (write_str(l->path, "scan"))
		return -1;
	n = leak_read(l->path, &o);
	if (n < 0)
		return -1;
	for (long i = 0; i < n; i++)
		if (!leak_in_base(l, &o[i]))
			o[kept++] = o[i];
	*objs = o;
	return kept;
}

long last_pid(void)
{
	char buf[256], *sp;
	FILE *fp = fopen("/proc/loadavg", "r");
	long pid = -1;

	if (!fp)
		return -1;
	if (fgets(buf, sizeof(buf), fp)) {
		sp = strrchr(buf, ' ');
		if (sp)
			pid = strtol(sp + 1, NULL, 10);
	}
	fclose(fp);
	return pid;
}
