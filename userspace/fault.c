// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect fault: status, arm, disarm, set, run and sweep over the
 * module's fault/ knobs (docs/fault.md). The settings, stats and log tables
 * go through the one parser; everything printed goes through output.c.
 *
 * run and sweep change knobs only while they need them and put every knob
 * they wrote back afterwards; they never leave the injector armed when they
 * end, whether the command ends, fails to start, or the reader gets SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT (the handler disarms with open/write/close,
 * which are async-signal-safe). Only SIGKILL can leave it armed, aimed at
 * the command, which then dies too (PR_SET_PDEATHSIG).
 */
#include "access.h"
#include "fault.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "sweepcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* docs/fault.md's knob table, in its order (also the order run writes them in) */
static const char *const knobs[] = {
	"sites", "probability", "interval", "times", "space", "verbose",
	"ignore-gfp-wait", "ignore-gfp-highmem", "min-order", "max-order", "nth",
	"aim-pid", "aim-children", "aim-comm", "aim-cgroup", "aim-cache", "aim-size",
	"aim-module", "aim-depth", "exclude-caller", "duration", "armed",
};

#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
#define KNOB_SITES 0
#define KNOB_NTH 10
#define KNOB_PID 11
#define KNOB_CHILDREN 12
#define KNOB_MODULE 17
#define KNOB_ARMED (NKNOBS - 1)

static const char *const settings_fields[] = { "key", "value", NULL };
static const char *const stats_fields[] = {
	"site", "attached", "checked", "matched", "failed", "nofail", NULL };
static const char *const log_fields[] = {
	"seq", "site", "pid", "comm", "size", "order", "gfp", "caller", NULL };
static const char *const excluded_fields[] = {
	"caller", "origin", "present", "spared", NULL };

/* At most this many spared callers reported by a sweep. */
#define SPARED_KEEP 32

/* A caller that exclude-caller (or the module's built-in list) spared. */
struct spared {
	char *caller, *origin;
	long long allocations;
	unsigned long runs;
};

/*
 * scripts/splat-patterns, line for line (userspace/tests/fault.sh checks
 * that they agree): a kernel log line matching one of them is a splat.
 */
static const char *const splat_patterns[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"general protection fault",
	"kernel BUG at",
	"Kernel panic",
	"list_add corruption",
	"list_del corruption",
	"refcount_t:",
	"soft lockup",
	"rcu.*stall",
	"blocked for more than",
	"[Rr]edzone",
	"[Pp]oison overwritten",
	"Objects remaining",
	"UBSAN:",
	"KASAN:",
	"kmemleak:.*new suspected",
	"possible circular locking",
	"inconsistent lock state",
	"sleeping function called from invalid context",
	"Call Trace:",
};

#define NPATTERNS (sizeof(splat_patterns) / sizeof(splat_patterns[0]))

/*
 * scripts/alloc-failure-reports, line for line (checked like the above):
 * the headers of the kernel's own reports of a failed allocation.  A sweep
 * injects failures in every run, so the stack dump ("Call Trace:") that
 * follows such a header within REPORT_NEAR records is the kernel's expected
 * answer, not a splat (scripts/splat-scan does the same inside a test's
 * expect window).
 */
static const char *const report_patterns[] = {
	"page allocation failure: order",
	"vmalloc error: size",
	"vmalloc: allocation failure:",
	"invoked oom-killer: gfp_mask",
};

#define NREPORTS (sizeof(report_patterns) / sizeof(report_patterns[0]))
#define REPORT_NEAR 20

/* Taint bits that loading an out-of-tree module sets: O, E, N (as scripts/vm-run). */
#define TAINT_EXPECTED (4096ul | 8192ul | 262144ul)

/* At most this many splat lines kept per run. */
#define SPLAT_KEEP 4

struct run_result {
	unsigned long nth;
	int status;		/* exit status, 128 + signal if killed */
	long long failed, matched;
	unsigned int nsplat;
	char *splat[SPLAT_KEEP];
	unsigned long new_taint;
	char *caller;		/* NULL: none in the log */
	/* --module: the module after the run (sweepcheck.h) */
	enum mod_state mod;
	bool unloaded;		/* live, unloaded for the next run */
	char *mod_note;		/* why it is half-loaded, or why it could not be unloaded */
	long leaks;		/* kmemleak's unreferenced objects; -1: not scanned */
	char *leak_line[LEAK_KEEP];
	unsigned int nleak_line;
};

struct fault {
	const struct fault_env *env;
	const char *sub;		/* the subcommand */
	bool json;
	const char *val[NKNOBS];	/* from the options; NULL: leave alone */
	const char *opt[NKNOBS];	/* the option that set it, for messages */
	bool pid_given;
	unsigned long max_runs;
	bool command_output;
	bool from_exec;			/* aim at the exec too (failcmd.sh's way) */
	char **cmd;
	/* what run/sweep changed, to put back */
	char *saved[NKNOBS];
	bool changed[NKNOBS];
	char path[PATH_MAX];		/* dir/fault */
};

/* ---- signals: never leave the injector armed ---- */

static char armed_path[PATH_MAX + 16];
/*
 * run and sweep: `armed`, opened once before the first arming and kept
 * open until the end. Arming and disarming write through it: the module's
 * write of `armed` allocates nothing, while opening the file (a struct
 * file, a path lookup) may fail once everything is being failed.
 */
static int armed_fd = -1;
static volatile sig_atomic_t got_signal;
static volatile pid_t child;
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

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
	if (child > 0)
		kill(child, sig);
	got_signal = sig;
	errno = saved;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], &sa, NULL);
}

static void block_stop_signals(bool block, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NSTOP; i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(block ? SIG_BLOCK : SIG_SETMASK, block ? &set : old, block ? old : NULL);
}

/* After cleaning up: die of the signal that stopped us, as a shell expects. */
static void reraise(void)
{
	int sig = got_signal;

	if (!sig)
		return;
	signal(sig, SIG_DFL);
	fflush(stdout);
	raise(sig);
}

/* ---- knob files ---- */

static int knob_index(const char *name)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i], name))
			return (int)i;
	return -1;
}

