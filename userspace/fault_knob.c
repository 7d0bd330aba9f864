// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect fault: the signal handler that disarms, the knob files
 * (write, arm, errors, loading the tables) and status, arm, disarm, set.
 */
#include "fault_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

const char *const settings_fields[] = { "key", "value", NULL };
const char *const stats_fields[] = {
	"site", "attached", "checked", "matched", "failed", "nofail", NULL };
const char *const log_fields[] = {
	"seq", "site", "pid", "comm", "size", "order", "gfp", "caller", NULL };

/* ---- signals: never leave the injector armed ---- */

char armed_path[PATH_MAX + 16];
/*
 * run and sweep: `armed`, opened once before the first arming and kept
 * open until the end. Arming and disarming write through it: the module's
 * write of `armed` allocates nothing, while opening the file (a struct
 * file, a path lookup) may fail once everything is being failed.
 */
static int armed_fd = -1;
volatile sig_atomic_t fault_got_signal;
volatile pid_t fault_child;
const int stop_signals[NSTOP] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void on_stop_signal(int sig)
{
	int saved = errno, fd = armed_fd;

	if (fd < 0)
		fd = open(armed_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0) {
		/* a regular file (the host tests' fake) is rewritten, not appended to */
		(void)lseek(fd, 0, SEEK_SET);
		ssize_t r = write(fd, "0\n", 2);

		(void)r;
		if (fd != armed_fd)
			close(fd);
	}
	if (fault_child > 0)
		kill(fault_child, sig);
	fault_got_signal = sig;
	errno = saved;
}

void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, NULL);
}

void block_stop_signals(bool block, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_SETMASK, block ? &set : old, block ? old : NULL);
}

/* After cleaning up: die of the signal that stopped us, as a shell expects. */
void reraise(void)
{
	int sig = fault_got_signal;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	fflush(stdout);
	raise(sig);
}

/* ---- knob files ---- */

/* The value an option gave @knob, or NULL. */
const char *given_val(const struct fault *f, const char *knob)
{
	for (size_t i = 0; i < f->ngiven; i++)
		if (!strcmp(f->given[i].knob, knob))
			return f->given[i].val;
	return NULL;
}

/* Record an option's value for @knob; a later option for it replaces it. */
int give(struct fault *f, const char *knob, const char *val, const char *opt)
{
	size_t i = 0;

	while (i < f->ngiven && strcmp(f->given[i].knob, knob))
		i++;
	if (i == NGIVEN)
		return -ENOSPC;
	f->given[i] = (struct given){ .knob = knob, .val = val, .opt = opt };
	if (i == f->ngiven)
		f->ngiven++;
	return 0;
}

struct knob *knob_find(const struct fault *f, const char *name)
{
	for (size_t i = 0; i < f->nknobs; i++)
		if (!strcmp(f->knob[i].name, name))
			return &f->knob[i];
	return NULL;
}

/* A knob the reader drives itself: the module must offer it. */
struct knob *knob_need(const struct fault *f, const char *name)
{
	struct knob *k = knob_find(f, name);

	if (!k)
		fprintf(stderr, "meminspect: fault/settings has no '%s'\n", name);
	return k;
}

/*
 * Read fault/settings (with mi_load()'s diagnostics: not root, no debugfs,
 * no module) and make its records the knobs; then hand each option's value
 * to its knob. An option for a knob the module lacks: exit 1, as a write
 * to a knob file that is not there.
 */
int load_knobs(struct fault *f)
{
	int st = load_fault(f, "settings", settings_fields, &f->settings);

	if (st)
		return st;
	f->nknobs = mi_nrecords(f->settings);
	f->knob = calloc(f->nknobs ? f->nknobs : 1, sizeof(*f->knob));
	if (!f->knob) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	for (size_t i = 0; i < f->nknobs; i++)
		f->knob[i].name = mi_get(f->settings, i, "key");
	for (size_t i = 0; i < f->ngiven; i++) {
		const struct given *g = &f->given[i];
		struct knob *k = knob_find(f, g->knob);

		if (!k)
			return knob_error(f, g->knob, g->val, -ENOENT, g->opt);
		k->val = g->val;
		k->opt = g->opt;
	}
	return ST_OK;
}

void free_knobs(struct fault *f)
{
	for (size_t i = 0; i < f->nknobs; i++)
		free(f->knob[i].saved);
	free(f->knob);
	f->knob = NULL;
	f->nknobs = 0;
	mi_table_free(f->settings);
	f->settings = NULL;
}

