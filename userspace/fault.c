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
#include "cli.h"
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
	"  status   settings, stats (per site: checked, matched, failed, nofail,\n"
	"           spared) and the log of the last injected failures; --json:\n"
	"           one object\n"
	"           {\"settings\": {...}, \"stats\": [...], \"log\": [...]}\n"
	"  arm, disarm\n"
	"  set KEY VALUE  write one knob: KEY is one of the loaded module's knobs,\n"
	"           as its fault/settings lists them (status shows them; an unknown\n"
	"           KEY is a usage error that lists them); '' for an empty value.\n"
	"           A value the kernel refuses is reported with its error, exit 6.\n"
	"  run      like the kernel's failcmd.sh: starts COMMAND stopped right after\n"
	"           its exec (ptrace), aims at it (aim-pid, with its children unless\n"
	"           --no-children), arms, lets it run, disarms when it ends (also on SIGINT, SIGTERM, SIGHUP,\n"
	"           SIGQUIT), prints stats and log, exits with COMMAND's status.\n"
	"  sweep    runs COMMAND with nth = 1, 2, 3, ... (one run each) until a run\n"
	"           injects nothing: every failure point of the command, once. Per\n"
	"           run: nth, exit status, failed, matched, kernel splats (the kernel\n"
	"           log lines matching scripts/splat-patterns), reports (stack dumps\n"
	"           that are the kernel's own report of the injected failure, named\n"
	"           in a note: not splats), new taint bits, and the caller of the\n"
	"           injected allocation. The command's output goes\n"
	"           to /dev/null unless --command-output. '# spared' lines count\n"
	"           the allocations exclude-caller (or the built-in list) spared.\n"
	"           With --module NAME (loaded or not: `-- insmod NAME.ko` sweeps\n"
	"           its init), each run's module column says gone or live (never\n"
	"           half-loaded; live after a failing run: unloaded for the next\n"
	"           one unless it was loaded before the sweep), its loads column how\n"
	"           often the kernel loaded it (tracefs; 2 after a failure: the\n"
	"           loader retried, as busybox's insmod does), and where debugfs\n"
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
	"  --include-pagefault  ignore-pagefault N: fail allocations made while\n"
	"                     handling a page fault too (by default they are spared\n"
	"                     and counted in stats' spared: the kernel retries such a\n"
	"                     fault, so the program would never see the failure);\n"
	"                     --ignore-pagefault[=Y|N] writes the knob as given\n"
	"  --exclude-caller F,G  exclude-caller: never fail allocations made under\n"
	"                     these functions (besides the module's built-in list of\n"
	"                     callers that panic when they fail)\n"
	"  --duration MS      duration: the module disarms itself MS ms after arming\n"
	"                     (each run), whatever the reader does\n"
	"  --from-exec        aim at the exec too: arm before COMMAND's execve(), as\n"
	"                     failcmd.sh does (the default arms after it)\n"
	"  --linger MS        linger: after each disarm the probes stay attached,\n"
	"                     inert, for MS ms, and the next arming reuses them\n"
	"                     (sweep's default: " SWEEP_LINGER_MS " where the module has the knob\n"
	"                     and it is 0; --linger 0 detaches at every run)\n"
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
	"  10 sweep: kmemleak found unreferenced objects after the sweep\n"
	"run: COMMAND's exit status (128+N if killed by signal N; 127 not found,\n"
	"126 not executable) once COMMAND was started.\n";

void fault_usage(FILE *fp)
{
	fputs(fault_help, fp);
}

/*
 * The options that write a knob: each writes the knob of its name, or
 * (--children, --ignore-gfp-wait ...) a fixed value without an argument.
 * The module still decides: an option whose knob is not in its settings
 * is refused once they are read (load_knobs()).
 */
