/* SPDX-License-Identifier: GPL-2.0 */
/*
 * meminspect fault, the reader's fault command: what its files share.
 * fault.c: options and dispatch; fault_knob.c: signals, the knob files,
 * status, arm, disarm, set; fault_run.c: run; fault_sweep.c: sweep;
 * fault_klog.c: sweep's kernel log and taint checks.
 */
#ifndef MI_FAULT_PRIV_H
#define MI_FAULT_PRIV_H

#include "access.h"
#include "fault.h"
#include "output.h"
#include "parse.h"
#include "status.h"
#include "sweepcheck.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

extern const char *const settings_fields[];
extern const char *const stats_fields[];
extern const char *const log_fields[];

/*
 * The knobs are the module's: fault/settings lists them, one record each,
 * in docs/fault.md's order (run writes them in that order). The reader
 * names only the ones it drives itself; each is looked up in settings.
 */
#define KNOB_SITES "sites"
#define KNOB_NTH "nth"
#define KNOB_PID "aim-pid"
#define KNOB_CHILDREN "aim-children"
#define KNOB_MODULE "aim-module"
#define KNOB_ARMED "armed"
#define KNOB_LINGER "linger"
/*
 * What a sweep writes to linger (ms): the probes stay attached, inert,
 * from one run's disarm to the next run's arming (a run's reads and
 * checks, a module's unload, a kmemleak scan's 5 s wait), instead of being
 * unregistered and registered again at every run (docs/fault.md).
 */
#define SWEEP_LINGER_MS "15000"

/* One of the module's knobs, as a record of fault/settings. */
struct knob {
	const char *name;	/* its key (the settings table owns it) */
	const char *val;	/* to write, from an option; NULL: leave alone */
	const char *opt;	/* the option that gave val, for messages */
	char *saved;		/* run, sweep: its value before, to put back */
	bool changed;		/* run, sweep: written, to be put back */
};

/* An option's value for a knob, given before the module's list is read. */
struct given {
	const char *knob, *val, *opt;
};

#define NGIVEN 32

/* At most this many spared callers reported by a sweep. */
#define SPARED_KEEP 32

/* A caller that exclude-caller (or the module's built-in list) spared. */
struct spared {
	char *caller, *origin;
	long long allocations;
	unsigned long runs;
};

/* At most this many splat lines, report names and kmemleak lines kept per run. */
#define SPLAT_KEEP 4
#define LEAK_KEEP 4

struct run_result {
	unsigned long nth;
	int status;		/* exit status, 128 + signal if killed */
	long long failed, matched;
	unsigned int nsplat;
	char *splat[SPLAT_KEEP];
	/* the kernel's own reports of the injected failure, by their first line */
	unsigned int nreport;
	char *report[SPLAT_KEEP];
	unsigned long new_taint;
	char *caller;		/* NULL: none in the log */
	/* --module: the module after the run (sweepcheck.h) */
	enum mod_state mod;
	bool unloaded;		/* live, unloaded for the next run */
	/* its module_load and module_free trace events in the run; -1: not traced */
	int loads, frees;
	bool reloaded;		/* loaded again after its init failed in the same run */
	char *mod_note;		/* why it is half-loaded, or why it could not be unloaded */
	/* the pids handed out from the run's start to its end: its tasks */
	long pid_first, pid_last;
	long leaks;		/* kmemleak's unreferenced objects; -1: not scanned */
	char *leak_line[LEAK_KEEP];
	unsigned int nleak_line;
};

struct fault {
	const struct fault_env *env;
	const char *sub;		/* the subcommand */
	bool json;
	struct given given[NGIVEN];	/* from the options, one per knob (the last wins) */
	size_t ngiven;
	unsigned long max_runs;
	bool command_output;
	bool from_exec;			/* aim at the exec too (failcmd.sh's way) */
	char **cmd;
	/* load_knobs(): fault/settings and a struct knob per record */
	struct mi_table *settings;
	struct knob *knob;
	size_t nknobs;
	char path[PATH_MAX];		/* dir/fault */
};

/* fault_knob.c: the signal state run and sweep share */
#define NSTOP 4
extern const int stop_signals[NSTOP];
extern volatile sig_atomic_t fault_got_signal;
extern volatile pid_t fault_child;
extern char armed_path[PATH_MAX + 16];	/* dir/fault/armed, for the handler */

struct json;

/* fault_klog.c: the kernel log and taint, for sweep */
struct klog;
int klog_open(struct klog **k);
void klog_close(struct klog *k);
/* Everything logged since the last call, sorted into @res; NULL: skip it. */
void klog_read(struct klog *k, struct run_result *res);
/* kmemleak's line about the sweep's own scan is the leaks column, not a splat */
void klog_own_scan(struct klog *k, bool on);
/* Taint bits set since the last call, but those loading a module sets. */
unsigned long klog_new_taint(struct klog *k);

void catch_stop_signals(void);
void block_stop_signals(bool block, sigset_t *old);
void reraise(void);
const char *given_val(const struct fault *f, const char *knob);
int give(struct fault *f, const char *knob, const char *val, const char *opt);
int load_knobs(struct fault *f);
struct knob *knob_find(const struct fault *f, const char *name);
struct knob *knob_need(const struct fault *f, const char *name);
void free_knobs(struct fault *f);
int write_knob(const struct fault *f, const char *knob, const char *value);
int write_armed(const struct fault *f, const char *value);
int open_armed(const struct fault *f);
void close_armed(void);
int knob_error(const struct fault *f, const char *knob, const char *value, int err,
	       const char *opt);
int load_fault(const struct fault *f, const char *file, const char *const *fields,
	       struct mi_table **t);
int check_fault_dir(const struct fault *f);
const char *knob_text(const char *v);
int print_built(const struct fault *f, struct mi_table *t);
int print_section(const struct fault *f, const char *title, const struct mi_table *t,
		  bool first);
int fault_status(struct fault *f);
int fault_arm(struct fault *f, bool arm);
int fault_set(struct fault *f, const char *knob, const char *value);
int apply_options(struct fault *f);
int restore_options(struct fault *f);
int run_once(struct fault *f, int *status, long *child);
long long sum_column(const struct mi_table *t, const char *field);
void json_command(struct json *j, char **cmd);
void json_stats_log(struct json *j, const struct mi_table *stats, const struct mi_table *log);
int fault_run(struct fault *f);
int fault_sweep(struct fault *f);

#endif