/* One write of "value\n", as `echo value > knob` does. 0 or -errno. */
int write_knob(const struct fault *f, const char *knob, const char *value)
{
	char path[PATH_MAX + 32];
	size_t len = strlen(value);
	char *buf = malloc(len + 2);
	ssize_t n;
	int fd, err = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, value, len);
	buf[len] = '\n';
	snprintf(path, sizeof(path), "%s/%s", f->path, knob);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	n = write(fd, buf, len + 1);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len + 1)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	free(buf);
	return err;
}

/*
 * `armed` = @value through armed_fd (write_knob() when it is not open). On
 * debugfs the file is not seekable (lseek fails, the module takes any
 * position); a regular file is rewritten from its start. 0 or -errno.
 */
int write_armed(const struct fault *f, const char *value)
{
	char buf[4];
	ssize_t n;

	if (armed_fd < 0)
		return write_knob(f, "armed", value);
	snprintf(buf, sizeof(buf), "%s\n", value);
	(void)lseek(armed_fd, 0, SEEK_SET);
	n = write(armed_fd, buf, strlen(buf));
	if (n < 0)
		return -errno;
	return (size_t)n == strlen(buf) ? 0 : -EIO;
}

/*
 * A knob refused with EPERM as root on a locked-down kernel: debugfs
 * refuses every file with a write bit there, and fault/ has no copy
 * outside debugfs (the kernel refuses its own fail_* knobs too). ST_OK
 * when that is not the reason.
 */
static int lockdown_refused(const struct fault *f, int err)
{
	char buf[32];
	const char *level;

	if (err != -EPERM || geteuid() != 0)
		return ST_OK;
	level = mi_locked_down(f->env->acc, buf, sizeof(buf));
	if (!level)
		return ST_OK;
	fprintf(stderr, "meminspect: fault %s: kernel lockdown (%s) refuses writes to debugfs files: fault injection is not available while the kernel is locked down (docs/lockdown.md)\n",
		f->sub, level);
	return ST_LOCKDOWN;
}

/* Open armed_fd for run and sweep (before anything is armed). */
int open_armed(const struct fault *f)
{
	int st, err;

	armed_fd = open(armed_path, O_WRONLY | O_CLOEXEC);
	if (armed_fd < 0) {
		err = errno;
		st = lockdown_refused(f, -err);
		if (st)
			return st;
		fprintf(stderr, "meminspect: %s: %s\n", armed_path, strerror(err));
		return ST_FORMAT;
	}
	return ST_OK;
}

void close_armed(void)
{
	if (armed_fd >= 0)
		close(armed_fd);
	armed_fd = -1;
}

/* The message and exit status for a failed knob write. */
int knob_error(const struct fault *f, const char *knob, const char *value, int err,
	       const char *opt)
{
	const char *hint = "";
	int st = lockdown_refused(f, err);

	if (st)
		return st;
	st = ST_REFUSED;
	if (err == -EACCES || err == -EPERM) {
		hint = geteuid() ? " (run meminspect as root)" : "";
		st = ST_PERM;
	} else if (err == -ENOENT) {
		hint = " (the loaded module has no such knob)";
		st = ST_FORMAT;
	} else if (err == -EBUSY) {
		hint = strcmp(knob, "armed") ? " (the injector is armed: meminspect fault disarm)"
			: " (already armed)";
	} else if (err == -EOPNOTSUPP) {
		hint = strcmp(knob, "armed") ?
			" (this kernel cannot provide it: see meminspect capabilities)" :
			" (injection does not take effect on this kernel: see dmesg)";
	} else if (err == -EINVAL && !strcmp(knob, "armed")) {
		hint = " (no site enabled: meminspect fault set sites slab)";
	}
	if (opt)
		fprintf(stderr, "meminspect: fault %s: %s %s (%s): %s%s\n", f->sub, opt, value,
			knob, strerror(-err), hint);
	else if (!strcmp(f->sub, "set"))
		fprintf(stderr, "meminspect: fault set %s %s: %s%s\n", knob, value,
			strerror(-err), hint);
	else
		fprintf(stderr, "meminspect: fault %s: writing %s to %s: %s%s\n", f->sub, value,
			knob, strerror(-err), hint);
	return st;
}

/* Load fault/FILE with the module's diagnostics and require its fields. */
int load_fault(const struct fault *f, const char *file, const char *const *fields,
	       struct mi_table **t)
{
	char rel[64];
	struct mi_error e;
	int st;