static const struct knob_opt {
	const char *name, *knob;
	int has_arg;
	const char *fixed;	/* the value with no argument */
} knob_opts[] = {
	{ "pid", KNOB_PID, required_argument, NULL },
	{ "children", KNOB_CHILDREN, no_argument, "Y" },
	{ "no-children", KNOB_CHILDREN, no_argument, "N" },
	{ "comm", "aim-comm", required_argument, NULL },
	{ "cgroup", "aim-cgroup", required_argument, NULL },
	{ "cache", "aim-cache", required_argument, NULL },
	{ "size", "aim-size", required_argument, NULL },
	{ "module", KNOB_MODULE, required_argument, NULL },
	{ "depth", "aim-depth", required_argument, NULL },
	{ "sites", KNOB_SITES, required_argument, NULL },
	{ "probability", "probability", required_argument, NULL },
	{ "interval", "interval", required_argument, NULL },
	{ "times", "times", required_argument, NULL },
	{ "space", "space", required_argument, NULL },
	{ "min-order", "min-order", required_argument, NULL },
	{ "max-order", "max-order", required_argument, NULL },
	{ "verbose", "verbose", required_argument, NULL },
	{ "ignore-gfp-wait", "ignore-gfp-wait", optional_argument, "Y" },
	{ "ignore-gfp-highmem", "ignore-gfp-highmem", optional_argument, "Y" },
	{ "ignore-pagefault", "ignore-pagefault", optional_argument, "Y" },
	{ "include-pagefault", "ignore-pagefault", no_argument, "N" },
	{ "exclude-caller", "exclude-caller", required_argument, NULL },
	{ "duration", "duration", required_argument, NULL },
	{ "linger", KNOB_LINGER, required_argument, NULL },
};

#define NKNOB_OPTS (sizeof(knob_opts) / sizeof(knob_opts[0]))
#define O_KNOB 512		/* getopt's value for knob_opts[i]: O_KNOB + i */
_Static_assert(NKNOB_OPTS <= NGIVEN, "every knob option fits in struct fault's given[]");

enum { O_MAX_RUNS = 256, O_COMMAND_OUTPUT, O_FROM_EXEC };

/* getopt_long()'s table: these NPLAIN_OPTS, then knob_opts[] (fault_longopts_init()) */
#define NPLAIN_OPTS 5
static struct option fault_longopts[NPLAIN_OPTS + NKNOB_OPTS + 1] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "max-runs", required_argument, NULL, O_MAX_RUNS },
	{ "command-output", no_argument, NULL, O_COMMAND_OUTPUT },
	{ "from-exec", no_argument, NULL, O_FROM_EXEC },
};

static void fault_longopts_init(void)
{
	for (size_t i = 0; i < NKNOB_OPTS; i++)
		fault_longopts[NPLAIN_OPTS + i] = (struct option){
			.name = knob_opts[i].name, .has_arg = knob_opts[i].has_arg,
			.val = O_KNOB + (int)i };
}

#define fault_bad_usage(...) mi_usage_error("fault", __VA_ARGS__)

/* Options from argv[optind] on; stops at the first non-option or after "--". */
static int fault_options(struct fault *f, int argc, char **argv, bool aims)
{
	static const char shorts[] = "+:jh";
	const struct knob_opt *ko;
	const char *v;
	unsigned long long n;
	int opt;

	while ((opt = getopt_long(argc, argv, shorts, fault_longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			f->json = true;
			continue;
		case 'h':
			fault_usage(stdout);
			return -1;
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
			if (opt < O_KNOB || opt >= O_KNOB + (int)NKNOB_OPTS)
				return mi_option_error("fault", opt, argv, shorts);
			break;
		}
		if (!aims)
			return fault_bad_usage("'%s' is an option of run and sweep",
					       argv[optind - 1]);
		ko = &knob_opts[opt - O_KNOB];
		v = optarg ? optarg : ko->fixed;

		if (strchr(v, '\n'))
			return fault_bad_usage("--%s: a value is one line", ko->name);
		if (give(f, ko->knob, v, ko->name))
			return fault_bad_usage("too many knob options");
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
	fault_longopts_init();
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
		if (!given_val(&f, KNOB_CHILDREN))
			give(&f, KNOB_CHILDREN, "Y", NULL);
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
