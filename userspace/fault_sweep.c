// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect fault sweep: run with nth = 1, 2, 3, ... until a run injects
 * nothing, with the kernel log, taint and --module checks after each run.
 */
#include "fault_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const excluded_fields[] = {
	"caller", "origin", "present", "spared", NULL };

static void free_result(struct run_result *r)
{
	for (unsigned int i = 0; i < r->nsplat && i < SPLAT_KEEP; i++)
		free(r->splat[i]);
	for (unsigned int i = 0; i < r->nreport && i < SPLAT_KEEP; i++)
		free(r->report[i]);
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

/* What sweep checks besides the kernel log: --module's module, its loads, kmemleak. */
struct sweep_checks {
	const char *mod;	/* --module, NULL: none */
	bool was_loaded;	/* loaded before the first run: never unloaded */
	struct load_trace loads;	/* its module_load/module_free events */
	char loads_why[240];		/* why they are not traced */
	bool leaks_on;		/* kmemleak is there */
	bool leak_failed;	/* its scan failed: nothing known */
	struct leak_scan leak;
	/* unreferenced objects of no run's task (kernel threads, interrupts) */
	long leaks_outside;
	char *outside_line[LEAK_KEEP];
	unsigned int noutside;
};

/* Did kmemleak find anything, charged to a run or apart? */
static bool sweep_leaked(const struct sweep_checks *sc, const struct run_result *res,
			 size_t nres)
{
	if (sc->leaks_outside > 0)
		return true;
	for (size_t i = 0; i < nres; i++)
		if (res[i].leaks > 0)
			return true;
	return false;
}

/*
 * One kmemleak scan after the last run, each unreferenced object charged
 * to the run whose tasks allocated it: its pid is one of those handed out
 * while that run ran (the command, its children and threads, and whatever
 * else started meanwhile).  The rest (kernel threads started before the
 * sweep, interrupts: pid 0) are counted apart.  One scan, not one per run:
 * each waits out kmemleak's 5 s minimum age and walks all of memory.
 */
static void sweep_leaks(struct sweep_checks *sc, struct run_result *res, size_t nres,
			double end)
{
	struct leak_obj *o;
	long n = leak_scan(&sc->leak, end, &o);

	if (n < 0) {
		sc->leak_failed = true;
		for (size_t j = 0; j < nres; j++)
			res[j].leaks = -1;
		return;
	}
	for (long i = 0; i < n; i++) {
		struct run_result *r = NULL;
		char note[128], **line;
		unsigned int *nline;

		for (size_t j = 0; j < nres && !r; j++)
			if (pid_in(o[i].pid, res[j].pid_first, res[j].pid_last))
				r = &res[j];
		if (r) {
			r->leaks++;
			line = r->leak_line;
			nline = &r->nleak_line;
		} else {
			sc->leaks_outside++;
			line = sc->outside_line;
			nline = &sc->noutside;
		}
		if (*nline >= LEAK_KEEP)
			continue;
		snprintf(note, sizeof(note), "%ssize %ld, comm %s, pid %ld",
			 o[i].percpu ? "percpu, " : "", o[i].size, o[i].comm, o[i].pid);
		line[*nline] = strdup(note);
		if (line[*nline])
			(*nline)++;
	}
	free(o);
}

/*
 * --module: after a run the module must be gone or live, never on its way
 * (docs/fault-sweep.md). Live after a run that failed something, and not
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

/*
 * --module: how often the kernel loaded and freed the module during the
 * run (its trace events).  Loaded twice, freed in between, in a run that
 * failed something: its init failed and COMMAND loaded it again, as
 * busybox's insmod does (init_module() after a failed finit_module()), so
 * the exit status and module state are the second load's.
 */
static void run_loads(struct sweep_checks *sc, struct run_result *r)
{
	if (!sc->loads.dir[0] || !load_trace_count(&sc->loads, sc->mod, &r->loads, &r->frees)) {
		r->loads = -1;
		r->frees = -1;
		return;
	}
	r->reloaded = r->loads >= 2 && r->frees >= 1 && r->failed > 0;
}

static size_t nreloaded(const struct run_result *res, size_t nres)
{
	size_t n = 0;

	for (size_t i = 0; i < nres; i++)
		n += res[i].reloaded;
	return n;
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

/* The sweep table: one record per run, in sweep_print()'s column order. */
static const char *const sweep_fields[] = {
	"nth", "exit", "failed", "matched", "splats", "reports", "new_taint", "module", "loads",
	"leaks", "caller", NULL };
enum { SW_NTH, SW_EXIT, SW_FAILED, SW_MATCHED, SW_SPLATS, SW_REPORTS, SW_TAINT, SW_MODULE,
	SW_LOADS, SW_LEAKS, SW_CALLER };

/* Why `excluded` spares a caller, by its origin, for the sweep's notes. */
static const char *spared_why(const char *origin)
{
	if (!strcmp(origin, "builtin"))
		return "built in: the kernel panics when it fails, docs/fault.md";
	if (!strcmp(origin, "pagefault"))
		return "a page fault: the kernel retries it, ignore-pagefault, docs/fault.md";
	return "exclude-caller";
}

/* The note on the module's loads: what a row with loads 2 means. */
static void loads_notes(struct mi_table *t, const struct run_result *res, size_t nres,
			const struct sweep_checks *sc)
{
	size_t n = nreloaded(res, nres);

	if (!sc->mod)
		return;
	if (!sc->loads.dir[0]) {
		mi_table_add_note(t, "module %s: loads not checked (%s)", sc->mod, sc->loads_why);
		return;
	}
	if (!n)
		return;
	mi_table_add_note(t,
			  "module %s: loaded twice in %zu of %zu runs (loads; the kernel's module_load and module_free events): its init failed and COMMAND loaded it again, as busybox's insmod does (init_module() after a failed finit_module()); those rows show the second load's exit and module state, not the failure. Load with one finit_module() call: kmod's insmod, or modprobe",
			  sc->mod, n, nres);
}

static int sweep_print(struct fault *f, struct run_result *res, size_t nres, bool complete,
		       bool splat, const struct spared *sp, size_t nsp,
		       const struct sweep_checks *sc)
{
	bool modbad = false, leaked = sweep_leaked(sc, res, nres);
	size_t nrep = 0;
	struct mi_table *t;
	struct mi_error e;
	char num[24];
	struct json j;

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
			JNUM("reports", "%u", r->nreport);
			json_key(&j, "report_lines");
			json_begin_array(&j);
			for (unsigned int s = 0; s < r->nreport && s < SPLAT_KEEP; s++)
				json_string(&j, r->report[s]);
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
			if (r->loads >= 0) {
				JNUM("module_loads", "%d", r->loads);
			} else {
				json_key(&j, "module_loads");
				json_null(&j);
			}
			json_key(&j, "module_reloaded");
			json_value(&j, r->reloaded ? "1" : "0");
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
		if (sc->mod && sc->loads.dir[0]) {
			JNUM("module_reloads", "%zu", nreloaded(res, nres));
		} else {
			json_key(&j, "module_reloads");
			json_null(&j);
		}
		json_key(&j, "kmemleak");
		json_value(&j, sc->leaks_on ? "1" : "0");
		json_key(&j, "leaked");
		if (sc->leaks_on && !sc->leak_failed)
			json_value(&j, leaked ? "1" : "0");
		else
			json_null(&j);
		if (sc->leaks_on && !sc->leak_failed) {
			JNUM("leaks_outside", "%ld", sc->leaks_outside);
		} else {
			json_key(&j, "leaks_outside");
			json_null(&j);
		}
		json_key(&j, "outside_leak_lines");
		json_begin_array(&j);
		for (unsigned int s = 0; s < sc->noutside; s++)
			json_string(&j, sc->outside_line[s]);
		json_end_array(&j);
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
	t = mi_table_new("sweep", sweep_fields, &e);
	if (!t) {
		fprintf(stderr, "meminspect: %s\n", e.msg);
		return ST_FORMAT;
	}
	for (size_t i = 0; i < nres; i++) {
		long rec = mi_table_add_record(t);

		if (rec < 0)
			break;
		mi_table_setf(t, rec, SW_NTH, "%lu", res[i].nth);
		mi_table_setf(t, rec, SW_EXIT, "%d", res[i].status);
		mi_table_setf(t, rec, SW_FAILED, "%lld", res[i].failed);
		mi_table_setf(t, rec, SW_MATCHED, "%lld", res[i].matched);
		mi_table_setf(t, rec, SW_SPLATS, "%u", res[i].nsplat);
		mi_table_setf(t, rec, SW_REPORTS, "%u", res[i].nreport);
		mi_table_setf(t, rec, SW_TAINT, "%lu", res[i].new_taint);
		mi_table_set(t, rec, SW_MODULE, mod_word(sc, &res[i]));
		if (res[i].loads >= 0)
			mi_table_setf(t, rec, SW_LOADS, "%d", res[i].loads);
		if (res[i].leaks >= 0)
			mi_table_setf(t, rec, SW_LEAKS, "%ld", res[i].leaks);
		if (res[i].caller && *res[i].caller)
			mi_table_set(t, rec, SW_CALLER, res[i].caller);
		if (res[i].mod_note)
			modbad = true;
	}
	for (size_t i = 0; i < nres; i++) {
		for (unsigned int s = 0; s < res[i].nsplat && s < SPLAT_KEEP; s++)
			mi_table_add_note(t, "nth %lu: %s", res[i].nth, res[i].splat[s]);
		for (unsigned int s = 0; s < res[i].nreport && s < SPLAT_KEEP; s++)
			mi_table_add_note(t, "nth %lu: report: %s", res[i].nth, res[i].report[s]);
		if (res[i].mod_note)
			mi_table_add_note(t, "nth %lu: module %s: %s", res[i].nth, sc->mod,
					  res[i].mod_note);
		if (res[i].leaks > 0)
			mi_table_add_note(t,
					  "nth %lu: kmemleak: %ld unreferenced objects after failing %s",
					  res[i].nth, res[i].leaks,
					  res[i].caller && *res[i].caller ? res[i].caller : "nothing");
		for (unsigned int s = 0; s < res[i].nleak_line; s++)
			mi_table_add_note(t, "nth %lu: kmemleak: %s", res[i].nth,
					  res[i].leak_line[s]);
	}
	if (complete)
		mi_table_add_note(t, "complete: run %zu injected nothing; %zu failure points",
				  nres, nres - 1);
	else
		mi_table_add_note(t, "incomplete: stopped after %zu runs", nres);
	for (size_t i = 0; i < nsp; i++)
		mi_table_add_note(t, "spared: %lld allocations in %lu runs under %s (%s)",
				  sp[i].allocations, sp[i].runs, sp[i].caller,
				  spared_why(sp[i].origin));
	if (sc->mod)
		mi_table_add_note(t, "module %s: %s", sc->mod, modbad ?
				  "half-loaded after a run, or could not be unloaded (the sweep stopped)" :
				  "gone or live after every run");
	loads_notes(t, res, nres, sc);
	if (sc->leaks_outside > 0)
		mi_table_add_note(t, "kmemleak: %ld unreferenced objects of no run's task",
				  sc->leaks_outside);
	for (unsigned int s = 0; s < sc->noutside; s++)
		mi_table_add_note(t, "kmemleak: %s", sc->outside_line[s]);
	if (sc->leak_failed)
		mi_table_add_note(t, "kmemleak: not checked (its scan failed)");
	else if (sc->leaks_on)
		mi_table_add_note(t, "kmemleak: %s", leaked ? "unreferenced objects after the sweep" :
				  "no unreferenced object after the sweep");
	else if (sc->mod)
		mi_table_add_note(t, "kmemleak: not checked (the kernel has no kmemleak file)");
	else
		mi_table_add_note(t, "kmemleak: not checked (only a --module sweep scans for leaks)");
	for (size_t i = 0; i < nres; i++)
		nrep += res[i].nreport;
	if (nrep)
		mi_table_add_note(t, "kernel reports: %zu stack dumps were the kernel's own reports of a failure injected in their run (named above), not splats",
				  nrep);
	mi_table_add_note(t, "%s", splat ? "a run left a kernel splat or a new taint" :
			  "no kernel splat, no new taint");
	return print_built(f, t);
}

/*
 * Keep the probes attached between the runs (the module's linger knob,
 * where it has one, and the user has not set it): a run's arming and
 * disarming then cost no kprobe registration.  restore_options() puts the
 * knob back, and that write detaches the probes.
 */
static int sweep_linger(struct fault *f)
{
	struct knob *k = knob_find(f, KNOB_LINGER);
	int err;

	if (!k || given_val(f, KNOB_LINGER) || strcmp(k->saved, "0"))
		return ST_OK;
	err = write_knob(f, k->name, SWEEP_LINGER_MS);
	if (err)
		return knob_error(f, k->name, SWEEP_LINGER_MS, err, NULL);
	k->changed = true;
	return ST_OK;
}

int fault_sweep(struct fault *f)
{
	struct run_result *res = calloc(f->max_runs, sizeof(*res));
	struct mi_table *stats, *log;
	bool complete = false, splat = false;
	struct klog *k;
	struct spared sp[SPARED_KEEP] = { { 0 } };
	size_t nres = 0, nsp = 0;
	const char *mod = given_val(f, KNOB_MODULE);
	struct sweep_checks sc = { .mod = mod };
	struct knob *nthk;
	bool modbad = false, leaked = false;
	double end = 0;
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
		/*
		 * How often it loads in a run: the kernel's own record, not
		 * a guess from the module's state after it (a loader that
		 * retries ends with the module live as if its init had
		 * absorbed the failure).
		 */
		load_trace_open(&sc.loads, f->env->dir, sc.loads_why, sizeof(sc.loads_why));
	}
	/*
	 * kmemleak for a driver's init (--module) only: there a leak is the
	 * driver's error path; a program's sweep would charge its failure
	 * points with whatever the rest of the kernel leaks meanwhile.  One
	 * scan after the last run (sweep_leaks()).
	 */
	sc.leaks_on = sc.mod && leak_open(&sc.leak, f->env->dir);
	st = apply_options(f);
	nthk = st ? NULL : knob_need(f, KNOB_NTH);
	if (!st && !nthk)
		st = ST_FORMAT;
	if (!st)
		st = sweep_linger(f);
	if (!st)
		st = open_armed(f);
	for (unsigned long n = 1; !st && n <= f->max_runs && !fault_got_signal; n++) {
		struct run_result *r = &res[nres];
		char nth[24];
		int err;

		snprintf(nth, sizeof(nth), "%lu", n);
		err = write_knob(f, nthk->name, nth);
		if (err) {
			st = knob_error(f, nthk->name, nth, err, NULL);
			break;
		}
		nthk->changed = true;
		klog_read(k, NULL);
		load_trace_clear(&sc.loads);
		r->nth = n;
		r->pid_first = -1;
		st = run_once(f, &r->status, &r->pid_first);
		if (st)
			break;
		end = mono_now();
		r->pid_last = last_pid();
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
		klog_read(k, r);
		r->new_taint = klog_new_taint(k);
		if (r->nsplat || r->new_taint)
			splat = true;
		r->loads = -1;
		r->frees = -1;
		if (mod) {
			run_loads(&sc, r);
			if (!after_run_module(f, &sc, r))
				modbad = true;
		}
		r->leaks = sc.leaks_on ? 0 : -1;
		if (modbad)
			break;
		if (r->failed == 0) {
			complete = true;
			break;
		}
	}
	close_armed();
	rst = restore_options(f);
	if (!st && nres && sc.leaks_on && !fault_got_signal) {
		sweep_leaks(&sc, res, nres, end);
		/* kmemleak's own line about that scan is the leaks column */
		klog_own_scan(k, true);
		klog_read(k, &res[nres - 1]);
		klog_own_scan(k, false);
		if (res[nres - 1].nsplat)
			splat = true;
		leaked = sweep_leaked(&sc, res, nres);
	}
	if (!st && nres)
		st = sweep_print(f, res, nres, complete, splat, sp, nsp, &sc);
	for (size_t i = 0; i < nres; i++)
		free_result(&res[i]);
	for (size_t i = 0; i < nsp; i++) {
		free(sp[i].caller);
		free(sp[i].origin);
	}
	for (unsigned int i = 0; i < sc.noutside; i++)
		free(sc.outside_line[i]);
	leak_close(&sc.leak);
	free(res);
	load_trace_close(&sc.loads);
	klog_close(k);
	free_knobs(f);
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