	snprintf(rel, sizeof(rel), "fault/%s", file);
	st = mi_load(f->env->acc, rel, t);
	if (st)
		return st;
	if (!mi_require_fields(*t, &e, fields)) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		mi_table_free(*t);
		*t = NULL;
		return ST_FORMAT;
	}
	return ST_OK;
}

/* The module is there but has no fault/: say so rather than "no such file". */
int check_fault_dir(const struct fault *f)
{
	struct stat st;

	if (stat(f->env->dir, &st) == 0 && stat(f->path, &st) != 0 && errno == ENOENT) {
		fprintf(stderr, "meminspect: %s does not exist: this meminspect module has no fault injection (see meminspect capabilities)\n",
			f->path);
		return ST_NO_MODULE;
	}
	return ST_OK;
}

/* A settings value as the knob file takes it back ('-' is the empty string). */
const char *knob_text(const char *v)
{
	return mi_is_none(v) ? "" : v;
}

/* ---- output ---- */

/* Print a table built in memory (parse.h's builder), then free it. */
int print_built(const struct fault *f, struct mi_table *t)
{
	int st = ST_OK, err = mi_table_error(t);

	if (err) {
		fprintf(stderr, "meminspect: %s table: %s\n", mi_table_name(t), strerror(-err));
		st = ST_FORMAT;
	} else if (out_table(stdout, t, f->env->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		st = ST_FORMAT;
	}
	mi_table_free(t);
	return st;
}

int print_section(const struct fault *f, const char *title, const struct mi_table *t,
		  bool first)
{
	printf("%s== %s ==\n", first ? "" : "\n", title);
	if (out_table(stdout, t, f->env->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	return ST_OK;
}

/* status's and run's JSON object ends the same way: "stats" and "log", closed. */
void json_stats_log(struct json *j, const struct mi_table *stats, const struct mi_table *log)
{
	json_key(j, "stats");
	json_records(j, stats);
	json_key(j, "log");
	json_records(j, log);
	json_end_object(j);
	json_finish(j);
}

/* {"sites": "slab", "probability": 100, ...} */
static void json_settings(struct json *j, const struct mi_table *t)
{
	json_begin_object(j);
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		json_key(j, mi_get(t, r, "key"));
		json_value(j, mi_get(t, r, "value"));
	}
	json_end_object(j);
}

static void json_notes_to_stderr(const struct mi_table *t, const char *file)
{
	for (size_t i = 0; i < mi_nnotes(t); i++)
		fprintf(stderr, "meminspect: fault/%s: note: %s\n", file, mi_note(t, i));
}

/* ---- status, arm, disarm, set ---- */

int fault_status(struct fault *f)
{
	struct mi_table *set = NULL, *stats = NULL, *log = NULL;
	struct json j;
	int st;

	st = load_fault(f, "settings", settings_fields, &set);
	if (!st)
		st = load_fault(f, "stats", stats_fields, &stats);
	if (!st)
		st = load_fault(f, "log", log_fields, &log);
	if (st)
		goto out;
	if (f->json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "settings");
		json_settings(&j, set);
		json_stats_log(&j, stats, log);
		json_notes_to_stderr(set, "settings");
		json_notes_to_stderr(stats, "stats");
		json_notes_to_stderr(log, "log");
	} else {
		st = print_section(f, "settings", set, true);
		if (!st)
			st = print_section(f, "stats", stats, false);
		if (!st)
			st = print_section(f, "log", log, false);
	}
out:
	mi_table_free(set);
	mi_table_free(stats);
	mi_table_free(log);
	return st;
}

int fault_arm(struct fault *f, bool arm)
{
	int err = write_knob(f, "armed", arm ? "1" : "0");

	return err ? knob_error(f, "armed", arm ? "1" : "0", err, NULL) : ST_OK;
}

int fault_set(struct fault *f, const char *knob, const char *value)
{
	int st, err;

	if (strchr(value, '\n')) {
		fprintf(stderr, "meminspect: fault set %s: a value is one line\n", knob);
		return ST_USAGE;
	}
	/* the module's knobs, not a list of ours: its settings name them */
	st = load_knobs(f);
	if (!st && !knob_find(f, knob)) {
		fprintf(stderr, "meminspect: fault set: unknown knob '%s'; one of:", knob);
		for (size_t i = 0; i < f->nknobs; i++)
			fprintf(stderr, " %s", f->knob[i].name);
		fputs("\nTry 'meminspect fault --help'.\n", stderr);
		st = ST_USAGE;
	}
	if (!st) {
		err = write_knob(f, knob, value);
		st = err ? knob_error(f, knob, value, err, NULL) : ST_OK;
	}
	free_knobs(f);
	return st;
}