/* One write of "value\n", as `echo value > knob` does. 0 or -errno. */
static int write_knob(const struct fault *f, const char *knob, const char *value)
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
static int write_armed(const struct fault *f, const char *value)
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

/* Open armed_fd for run and sweep (before anything is armed). */
static int open_armed(void)
{
	armed_fd = open(armed_path, O_WRONLY | O_CLOEXEC);
	if (armed_fd < 0) {
		fprintf(stderr, "meminspect: %s: %s\n", armed_path, strerror(errno));
		return ST_FORMAT;
	}
	return ST_OK;
}

static void close_armed(void)
{
	if (armed_fd >= 0)
		close(armed_fd);
	armed_fd = -1;
}

/* The message and exit status for a failed knob write. */
static int knob_error(const struct fault *f, const char *knob, const char *value, int err,
		      const char *opt)
{
	const char *hint = "";
	int st = ST_REFUSED;

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
static int load_fault(const struct fault *f, const char *file, const char *const *fields,
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
static int check_fault_dir(const struct fault *f)
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
static const char *knob_text(const char *v)
{
	return mi_is_none(v) ? "" : v;
}

/* ---- output ---- */

/* Text in the line format, written to the memstream m (of *text, *len), as a table. */
static int print_parsed(const struct fault *f, FILE *m, char **text, size_t *len,
			const char *name)
{
	struct mi_error e;
	struct mi_table *t;
	int st = ST_OK;

	if (fclose(m)) {
		free(*text);
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	t = mi_table_parse(*text, *len, name, &e);
	free(*text);
	if (!t) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	if (out_table(stdout, t, f->env->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		st = ST_FORMAT;
	}
	mi_table_free(t);
	return st;
}

static int print_section(const struct fault *f, const char *title, const struct mi_table *t,
			 bool first)
{
	printf("%s== %s ==\n", first ? "" : "\n", title);
	if (out_table(stdout, t, f->env->out)) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	return ST_OK;
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

static int fault_status(struct fault *f)
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
		json_key(&j, "stats");
		json_records(&j, stats);
		json_key(&j, "log");
		json_records(&j, log);
		json_end_object(&j);
		json_finish(&j);
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

static int fault_arm(struct fault *f, bool arm)
{
	int err = write_knob(f, "armed", arm ? "1" : "0");

	return err ? knob_error(f, "armed", arm ? "1" : "0", err, NULL) : ST_OK;
}

static int fault_set(struct fault *f, const char *knob, const char *value)
{
	int err;

	if (knob_index(knob) < 0) {
		fprintf(stderr, "meminspect: fault set: unknown knob '%s'; one of:", knob);
		for (size_t i = 0; i < NKNOBS; i++)
			fprintf(stderr, " %s", knobs[i]);
		fputs("\nTry 'meminspect fault --help'.\n", stderr);
		return ST_USAGE;
	}
	if (strchr(value, '\n')) {
		fprintf(stderr, "meminspect: fault set %s: a value is one line\n", knob);
		return ST_USAGE;
	}
	err = write_knob(f, knob, value);
	return err ? knob_error(f, knob, value, err, NULL) : ST_OK;
}

/* ---- run and sweep ---- */

/* Remember the settings, then write every knob the options name. */
static int apply_options(struct fault *f)
{
	struct mi_table *set;
	int st = load_fault(f, "settings", settings_fields, &set);

	if (st)
		return st;
	for (size_t i = 0; i < NKNOBS; i++) {
		long r = mi_find(set, "key", knobs[i]);

		if (i == KNOB_ARMED)
			continue;
		if (r < 0) {
			fprintf(stderr, "meminspect: fault/settings has no '%s'\n", knobs[i]);
			st = ST_FORMAT;
			break;
		}
		f->saved[i] = strdup(knob_text(mi_get(set, (size_t)r, "value")));
		if (!f->saved[i]) {
			fprintf(stderr, "meminspect: out of memory\n");
			st = ST_FORMAT;
			break;
		}
	}
	if (!st && !strcmp(knob_text(mi_get(set, (size_t)mi_find(set, "key", "armed"), "value")),
			   "1")) {
		fprintf(stderr, "meminspect: fault %s: the injector is already armed (meminspect fault disarm first)\n",
			f->sub);
		st = ST_REFUSED;
	}
	/* nothing to attach: slab, as failcmd.sh defaults to failslab */
	if (!st && !f->val[KNOB_SITES] && !strcmp(f->saved[KNOB_SITES], "none")) {
		f->val[KNOB_SITES] = "slab";
		f->opt[KNOB_SITES] = "--sites (default)";
	}
	mi_table_free(set);
	for (size_t i = 0; !st && i < NKNOBS; i++) {
		int err;

		if (!f->val[i] || i == KNOB_PID || i == KNOB_ARMED)
			continue;
		err = write_knob(f, knobs[i], f->val[i]);
		if (err)
			st = knob_error(f, knobs[i], f->val[i], err, f->opt[i]);
		else
			f->changed[i] = true;
	}
	return st;
}

/* Put back what apply_options() and the runs changed (the injector is disarmed). */
static int restore_options(struct fault *f)
{
	int st = ST_OK;

	for (size_t i = NKNOBS; i-- > 0;) {
		int err;

		if (!f->changed[i])
			continue;
		err = write_knob(f, knobs[i], f->saved[i]);
		if (err) {
			fprintf(stderr, "meminspect: fault %s: warning: could not put %s back to '%s': %s\n",
				f->sub, knobs[i], f->saved[i], strerror(-err));
			st = ST_REFUSED;
		}
		f->changed[i] = false;
	}
	return st;
}

static void free_saved(struct fault *f)
{
	for (size_t i = 0; i < NKNOBS; i++) {
		free(f->saved[i]);
		f->saved[i] = NULL;
	}
}

/*
 * The child. --from-exec: waits for one byte on the pipe (EOF: the reader
 * gave up), then execs the command; its allocations before that byte are
 * not aimed at. Otherwise: asks to be traced and execs at once; the kernel
 * stops it with SIGTRAP once the exec has succeeded, before the command's
 * first instruction, and the reader arms then (wait_exec_stop()).
 */
static void child_main(struct fault *f, int rfd, pid_t parent)
{
	char go;
	ssize_t n;

	for (size_t i = 0; i < NSTOP; i++)
		signal(stop_signals[i], SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	if (!f->command_output && !strcmp(f->sub, "sweep")) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
	}
	if (f->from_exec) {
		do
			n = read(rfd, &go, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(125);
	} else if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
		fprintf(stderr, "meminspect: fault %s: cannot stop '%s' after its exec: PTRACE_TRACEME: %s (--from-exec does without)\n",
			f->sub, f->cmd[0], strerror(errno));
		_exit(125);
	}
	close(rfd);
	execvp(f->cmd[0], f->cmd);
	fprintf(stderr, "meminspect: fault %s: cannot run '%s': %s\n", f->sub, f->cmd[0],
		strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int exit_code(int ws)
{
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return WEXITSTATUS(ws);
}

/*
 * Wait until the traced child @pid stops after its exec (true), or ends
 * before (false, *status set: it could not exec). Any other signal it gets
 * meanwhile (the stop signals' handler passes them on) is given back to it.
 */
static bool wait_exec_stop(pid_t pid, int *status)
{
	int ws;

	for (;;) {
		if (waitpid(pid, &ws, 0) < 0) {
			if (errno == EINTR)
				continue;
			*status = 125;
			return false;
		}
		if (!WIFSTOPPED(ws)) {
			*status = exit_code(ws);
			return false;
		}
		if (WSTOPSIG(ws) == SIGTRAP)
			return true;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(ws));
	}
}

static int wait_status(pid_t pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return 125;
	return exit_code(ws);
}

/*
 * One aimed run: fork the command, stopped after its exec (or, with
 * --from-exec, before it, on a pipe), aim at it, arm, let it go, wait,
 * disarm. *status is the command's exit status. Returns the reader's
 * status: non-zero if the command was not run.
 */
static int run_once(struct fault *f, int *status)
{
	pid_t parent = getpid(), pid;
	bool stopped = true, exited = false;
	sigset_t old;
	char pidbuf[24];
	int p[2], err, st = ST_OK;

	if (pipe(p)) {
		fprintf(stderr, "meminspect: pipe: %s\n", strerror(errno));
		return ST_FORMAT;
	}
	fflush(stdout);
	fflush(stderr);
	block_stop_signals(true, &old);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "meminspect: fork: %s\n", strerror(errno));
		block_stop_signals(false, &old);
		close(p[0]);
		close(p[1]);
		return ST_FORMAT;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(p[1]);
		child_main(f, p[0], parent);
	}
	close(p[0]);
	child = pid;
	if (!f->from_exec) {
		/* signals that come while it execs are passed on to it */
		block_stop_signals(false, &old);
		stopped = wait_exec_stop(pid, status);
		exited = !stopped;
		block_stop_signals(true, &old);
	}
	/* the aim, then arming, with the stop signals held: the handler disarms after */
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	const char *aim = f->pid_given ? f->val[KNOB_PID] : pidbuf;

	if (stopped && !got_signal) {
		err = write_knob(f, "aim-pid", aim);
		if (err) {
			st = knob_error(f, "aim-pid", aim, err, f->pid_given ? "--pid" : NULL);
		} else {
			f->changed[KNOB_PID] = true;
			err = write_armed(f, "1");
			if (err)
				st = knob_error(f, "armed", "1", err, NULL);
		}
	}
	block_stop_signals(false, &old);
	if (f->from_exec) {
		if (!st && !got_signal && write(p[1], "x", 1) != 1)
			st = ST_FORMAT;
	} else if (stopped) {
		/* not armed as asked: the command must not run unaimed */
		if (st)
			kill(pid, SIGKILL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	close(p[1]);		/* without the byte: EOF, the child exits 125 */
	if (!exited)
		*status = wait_status(pid);
	child = 0;
	err = write_armed(f, "0");
	if (err && !st)
		st = knob_error(f, "armed", "0", err, NULL);
	return st;
}

static long long sum_column(const struct mi_table *t, const char *field)
{
	long long sum = 0, v;

	for (size_t r = 0; r < mi_nrecords(t); r++)
		if (!mi_parse_s64(mi_get(t, r, field), &v))
			sum += v;
	return sum;
}

static void json_command(struct json *j, char **cmd)
{
	json_begin_array(j);
	for (; *cmd; cmd++)
		json_string(j, *cmd);
	json_end_array(j);
}

static int fault_run(struct fault *f)
{
	struct mi_table *stats = NULL, *log = NULL;
	int st, rst, status = 0;
	char num[24];
	struct json j;

	st = apply_options(f);
	if (!st)
		st = open_armed();
	if (!st)
		st = run_once(f, &status);
	close_armed();
	rst = restore_options(f);
	if (st) {
		free_saved(f);
		reraise();
		return st;
	}
	st = load_fault(f, "stats", stats_fields, &stats);
	if (!st)
		st = load_fault(f, "log", log_fields, &log);
	if (!st && f->json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "command");
		json_command(&j, f->cmd);
		json_key(&j, "exit_status");
		snprintf(num, sizeof(num), "%d", status);
		json_value(&j, num);
		json_key(&j, "stats");
		json_records(&j, stats);
		json_key(&j, "log");
		json_records(&j, log);
		json_end_object(&j);
		json_finish(&j);
	} else if (!st) {
		st = print_section(f, "stats", stats, true);
		if (!st)
			st = print_section(f, "log", log, false);
		printf("# %s exited with status %d\n", f->cmd[0], status);
	}
	mi_table_free(stats);
	mi_table_free(log);
	free_saved(f);
	reraise();
	if (st)
		return st;
	return rst ? rst : status;
}

/* ---- the kernel log and taint, for sweep ---- */

struct klog {
	int fd;			/* /dev/kmsg, non-blocking; -1: unavailable */
	regex_t re[NPATTERNS];
	regex_t report[NREPORTS];
	unsigned int since_report;	/* records since a report header */
	bool own_scan;			/* kmemleak's line after the sweep's own scan is no splat */
	char buf[8192];
	unsigned long tainted;
	char tainted_path[PATH_MAX];
};

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

static int klog_open(struct klog *k)
{
	const char *kmsg = getenv("MEMINSPECT_KMSG"), *proc = getenv("MEMINSPECT_PROC");

	if (!compile_all(k->re, splat_patterns, NPATTERNS))
		return ST_FORMAT;
	if (!compile_all(k->report, report_patterns, NREPORTS)) {
		free_all(k->re, NPATTERNS);
		return ST_FORMAT;
	}
	k->since_report = UINT_MAX;
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
	return ST_OK;
}

static void klog_close(struct klog *k)
{
	free_all(k->re, NPATTERNS);
	free_all(k->report, NREPORTS);
	if (k->fd >= 0)
		close(k->fd);
}

/* One log line (a /dev/kmsg record's text after "prio,seq,ts,flags;"). */
static void klog_line(struct klog *k, char *line, struct run_result *res)
{
	char *semi = strchr(line, ';'), *p;

	if (*line == ' ')	/* a record's KEY=value continuation */
		return;
	if (semi && strspn(line, "0123456789,-abcdefghijklmnopqrstuvwxyzACDNP=") ==
	    (size_t)(semi - line))
		line = semi + 1;
	for (size_t i = 0; i < NREPORTS; i++) {
		if (!regexec(&k->report[i], line, 0, NULL, 0)) {
			k->since_report = 0;
			return;
		}
	}
	if (k->since_report < UINT_MAX)
		k->since_report++;
	for (size_t i = 0; i < NPATTERNS; i++) {
		if (regexec(&k->re[i], line, 0, NULL, 0))
			continue;
		if (!strcmp(splat_patterns[i], "Call Trace:") &&
		    k->since_report <= REPORT_NEAR)
			return;		/* the stack dump of a report above */
		if (k->own_scan && !strcmp(splat_patterns[i], "kmemleak:.*new suspected"))
			return;		/* counted as the run's leaks instead */
		if (res->nsplat < SPLAT_KEEP) {
			/* a note is one line of printable text */
			for (p = line; *p; p++)
				if ((unsigned char)*p < ' ' || *p == 0x7f)
					*p = '?';
			res->splat[res->nsplat] = strdup(line);
		}
		res->nsplat++;
		return;
	}
}

/* Everything logged since the last call; res NULL: just skip it. */
static void klog_read(struct klog *k, struct run_result *res)
{
	size_t have = 0;

	if (k->fd < 0)
		return;
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

static void free_result(struct run_result *r)
{
	for (unsigned int i = 0; i < r->nsplat && i < SPLAT_KEEP; i++)
		free(r->splat[i]);
	free(r->caller);
	free(r->mod_note);
	for (unsigned int i = 0; i < r->nleak_line; i++)
		free(r->leak_line[i]);
}

/* The caller of the last injected failure, from the log. */
static char *last_caller(const struct mi_table *log)
{
	size_t n = mi_nrecords(log);

	return n ? strdup(mi_get(log, n - 1, "caller")) : NULL;
}

/*
 * Add this run's spared allocations (fault/excluded, absent on a module
 * without exclude-caller) to @sp.
 */
static int add_spared(struct fault *f, struct spared *sp, size_t *nsp)
{
	char path[PATH_MAX + 16];
	struct mi_table *t;
	long long v;
	int st;

	snprintf(path, sizeof(path), "%s/excluded", f->path);
	if (access(path, F_OK))
		return ST_OK;
	st = load_fault(f, "excluded", excluded_fields, &t);
	if (st)
		return st;
	for (size_t r = 0; r < mi_nrecords(t); r++) {
		const char *c = mi_get(t, r, "caller");
		size_t i;

		if (mi_parse_s64(mi_get(t, r, "spared"), &v) || v <= 0)
			continue;
		for (i = 0; i < *nsp && strcmp(sp[i].caller, c); i++)
			;
		if (i == *nsp) {
			if (*nsp == SPARED_KEEP)
				continue;
			sp[i].caller = strdup(c);
			sp[i].origin = strdup(mi_get(t, r, "origin"));
			if (!sp[i].caller || !sp[i].origin) {
				free(sp[i].caller);
				free(sp[i].origin);
				mi_table_free(t);
				fprintf(stderr, "meminspect: out of memory\n");
				return ST_FORMAT;
			}
			(*nsp)++;
		}
		sp[i].allocations += v;
		sp[i].runs++;
	}
	mi_table_free(t);
	return ST_OK;
}

/* What sweep checks besides the kernel log: --module's module, kmemleak. */
struct sweep_checks {
	const char *mod;	/* --module, NULL: none */
	bool was_loaded;	/* loaded before the first run: never unloaded */
	bool leaks_on;		/* kmemleak is there */
	struct leak_scan leak;
};

/*
 * --module: after a run the module must be gone or live, never on its way
 * (docs/fault-reader.md). Live after a run that failed something, and not
 * loaded before the sweep, it is unloaded so the next run loads it afresh.
 * False if the sweep cannot go on.
 */
static bool after_run_module(struct fault *f, struct sweep_checks *sc, struct run_result *r)
{
	char why[160];
	int err;

	r->mod = mod_state(sc->mod, why, sizeof(why));
	if (r->mod == MOD_HALF) {
		r->mod_note = strdup(why);
		return false;
	}
	if (r->mod != MOD_LIVE || sc->was_loaded || r->failed == 0)
		return true;
	if (r->nsplat) {
		/*
		 * The kernel complained while loading it: what it left may not
		 * survive its exit (5.10's brd: add_disk() WARNs on a failure
		 * it cannot report, then del_gendisk oopses at unload).
		 */
		r->mod_note = strdup("live after a kernel splat: not unloaded, the sweep stops");
		return false;
	}
	err = mod_unload(sc->mod);
	if (err) {
		snprintf(why, sizeof(why), "live, and unloading it for the next run failed: %s",
			 strerror(err));
		r->mod_note = strdup(why);
		fprintf(stderr, "meminspect: fault %s: module %s: %s\n", f->sub, sc->mod, why);
		return false;
	}
	r->unloaded = true;
	return true;
}

static const char *mod_word(const struct sweep_checks *sc, const struct run_result *r)
{
	if (!sc->mod)
		return "-";
	if (r->mod == MOD_HALF)
		return "half-loaded";
	if (r->mod == MOD_GONE)
		return "gone";
	return r->unloaded ? "live,unloaded" : "live";
}

static int sweep_print(struct fault *f, struct run_result *res, size_t nres, bool complete,
		       bool splat, const struct spared *sp, size_t nsp,
		       const struct sweep_checks *sc)
{
	bool modbad = false, leaked = false;
	char *text = NULL, num[24];
	size_t len = 0;
	struct json j;
	FILE *m;

	if (f->json) {
		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "command");
		json_command(&j, f->cmd);
		json_key(&j, "runs");
		json_begin_array(&j);
		for (size_t i = 0; i < nres; i++) {
			struct run_result *r = &res[i];

			json_begin_object(&j);
#define JNUM(key, fmt, v) do { json_key(&j, key); snprintf(num, sizeof(num), fmt, v); \
			       json_value(&j, num); } while (0)
			JNUM("nth", "%lu", r->nth);
			JNUM("exit_status", "%d", r->status);
			JNUM("failed", "%lld", r->failed);
			JNUM("matched", "%lld", r->matched);
			JNUM("splats", "%u", r->nsplat);
			json_key(&j, "splat_lines");
			json_begin_array(&j);
			for (unsigned int s = 0; s < r->nsplat && s < SPLAT_KEEP; s++)
				json_string(&j, r->splat[s]);
			json_end_array(&j);
			JNUM("new_taint", "%lu", r->new_taint);
			json_key(&j, "caller");
			if (r->caller)
				json_string(&j, r->caller);
			else
				json_null(&j);
			json_key(&j, "module_state");
			if (sc->mod)
				json_string(&j, r->mod == MOD_HALF ? "half-loaded" :
					    r->mod == MOD_GONE ? "gone" : "live");
			else
				json_null(&j);
			json_key(&j, "module_unloaded");
			json_value(&j, r->unloaded ? "1" : "0");
			json_key(&j, "module_note");
			if (r->mod_note)
				json_string(&j, r->mod_note);
			else
				json_null(&j);
			if (r->leaks >= 0) {
				JNUM("leaks", "%ld", r->leaks);
			} else {
				json_key(&j, "leaks");
				json_null(&j);
			}
			json_key(&j, "leak_lines");
			json_begin_array(&j);
			for (unsigned int s = 0; s < r->nleak_line; s++)
				json_string(&j, r->leak_line[s]);
			json_end_array(&j);
			json_end_object(&j);
			if (r->mod_note)
				modbad = true;
			if (r->leaks > 0)
				leaked = true;
		}
		json_end_array(&j);
		json_key(&j, "module");
		if (sc->mod)
			json_string(&j, sc->mod);
		else
			json_null(&j);
		json_key(&j, "module_ok");
		if (sc->mod)
			json_value(&j, modbad ? "0" : "1");
		else
			json_null(&j);
		json_key(&j, "kmemleak");
		json_value(&j, sc->leaks_on ? "1" : "0");
		json_key(&j, "leaked");
		if (sc->leaks_on)
			json_value(&j, leaked ? "1" : "0");
		else
			json_null(&j);
		json_key(&j, "complete");
		json_value(&j, complete ? "1" : "0");
		JNUM("failure_points", "%zu", complete ? nres - 1 : nres);
		json_key(&j, "spared");
		json_begin_array(&j);
		for (size_t i = 0; i < nsp; i++) {
			json_begin_object(&j);
			json_key(&j, "caller");
			json_string(&j, sp[i].caller);
			json_key(&j, "origin");
			json_string(&j, sp[i].origin);
			JNUM("allocations", "%lld", sp[i].allocations);
			JNUM("runs", "%lu", sp[i].runs);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_key(&j, "clean");
		json_value(&j, splat ? "0" : "1");
#undef JNUM
		json_end_object(&j);
		json_finish(&j);
		return ST_OK;
	}
	m = open_memstream(&text, &len);
	if (!m) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	fputs("nth exit failed matched splats new_taint module leaks caller\n", m);
	for (size_t i = 0; i < nres; i++) {
		char leaks[24] = "-";

		if (res[i].leaks >= 0)
			snprintf(leaks, sizeof(leaks), "%ld", res[i].leaks);
		fprintf(m, "%lu %d %lld %lld %u %lu %s %s %s\n", res[i].nth, res[i].status,
			res[i].failed, res[i].matched, res[i].nsplat, res[i].new_taint,
			mod_word(sc, &res[i]), leaks,
			res[i].caller && *res[i].caller ? res[i].caller : "-");
		if (res[i].mod_note)
			modbad = true;
		if (res[i].leaks > 0)
			leaked = true;
	}
	for (size_t i = 0; i < nres; i++) {
		for (unsigned int s = 0; s < res[i].nsplat && s < SPLAT_KEEP; s++)
			fprintf(m, "# nth %lu: %s\n", res[i].nth, res[i].splat[s]);
		if (res[i].mod_note)
			fprintf(m, "# nth %lu: module %s: %s\n", res[i].nth, sc->mod,
				res[i].mod_note);
		if (res[i].leaks > 0)
			fprintf(m, "# nth %lu: kmemleak: %ld unreferenced objects after failing %s\n",
				res[i].nth, res[i].leaks,
				res[i].caller && *res[i].caller ? res[i].caller : "nothing");
		for (unsigned int s = 0; s < res[i].nleak_line; s++)
			fprintf(m, "# nth %lu: kmemleak: %s\n", res[i].nth, res[i].leak_line[s]);
	}
	if (complete)
		fprintf(m, "# complete: run %zu injected nothing; %zu failure points\n", nres,
			nres - 1);
	else
		fprintf(m, "# incomplete: stopped after %zu runs\n", nres);
	for (size_t i = 0; i < nsp; i++)
		fprintf(m, "# spared: %lld allocations in %lu runs under %s (%s)\n",
			sp[i].allocations, sp[i].runs, sp[i].caller,
			!strcmp(sp[i].origin, "builtin") ?
			"built in: the kernel panics when it fails, docs/fault.md" :
			"exclude-caller");
	if (sc->mod)
		fprintf(m, "# module %s: %s\n", sc->mod, modbad ?
			"half-loaded after a run, or could not be unloaded (the sweep stopped)" :
			"gone or live after every run");
	if (sc->leaks_on)
		fprintf(m, "# kmemleak: %s\n", leaked ? "unreferenced objects after a run" :
			"no unreferenced object after any run");
	else if (sc->mod)
		fprintf(m, "# kmemleak: not checked (the kernel has no kmemleak file)\n");
	else
		fprintf(m, "# kmemleak: not checked (only a --module sweep scans for leaks)\n");
	fprintf(m, "# %s\n", splat ? "a run left a kernel splat or a new taint" :
		"no kernel splat, no new taint");
	return print_parsed(f, m, &text, &len, "sweep");
}

static int fault_sweep(struct fault *f)
{
	struct run_result *res = calloc(f->max_runs, sizeof(*res));
	struct mi_table *stats, *log;
	bool complete = false, splat = false;
	struct klog k = { .fd = -1 };
	struct spared sp[SPARED_KEEP] = { { 0 } };
	size_t nres = 0, nsp = 0;
	const char *mod = f->val[KNOB_MODULE];
	struct sweep_checks sc = { .mod = mod };
	bool modbad = false, leaked = false;
	double end;
	int st, rst;

	if (!res) {
		fprintf(stderr, "meminspect: out of memory\n");
		return ST_FORMAT;
	}
	st = klog_open(&k);
	if (st) {
		free(res);
		return st;
	}
	if (mod && !*mod)
		mod = sc.mod = NULL;
	if (mod) {
		char why[128];

		sc.was_loaded = mod_state(mod, why, sizeof(why)) != MOD_GONE;
	}
	/*
	 * kmemleak for a driver's init (--module) only: each scan waits out
	 * kmemleak's 5 s minimum age and walks all of memory, which a sweep of
	 * a program (tens to hundreds of runs) cannot afford; the debug lane's
	 * sweep of sysprog and two busybox applets went from minutes to past
	 * its 900 s with a scan after every run.
	 */
	sc.leaks_on = sc.mod && leak_open(&sc.leak, f->env->dir);
	st = apply_options(f);
	if (!st)
		st = open_armed();
	for (unsigned long n = 1; !st && n <= f->max_runs && !got_signal; n++) {
		struct run_result *r = &res[nres];
		unsigned long taint;
		char nth[24];
		int err;

		snprintf(nth, sizeof(nth), "%lu", n);
		err = write_knob(f, "nth", nth);
		if (err) {
			st = knob_error(f, "nth", nth, err, NULL);
			break;
		}
		f->changed[KNOB_NTH] = true;
		klog_read(&k, NULL);
		r->nth = n;
		st = run_once(f, &r->status);
		if (st)
			break;
		end = mono_now();
		nres++;
		st = load_fault(f, "stats", stats_fields, &stats);
		if (st)
			break;
		r->failed = sum_column(stats, "failed");
		r->matched = sum_column(stats, "matched");
		mi_table_free(stats);
		st = load_fault(f, "log", log_fields, &log);
		if (st)
			break;
		r->caller = r->failed ? last_caller(log) : NULL;
		mi_table_free(log);
		st = add_spared(f, sp, &nsp);
		if (st)
			break;
		klog_read(&k, r);
		if (k.tainted != ULONG_MAX && read_tainted(&k, &taint)) {
			r->new_taint = taint & ~k.tainted & ~TAINT_EXPECTED;
			k.tainted = taint;
		}
		if (r->nsplat || r->new_taint)
			splat = true;
		if (mod && !after_run_module(f, &sc, r))
			modbad = true;
		r->leaks = -1;
		if (sc.leaks_on) {
			r->leaks = leak_scan(&sc.leak, end);
			leak_take(&sc.leak, r->leak_line, &r->nleak_line);
			/* kmemleak's own line about that scan is the leaks column */
			k.own_scan = true;
			klog_read(&k, r);
			k.own_scan = false;
			if (r->nsplat)
				splat = true;
			if (r->leaks > 0)
				leaked = true;
		}
		if (modbad)
			break;
		if (r->failed == 0) {
			complete = true;
			break;
		}
	}
	close_armed();
	rst = restore_options(f);
	if (!st && nres)
		st = sweep_print(f, res, nres, complete, splat, sp, nsp, &sc);
	for (size_t i = 0; i < nres; i++)
		free_result(&res[i]);
	for (size_t i = 0; i < nsp; i++) {
		free(sp[i].caller);
		free(sp[i].origin);
	}
	free(res);
	klog_close(&k);
	free_saved(f);
	reraise();
	if (st)
		return st;
	if (splat)
		return ST_SPLAT;
	if (modbad)
		return ST_MODULE;
	if (leaked)
		return ST_LEAK;
	if (!complete)
		return ST_INCOMPLETE;
	return rst;
}

/* ---- options ---- */

const char fault_brief[] = "inject allocation failures: status, arm, disarm, set, run, sweep";

static const char fault_help[] =
	"Usage: meminspect [--dir DIR] fault status|arm|disarm [--json]\n"
	"       meminspect fault set KEY VALUE\n"
	"       meminspect fault run [AIM OPTIONS] [--json] -- COMMAND [ARG...]\n"
	"       meminspect fault sweep [AIM OPTIONS] [--max-runs N] [--command-output]\n"
	"                              [--json] -- COMMAND [ARG...]\n"
	"\n"
	"Drives the module's fault injector, /sys/kernel/debug/meminspect/fault/\n"
	"(docs/fault.md): fail chosen slab and page allocations on stock kernels.\n"
	"  status   settings, stats (per site: checked, matched, failed, nofail) and\n"
	"           the log of the last injected failures; --json: one object\n"
	"           {\"settings\": {...}, \"stats\": [...], \"log\": [...]}\n"
	"  arm, disarm\n"
	"  set KEY VALUE  write one knob (sites, probability, interval, times, space,\n"
	"           verbose, ignore-gfp-wait, ignore-gfp-highmem, min-order, max-order,\n"
	"           nth, aim-pid, aim-children, aim-comm, aim-cgroup, aim-cache,\n"
	"           aim-size, aim-module, aim-depth, exclude-caller, duration, armed);\n"
	"           '' for an empty value.\n"
	"           A value the kernel refuses is reported with its error, exit 6.\n"
	"  run      like the kernel's failcmd.sh: starts COMMAND stopped right after\n"
	"           its exec (ptrace), aims at it (aim-pid, with its children unless\n"
	"           --no-children), arms, lets it run, disarms when it ends (also on SIGINT, SIGTERM, SIGHUP,\n"
	"           SIGQUIT), prints stats and log, exits with COMMAND's status.\n"
	"  sweep    runs COMMAND with nth = 1, 2, 3, ... (one run each) until a run\n"
	"           injects nothing: every failure point of the command, once. Per\n"
	"           run: nth, exit status, failed, matched, kernel splats (the kernel\n"
	"           log lines matching scripts/splat-patterns), new taint bits, and\n"
	"           the caller of the injected allocation. The command's output goes\n"
	"           to /dev/null unless --command-output. '# spared' lines count\n"
	"           the allocations exclude-caller (or the built-in list) spared.\n"
	"           With --module NAME (loaded or not: `-- insmod NAME.ko` sweeps\n"
	"           its init), each run's module column says gone or live (never\n"
	"           half-loaded; live after a failing run: unloaded for the next\n"
	"           one unless it was loaded before the sweep), and where debugfs\n"
	"           has kmemleak it is scanned after each run (5 s after it,\n"
	"           kmemleak's minimum age): the leaks column counts what it found.\n"
	"run and sweep put every knob they changed back when they end. With no\n"
	"--sites and sites 'none', they use slab.\n"
	"\n"
	"Aim options (run and sweep; each writes the knob of that name, verbatim:\n"
	"the kernel checks the value):\n"
	"  --pid PID          aim-pid (default: the command's pid; 0: no pid aim)\n"
	"  --children, --no-children  aim-children (default: --children)\n"
	"  --comm NAME        aim-comm          --cgroup PATH   aim-cgroup\n"
	"  --cache NAME       aim-cache         --size MIN-MAX  aim-size (bytes)\n"
	"  --module NAME      aim-module        --depth N       aim-depth\n"
	"  --sites LIST       sites: slab, pages or slab,pages\n"
	"  --probability P, --interval N, --times N, --space BYTES,\n"
	"  --min-order N, --max-order N, --verbose N  the knob of that name\n"
	"  --ignore-gfp-wait[=Y|N], --ignore-gfp-highmem[=Y|N]\n"
	"  --exclude-caller F,G  exclude-caller: never fail allocations made under\n"
	"                     these functions (besides the module's built-in list of\n"
	"                     callers that panic when they fail)\n"
	"  --duration MS      duration: the module disarms itself MS ms after arming\n"
	"                     (each run), whatever the reader does\n"
	"  --from-exec        aim at the exec too: arm before COMMAND's execve(), as\n"
	"                     failcmd.sh does (the default arms after it)\n"
	"sweep only:\n"
	"  --max-runs N       stop after N runs (default 1000)\n"
	"  --command-output   keep the command's stdout and stderr\n"
	"Other options: -j, --json; -h, --help. --dir goes before 'fault'.\n"
	"\n"
	"Exit status: as for every command (0, 1 format, 2 usage, 3 no debugfs,\n"
	"4 no module or no fault/ in it, 5 not root), and\n"
	"  6  the kernel refused a knob write (the error is printed)\n"
	"  7  sweep: a run left a kernel splat or a new taint\n"
	"  8  sweep: --max-runs reached before a run injected nothing\n"
	"  9  sweep: --module's module half-loaded after a run, or not unloadable\n"
	"  10 sweep: kmemleak found unreferenced objects after a run\n"
	"run: COMMAND's exit status (128+N if killed by signal N; 127 not found,\n"
	"126 not executable) once COMMAND was started.\n";

void fault_usage(FILE *fp)
{
	fputs(fault_help, fp);
}

enum {
	O_PID = 256, O_CHILDREN, O_NO_CHILDREN, O_COMM, O_CGROUP, O_CACHE, O_SIZE, O_MODULE,
	O_DEPTH, O_SITES, O_PROBABILITY, O_INTERVAL, O_TIMES, O_SPACE, O_MIN_ORDER,
	O_MAX_ORDER, O_VERBOSE, O_GFP_WAIT, O_GFP_HIGHMEM, O_EXCLUDE_CALLER, O_DURATION,
	O_MAX_RUNS,
	O_COMMAND_OUTPUT, O_FROM_EXEC,
};

static const struct option fault_longopts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "pid", required_argument, NULL, O_PID },
	{ "children", no_argument, NULL, O_CHILDREN },
	{ "no-children", no_argument, NULL, O_NO_CHILDREN },
	{ "comm", required_argument, NULL, O_COMM },
	{ "cgroup", required_argument, NULL, O_CGROUP },
	{ "cache", required_argument, NULL, O_CACHE },
	{ "size", required_argument, NULL, O_SIZE },
	{ "module", required_argument, NULL, O_MODULE },
	{ "depth", required_argument, NULL, O_DEPTH },
	{ "sites", required_argument, NULL, O_SITES },
	{ "probability", required_argument, NULL, O_PROBABILITY },
	{ "interval", required_argument, NULL, O_INTERVAL },
	{ "times", required_argument, NULL, O_TIMES },
	{ "space", required_argument, NULL, O_SPACE },
	{ "min-order", required_argument, NULL, O_MIN_ORDER },
	{ "max-order", required_argument, NULL, O_MAX_ORDER },
	{ "verbose", required_argument, NULL, O_VERBOSE },
	{ "ignore-gfp-wait", optional_argument, NULL, O_GFP_WAIT },
	{ "ignore-gfp-highmem", optional_argument, NULL, O_GFP_HIGHMEM },
	{ "exclude-caller", required_argument, NULL, O_EXCLUDE_CALLER },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "max-runs", required_argument, NULL, O_MAX_RUNS },
	{ "command-output", no_argument, NULL, O_COMMAND_OUTPUT },
	{ "from-exec", no_argument, NULL, O_FROM_EXEC },
	{ NULL, 0, NULL, 0 },
};

/* option -> knob; NULL for options that are not knobs */
static const char *const opt_knob[] = {
	[O_PID - O_PID] = "aim-pid", [O_CHILDREN - O_PID] = "aim-children",
	[O_NO_CHILDREN - O_PID] = "aim-children", [O_COMM - O_PID] = "aim-comm",
	[O_CGROUP - O_PID] = "aim-cgroup", [O_CACHE - O_PID] = "aim-cache",
	[O_SIZE - O_PID] = "aim-size", [O_MODULE - O_PID] = "aim-module",
	[O_DEPTH - O_PID] = "aim-depth", [O_SITES - O_PID] = "sites",
	[O_PROBABILITY - O_PID] = "probability", [O_INTERVAL - O_PID] = "interval",
	[O_TIMES - O_PID] = "times", [O_SPACE - O_PID] = "space",
	[O_MIN_ORDER - O_PID] = "min-order", [O_MAX_ORDER - O_PID] = "max-order",
	[O_VERBOSE - O_PID] = "verbose", [O_GFP_WAIT - O_PID] = "ignore-gfp-wait",
	[O_GFP_HIGHMEM - O_PID] = "ignore-gfp-highmem",
	[O_EXCLUDE_CALLER - O_PID] = "exclude-caller", [O_DURATION - O_PID] = "duration",
};

__attribute__((format(printf, 1, 2)))
static int fault_bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("meminspect: fault: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'meminspect fault --help'.\n", stderr);
	return ST_USAGE;
}

/* Options from argv[optind] on; stops at the first non-option or after "--". */
static int fault_options(struct fault *f, int argc, char **argv, bool aims)
{
	unsigned long long n;
	int opt, li;

	while ((opt = getopt_long(argc, argv, "+:jh", fault_longopts, &li)) != -1) {
		switch (opt) {
		case 'j':
			f->json = true;
			continue;
		case 'h':
			fault_usage(stdout);
			return -1;
		case ':':
			return fault_bad_usage("option '%s' needs an argument", argv[optind - 1]);
		case '?':
			if (!optopt)
				return fault_bad_usage("unknown option '%s'", argv[optind - 1]);
			if (strchr("jh", optopt))
				return fault_bad_usage("option '%s' takes no argument",
						       argv[optind - 1]);
			return fault_bad_usage("unknown option '-%c'", optopt);
		case O_MAX_RUNS:
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 1000000)
				return fault_bad_usage("--max-runs takes a number from 1 to 1000000, not '%s'",
						       optarg);
			f->max_runs = (unsigned long)n;
			continue;
		case O_COMMAND_OUTPUT:
			f->command_output = true;
			continue;
		case O_FROM_EXEC:
			if (!aims)
				return fault_bad_usage("'%s' is an option of run and sweep",
						       argv[optind - 1]);
			f->from_exec = true;
			continue;
		default:
			break;
		}
		if (!aims)
			return fault_bad_usage("'%s' is an option of run and sweep",
					       argv[optind - 1]);
		int k = knob_index(opt_knob[opt - O_PID]);
		const char *v = optarg;

		if (opt == O_CHILDREN)
			v = "Y";
		else if (opt == O_NO_CHILDREN)
			v = "N";
		else if ((opt == O_GFP_WAIT || opt == O_GFP_HIGHMEM) && !v)
			v = "Y";
		if (strchr(v, '\n'))
			return fault_bad_usage("--%s: a value is one line", fault_longopts[li].name);
		f->val[k] = v;
		f->opt[k] = fault_longopts[li].name;
		if (opt == O_PID)
			f->pid_given = true;
	}
	return 0;
}

