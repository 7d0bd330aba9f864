// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect fault run: the command started stopped after its exec,
 * aimed at, armed, waited for; its knobs put back.
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

/* ---- run and sweep ---- */

/*
 * Read the module's knobs and remember their values, then write every knob
 * the options name, in settings' order (aim-pid is written at the exec).
 */
int apply_options(struct fault *f)
{
	struct knob *sites, *armed;
	int st = load_knobs(f);

	if (st)
		return st;
	sites = knob_need(f, KNOB_SITES);
	armed = knob_need(f, KNOB_ARMED);
	if (!sites || !armed || !knob_need(f, KNOB_PID))
		return ST_FORMAT;
	for (size_t i = 0; i < f->nknobs; i++) {
		f->knob[i].saved = strdup(knob_text(mi_get(f->settings, i, "value")));
		if (!f->knob[i].saved) {
			fprintf(stderr, "meminspect: out of memory\n");
			return ST_FORMAT;
		}
	}
	if (!strcmp(armed->saved, "1")) {
		fprintf(stderr, "meminspect: fault %s: the injector is already armed (meminspect fault disarm first)\n",
			f->sub);
		return ST_REFUSED;
	}
	/* nothing to attach: slab, as failcmd.sh defaults to failslab */
	if (!sites->val && !strcmp(sites->saved, "none")) {
		sites->val = "slab";
		sites->opt = "--sites (default)";
	}
	for (size_t i = 0; i < f->nknobs; i++) {
		struct knob *k = &f->knob[i];
		int err;

		if (!k->val || k == armed || !strcmp(k->name, KNOB_PID))
			continue;
		err = write_knob(f, k->name, k->val);
		if (err)
			return knob_error(f, k->name, k->val, err, k->opt);
		k->changed = true;
	}
	return ST_OK;
}

/* Put back what apply_options() and the runs changed (the injector is disarmed). */
int restore_options(struct fault *f)
{
	int st = ST_OK;

	for (size_t i = f->nknobs; i-- > 0;) {
		struct knob *k = &f->knob[i];
		int err;

		if (!k->changed)
			continue;
		err = write_knob(f, k->name, k->saved);
		if (err) {
			fprintf(stderr, "meminspect: fault %s: warning: could not put %s back to '%s': %s\n",
				f->sub, k->name, k->saved, strerror(-err));
			st = ST_REFUSED;
		}
		k->changed = false;
	}
	return st;
}

/*
 * The fault_child. --from-exec: waits for one byte on the pipe (EOF: the reader
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
 * Wait until the traced fault_child @pid stops after its exec (true), or ends
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
 * disarm. *status is the command's exit status; *@child (when not NULL)
 * its pid. Returns the reader's status: non-zero if the command was not run.
 */
int run_once(struct fault *f, int *status, long *child)
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
	fault_child = pid;
	if (child)
		*child = pid;
	if (!f->from_exec) {
		/* signals that come while it execs are passed on to it */
		block_stop_signals(false, &old);
		stopped = wait_exec_stop(pid, status);
		exited = !stopped;
		block_stop_signals(true, &old);
	}
	/* the aim, then arming, with the stop signals held: the handler disarms after */
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)pid);
	struct knob *pk = knob_find(f, KNOB_PID);	/* apply_options() found it */
	const char *aim = pk->val ? pk->val : pidbuf;

	if (stopped && !fault_got_signal) {
		err = write_knob(f, pk->name, aim);
		if (err) {
			st = knob_error(f, pk->name, aim, err, pk->val ? "--pid" : NULL);
		} else {
			pk->changed = true;
			err = write_armed(f, "1");
			if (err)
				st = knob_error(f, "armed", "1", err, NULL);
		}
	}
	block_stop_signals(false, &old);
	if (f->from_exec) {
		if (!st && !fault_got_signal && write(p[1], "x", 1) != 1)
			st = ST_FORMAT;
	} else if (stopped) {
		/* not armed as asked: the command must not run unaimed */
		if (st)
			kill(pid, SIGKILL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	close(p[1]);		/* without the byte: EOF, the fault_child exits 125 */
	if (!exited)
		*status = wait_status(pid);
	fault_child = 0;
	err = write_armed(f, "0");
	if (err && !st)
		st = knob_error(f, "armed", "0", err, NULL);
	return st;
}

long long sum_column(const struct mi_table *t, const char *field)
{
	long long sum = 0, v;

	for (size_t r = 0; r < mi_nrecords(t); r++)
		if (!mi_parse_s64(mi_get(t, r, field), &v))
			sum += v;
	return sum;
}

void json_command(struct json *j, char **cmd)
{
	json_begin_array(j);
	for (; *cmd; cmd++)
		json_string(j, *cmd);
	json_end_array(j);
}

int fault_run(struct fault *f)
{
	struct mi_table *stats = NULL, *log = NULL;
	int st, rst, status = 0;
	char num[24];
	struct json j;

	st = apply_options(f);
	if (!st)
		st = open_armed(f);
	if (!st)
		st = run_once(f, &status, NULL);
	close_armed();
	rst = restore_options(f);
	if (st) {
		free_knobs(f);
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
		json_stats_log(&j, stats, log);
	} else if (!st) {
		st = print_section(f, "stats", stats, true);
		if (!st)
			st = print_section(f, "log", log, false);
		printf("# %s exited with status %d\n", f->cmd[0], status);
	}
	mi_table_free(stats);
	mi_table_free(log);
	free_knobs(f);
	reraise();
	if (st)
		return st;
	return rst ? rst : status;
}