int fault_main(const struct fault_env *env, int argc, char **argv)
{
	struct fault f = { .env = env, .json = env->json, .max_runs = 1000, .sub = "" };
	static const char *const subs[] = { "status", "arm", "disarm", "set", "run", "sweep" };
	int st, first;

	opterr = 0;
	optind = 0;
	st = fault_options(&f, argc, argv, false);
	if (st)
		return st < 0 ? ST_OK : st;
	if (optind >= argc)
		return fault_bad_usage("missing subcommand: status, arm, disarm, set, run or sweep");
	first = optind;
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(argv[first], subs[i]))
			f.sub = subs[i];
	if (!*f.sub)
		return fault_bad_usage("unknown subcommand '%s'", argv[first]);
	argc -= first;
	argv += first;
	optind = 0;
	st = fault_options(&f, argc, argv, !strcmp(f.sub, "run") || !strcmp(f.sub, "sweep"));
	if (st)
		return st < 0 ? ST_OK : st;
	if (strcmp(f.sub, "sweep") && (f.max_runs != 1000 || f.command_output))
		return fault_bad_usage("--max-runs and --command-output are sweep options");
	snprintf(f.path, sizeof(f.path), "%s/fault", env->dir);
	snprintf(armed_path, sizeof(armed_path), "%s/armed", f.path);

	if (!strcmp(f.sub, "set")) {
		if (argc - optind != 2)
			return fault_bad_usage("set takes KEY VALUE");
	} else if (!strcmp(f.sub, "run") || !strcmp(f.sub, "sweep")) {
		if (optind >= argc)
			return fault_bad_usage("%s needs a COMMAND (after --)", f.sub);
		f.cmd = argv + optind;
		if (!f.val[KNOB_CHILDREN])
			f.val[KNOB_CHILDREN] = "Y";
	} else if (optind < argc) {
		return fault_bad_usage("unexpected argument '%s'", argv[optind]);
	}
	st = check_fault_dir(&f);
	if (st)
		return st;
	if (!strcmp(f.sub, "status"))
		return fault_status(&f);
	if (!strcmp(f.sub, "arm") || !strcmp(f.sub, "disarm"))
		return fault_arm(&f, !strcmp(f.sub, "arm"));
	if (!strcmp(f.sub, "set"))
		return fault_set(&f, argv[optind], argv[optind + 1]);
	catch_stop_signals();
	if (!strcmp(f.sub, "run"))
		return fault_run(&f);
	return fault_sweep(&f);
}
