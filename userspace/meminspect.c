// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect: read the meminspect module's debugfs tables.  This file is the
 * command line: the table of commands, the options, --watch and dispatch.
 * The commands live in one file per group (cmd_*.c, fault.c); loading and
 * its diagnostics in access.c; each file's view in views.c.
 */
#include "access.h"
#include "cli.h"
#include "export.h"
#include "fault.h"
#include "parse.h"
#include "status.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct command {
	const char *name;
	mi_cmd_fn run;
	unsigned int flags;
	const char *brief;	/* one line for the global help */
	const char *help;	/* the rest of "COMMAND --help" */
};

/* What the options set: the common ones, each command group's, and raw --sort. */
struct ctx {
	struct mi_cli cli;
	struct cmd_opts opts;
	const char *sort_arg;	/* --sort KEY as given: its keys depend on the command */
};

static const struct command commands[] = {
	{ "summary", cmd_summary, CMD_WATCH, "memory on this box: field, value, unit",
	  "Prints the module's summary file: one row per figure (docs/summary.md).\n"
	  "--json prints an object keyed by field:\n"
	  "  {\"mem_total\": {\"value\": 2014232, \"unit\": \"kB\"}, ...}\n"
	  "where value is null when the kernel cannot provide it.\n"
	  "--watch SECONDS prints it again every SECONDS (one JSON document each\n"
	  "time with --json) until interrupted or --count rounds are done.\n" },
	{ "capabilities", cmd_capabilities, 0, "what the module can show on this kernel, and why not",
	  "Prints the module's capabilities file: name, kind (file, field or\n"
	  "mechanism), available (yes/no) and detail.\n"
	  "--json prints an array of objects:\n"
	  "  [{\"name\": \"summary\", \"kind\": \"file\", \"available\": \"yes\", \"detail\": null}, ...]\n" },
	{ "zones", cmd_zones, CMD_WATCH, "every populated zone: watermarks, reserves, free pages per order",
	  "Prints the module's zones file: one row per populated zone (docs/zones.md).\n"
	  "--json prints an array of objects, lowmem_reserve as an array:\n"
	  "  [{\"node\": 0, \"zone\": \"DMA32\", \"start_pfn\": 4096, ..., \"lowmem_reserve\": [0, 0, 0, 0, 0], ...}]\n"
	  "--watch SECONDS prints it again every SECONDS, as for summary, with each\n"
	  "number that moved as N(+D), the change since the previous round (JSON: a\n"
	  "\"change\" object per record); --count N stops after N rounds.\n" },
	{ "buddy", cmd_buddy, CMD_WATCH, "exact free blocks per zone, migratetype and order",
	  "Prints the module's buddy file: one row per node, zone and migratetype\n"
	  "with the exact number of free blocks of every order and the pageblocks\n"
	  "of that migratetype (docs/buddy.md); the \"# walk:\" note says what the\n"
	  "walk cost.  --json: an array of objects (notes go to stderr).\n"
	  "--watch SECONDS and --count N as for zones.\n" },
	{ "frag", cmd_frag, CMD_WATCH | CMD_TYPES,
	  "fragmentation indexes and free blocks per order (--types: per migratetype)",
	  "Prints the module's fragmentation file: per zone and order the unusable\n"
	  "free space and external fragmentation indexes (in thousandths), the free\n"
	  "blocks of at least that order and the order-sized blocks they make, all\n"
	  "from the zone's nr_free counts, as cheap as debugfs extfrag/\n"
	  "(docs/fragmentation.md).\n"
	  "--types prints the fragmentation_types file instead: the order-sized\n"
	  "blocks split by migratetype, which takes a walk of every free list (the\n"
	  "cost of a buddy read; its \"# walk:\" note says what it cost).\n"
	  "--json: an array of objects.  --watch SECONDS and --count N as for zones.\n" },
	{ "pages", cmd_pages, CMD_WATCH, "a census of every page frame by node, zone and class",
	  "Prints the module's pages file: one row per node, zone and class (buddy_free,\n"
	  "slab, anon, file, shmem, pagetable, hugetlb, reserved, unclassified, ...)\n"
	  "with pages and bytes, from a walk of every pfn (docs/pages.md); the \"#\"\n"
	  "note after each zone gives what was walked against present and spanned.\n"
	  "--json: an array of objects.  --watch SECONDS and --count N as for zones.\n" },
	{ "cgroups", cmd_cgroups, CMD_WATCH | CMD_DYING,
	  "who owns the memory: each memory cgroup's anon, file, shmem pages, slab bytes",
	  "Prints the module's cgroups file: one row per memory cgroup, live or\n"
	  "dying, with id (the cgroup2 directory's inode number), state (online or\n"
	  "dying: removed, still held), the anon, file and shmem pages the census\n"
	  "found charged to the cgroup itself (not its descendants: memory.stat\n"
	  "sums them; its file is file_pages + shmem_pages), slab_bytes ('-' where\n"
	  "capabilities says cgroups.slab_bytes no) and path (docs/cgroups.md).  A\n"
	  "read walks every pfn, as pages does.\n"
	  "--dying prints only the dying rows: removed cgroups that their page cache\n"
	  "(or anything else charged to them) keeps, each with what keeps it:\n"
	  "top_files (its 3 files with the most page cache, from files, path:pages)\n"
	  "and top_slabs (its 3 slab caches by objects, from cgroup_slabs).\n"
	  "--sort KEY orders the rows (default: the file's, the cgroup tree in\n"
	  "pre-order): id ascending, path in byte order, anon, file, shmem, slab\n"
	  "(its figure) or total ((anon + file + shmem pages) x page size +\n"
	  "slab_bytes, in bytes) largest first; ties keep the file's order.  A '-'\n"
	  "is unknown: --sort slab puts those rows last, total leaves it out.\n"
	  "--json: an array of objects.  --watch SECONDS and --count N as for summary.\n" },
	{ "cgroup-slabs", cmd_cgroup_slabs, CMD_WATCH,
	  "slab objects and bytes by memory cgroup and cache",
	  "Prints the module's cgroup_slabs file: one row per memory cgroup and\n"
	  "slab cache with the objects charged to that cgroup itself and their\n"
	  "bytes as memory.stat counts them (object size + one obj_cgroup pointer),\n"
	  "then one row per cache (id -) with its objects in use charged to no\n"
	  "cgroup; notes give the totals and what the walk could not read\n"
	  "(docs/cgroups.md).  A read walks every pfn, as pages does; where\n"
	  "capabilities says cgroups.slab_bytes no it has no row, a note says why.\n"
	  "--json: an array of objects.  --watch SECONDS and --count N as for summary.\n" },
	{ "where", cmd_where, CMD_WATCH, "where did my memory go: the largest holders first, then the reconciliation",
	  "First the figures that hold the memory, largest first (rank, figure, kb,\n"
	  "pct of mem_total) with their holders, the top three of each from the\n"
	  "module's other files where it has them: processes by anonymous memory\n"
	  "(procs), files by page cache (files), slab caches and the cgroups charged\n"
	  "(slabs, cgroups), dying cgroups by what they hold, call sites by live\n"
	  "bytes (allocs/table, when armed).  Then, after a blank line, the\n"
	  "reconciliation: summary and pages as one row per figure: section (summary,\n"
	  "then census), figure, kb, and counterpart, the kernel figure it is read\n"
	  "against (a /proc/meminfo name, zoneinfo: or vmstat: for those files, -\n"
	  "for none), and kernel_kb, its value read from /proc just after the\n"
	  "module's files ('-' where the kernel has no one figure for it).  The\n"
	  "census rows are the pages file summed over nodes and zones; summary's\n"
	  "unaccounted is the census's unclassified pages less the vmalloc, percpu\n"
	  "and other counted pages without a per-pfn mark (docs/summary.md).\n"
	  "--json: {\"ranked\": [...], \"reconciliation\": [...]}.  --watch SECONDS.\n" },
	{ "pressure", cmd_pressure, CMD_WATCH | CMD_LINES,
	  "reclaim and compaction counters, PSI, watermark distances, kswapd (--watch: a vmstat)",
	  "Prints the module's pressure file: one row per figure (section, scope,\n"
	  "name, value, delta, unit): the vmstat reclaim and compaction counters,\n"
	  "PSI memory averages and totals, each zone's free pages and distance to\n"
	  "its watermarks, kswapd's state per node (docs/pressure.md).  delta is\n"
	  "the change since the module file's previous read by the same open file.\n"
	  "--json: an array of objects.\n"
	  "--watch SECONDS is a 'vmstat SECONDS' for memory: the file stays open and\n"
	  "every SECONDS one line gives the interval's rates per second of\n"
	  "allocstall, pgscan and pgsteal (direct, kswapd), compact_stall,\n"
	  "compact_fail, oom_kill and workingset refaults (anon, file), then PSI\n"
	  "memory some/full avg10 in percent; '-' where the kernel has no such\n"
	  "counter.  The first line comes after one interval and covers it.  The\n"
	  "header is repeated every screenful ($LINES, else 24, when not a terminal).\n"
	  "With --json, one object per line: {\"time\": ..., \"interval_s\": 1.000123,\n"
	  "\"allocstall\": {\"rate\": 2.000, \"delta\": 2, \"value\": 17}, ...,\n"
	  "\"some_avg10\": 0.12, \"full_avg10\": 0.00, \"some_total\": {\"stall_pct\": 1.25,\n"
	  "\"delta\": 12500, \"value\": 99000}, \"full_total\": {...}} (null where '-'):\n"
	  "the PSI totals' change in the interval (us) and its share of it; the module\n"
	  "reads them as the kernel's 2 s averaging left them, so one interval's\n"
	  "share can lag (docs/pressure.md).\n"
	  "--cgroup DIR adds the columns of a cgroup v2 directory (absolute, or under\n"
	  "/sys/fs/cgroup): its memory.pressure some/full avg10 and the share of\n"
	  "the interval its tasks stalled (some/full total's change), read by\n"
	  "meminspect itself; JSON: \"cgroup\": {\"path\": ..., \"some_avg10\": ...,\n"
	  "\"full_avg10\": ..., \"some_total\": {...}, \"full_total\": {...}}.\n"
	  "--table --watch SECONDS prints the whole table each round instead, with\n"
	  "N(+D) for what moved, as for zones; --count N stops after N rounds.\n" },
	{ "latency", cmd_latency, CMD_WATCH,
	  "how long tasks stalled in reclaim, page allocations by order: histograms",
	  "Prints the module's latency/histograms as bpftrace prints hist(): per kind\n"
	  "(direct_reclaim, memcg_reclaim, direct_compaction, and the page\n"
	  "allocator's slow path of each order that took it) a line with events, sum, mean and\n"
	  "unpaired, then one row per bucket of 2^i ns from the first to the last\n"
	  "non-empty one: [lo, hi) (in ns/us/ms/s, 3 digits), count, a bar of @\n"
	  "(docs/latency.md).  The counts are since the module's latency/armed knob\n"
	  "was last set to 1; meminspect does not write it (echo 1 > .../armed).\n"
	  "--watch SECONDS: the first round since arming, then each round the\n"
	  "interval's histogram (the difference of two reads); --count N.\n"
	  "--json: {\"armed\": 1, \"interval_ms\": null, \"kinds\": [{\"kind\": ...,\n"
	  "\"events\": N, \"sum_ns\": N, \"mean_ns\": N, \"unpaired\": N, \"buckets\":\n"
	  "[{\"lo_ns\": 0, \"hi_ns\": 2, \"count\": N}, ...]}], \"page_alloc\":\n"
	  "[{\"order\": 0, \"fast\": N, \"slow\": N, \"failed\": N}, ...], \"reset\": 0}.\n"
	  "Then latency/page_alloc: per order, page allocations that found their\n"
	  "page on the fast path, took the slow path, or failed; and latency/stallers:\n"
	  "the 10 tasks that stalled longest since arming (--json: all, \"stallers\").\n" },
	{ "report", cmd_report, CMD_WATCH, "every file the module offers, one table each",
	  "Prints every file that capabilities lists with kind=file, each under a\n"
	  "\"== FILE ==\" heading; unavailable files are listed with the reason.\n"
	  "--json prints one object keyed by file name, each value in that file's\n"
	  "own shape (summary: as 'summary --json'; others: an array of objects);\n"
	  "unavailable files are left out.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "allocs", cmd_allocs, CMD_WATCH | CMD_ALLOCS,
	  "slab allocations by call site: live objects and bytes, rate (a slabratetop)",
	  "Prints the module's allocs/table (docs/allocs.md), one row per call site\n"
	  "that allocated since allocs/ was armed, sorted largest first.  The module's\n"
	  "knobs (armed, aim_pid, aim_comm, sample_bytes, ...) are written directly;\n"
	  "meminspect only reads.  The \"# allocs:\" note says the mode, the table sizes\n"
	  "and what overflowed; sampled (sample_bytes > 0), every figure but samples\n"
	  "is an estimate.\n"
	  "  --sort KEY        bytes (live_bytes, the default), rate (allocations per\n"
	  "                    second: since arming, or under --watch since the last\n"
	  "                    round), count (live_objs) or allocs (since arming)\n"
	  "  --top N           only the first N rows\n"
	  "  --outstanding     allocs/outstanding instead: per call site the followed\n"
	  "                    objects still live (objs, bytes, oldest_s, up to 4 addrs),\n"
	  "                    sorted by bytes or count (a memleak -K without BPF)\n"
	  "  --min-age S       with --outstanding: only objects at least S seconds old\n"
	  "                    (written to the live file; 0 to 86400)\n"
	  "  --by KEY          site (the default) or cache: the sites summed by the\n"
	  "                    cache their objects came from (its cache column: a name,\n"
	  "                    (several) for sites of more than one, (pages) for pages:\n"
	  "                    large kmallocs, page allocations), with a sites count\n"
	  "  --allocinfo       the sites in /proc/allocinfo's layout (size = live bytes\n"
	  "                    as allocated, calls = live objects, tag info = the site\n"
	  "                    and func:SYMBOL), for scripts written for that file\n"
	  "--watch SECONDS repeats it every SECONDS; a recent_rate column before site\n"
	  "is the allocations per second since the previous round ('-' in the first).\n"
	  "--json prints {\"armed\": 1, \"mode\": \"exact\", ... (the note's pairs),\n"
	  "\"call_sites\": [{\"live_objs\": N, ..., \"site\": \"...\"}, ...]}\n"
	  "(\"caches\": [...] under --by cache).\n" },
	{ "files", cmd_files, CMD_WATCH | CMD_FILES,
	  "the page cache by inode: pages, dirty, writeback per file; a total",
	  "Prints the module's files table: the inodes with the most page-cache pages\n"
	  "(at most the module's files_top, default 100), most first, with dirty and\n"
	  "writeback pages; each path gets its mount point from /proc/self/mountinfo,\n"
	  "as /proc/PID/maps prints it. The total over every inode is in a note.\n"
	  "  --top N           only the first N rows (more than files_top: raise the\n"
	  "                    module's /sys/module/meminspect/parameters/files_top)\n"
	  "--json prints the records as objects.\n" },
	{ "slab", cmd_slab, CMD_WATCH | CMD_SLAB,
	  "slab caches: sizes, counts, waste and growth (a slabtop)",
	  "Prints the module's slabs file, one row per slab cache, sorted.\n"
	  "  --sort KEY        name, size (memory_bytes, the default), waste (waste_bytes),\n"
	  "                    objs (active_objs) or growth (growth_bytes, needs --watch);\n"
	  "                    numbers sort largest first\n"
	  "  --top N           only the first N rows\n"
	  "  --aliases         an alias_names column before flags: the names merged into\n"
	  "                    the cache, from the symlinks in /sys/kernel/slab (the module\n"
	  "                    only has their number); 'none', or '-' without sysfs\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary; from the second\n"
	  "round on, growth_bytes and growth_objs (change since the previous round)\n"
	  "come before flags.\n"
	  "--json prints an array of objects, one per row, in the table's order:\n"
	  "  [{\"name\": \"dentry\", \"object_size\": 192, ..., \"flags\": \"none\"}, ...]\n"
	  "With --watch one such array per round, each a complete JSON document.\n" },
	{ "export", cmd_export, CMD_WATCH | CMD_EXPORT,
	  "every figure as Prometheus metrics (node_exporter textfile)",
	  "--prometheus prints every figure of every available file in the\n"
	  "Prometheus text format: meminspect_FILE_FIELD, sizes in _bytes,\n"
	  "counters in _total, labels for node/zone/order/migratetype/cache\n"
	  "(docs/export.md). Files with per-process rows are left out unless\n"
	  "--per-pid is given.\n"
	  "--cgroup-series N (1 to 4096, default 100): the cgroups file's series\n"
	  "(meminspect_cgroups_*{id,state,path}) for N memory cgroups at most: the\n"
	  "dying ones first, then the largest by total (pages x page size +\n"
	  "slab_bytes where known).  Three gauges without labels count whatever the\n"
	  "cap: meminspect_cgroups_series_dropped (cgroups left out),\n"
	  "meminspect_cgroups_dying and meminspect_cgroups_dying_bytes.\n"
	  "--textfile-dir DIR writes DIR/meminspect.prom instead, atomically\n"
	  "(temporary file + rename), for node_exporter's textfile collector; with\n"
	  "--watch SECONDS it rewrites it every SECONDS. The file is written even\n"
	  "when the module cannot be read: meminspect_up is then 0.\n"
	  "--json prints the same samples as an array of\n"
	  "  {\"metric\": \"meminspect_up\", \"type\": \"gauge\", \"labels\": {}, \"value\": 1}\n" },
	{ "mm", cmd_mm, CMD_WATCH | CMD_PID, "one process's memory: status figures and the smaps rollup",
	  "meminspect mm [PID]: the module's mm file for PID (default: meminspect\n"
	  "itself), shown as field/value rows: the mm_struct figures of\n"
	  "/proc/PID/status and the page-walk rollup of /proc/PID/smaps_rollup\n"
	  "(rss, pss, uss, swap, ..., shared and private hugetlb; all _kb in kB).\n"
	  "--json prints one object: {\"pid\": 1, \"rss_kb\": 1720, ..., \"comm\": \"init\"}.\n"
	  "A kernel thread or zombie has no user memory: that is said on stderr, exit 1.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "vmas", cmd_vmas, CMD_WATCH | CMD_PID | CMD_SORT,
	  "one process's mappings with RSS, PSS, USS and swap each",
	  "meminspect vmas [PID] [--sort rss|pss|uss|swap]: one row per VMA of PID\n"
	  "(default: meminspect itself), as /proc/PID/smaps; --sort orders the rows\n"
	  "by that figure, largest first.\n"
	  "--json prints an array of objects, one per VMA.\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "top", cmd_top, CMD_WATCH | CMD_SORT, "every process by PSS and USS, like smem",
	  "meminspect top [--sort rss|pss|uss|swap]: the rollup of every process\n"
	  "that may be read, largest PSS first (or by --sort), from the module's procs\n"
	  "file in one read (from mm, pid by pid, with a module without procs);\n"
	  "kernel threads and processes that exit meanwhile are left out.\n"
	  "--json prints an array of objects: [{\"pid\": 1, \"rss_kb\": ..., \"comm\": \"init\"}, ...].\n"
	  "--watch SECONDS repeats it every SECONDS, as for summary.\n" },
	{ "fault", NULL, CMD_OWN_ARGS, fault_brief, NULL },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* ---- options, help, version ---- */

static const char options_help[] =
	"Options:\n"
	"  -d, --dir DIR   read the module's files from DIR (default: $MEMINSPECT_DIR,\n"
	"                  else /sys/kernel/debug/meminspect)\n"
	"  -j, --json      print JSON instead of tables (notes go to stderr)\n"
	"  -H, --human     sizes in B/KiB/MiB/GiB instead of kB (tables only)\n"
	"  -h, --help      show this help; after COMMAND, that command's help\n"
	"  -V, --version   print the reader's and the loaded module's versions\n"
	"  -w, --watch SECONDS  repeat every SECONDS (all but capabilities; zones,\n"
	"                  buddy, frag show changes as N(+D); pressure prints a line\n"
	"                  of rates per interval, latency each interval's histogram)\n"
	"  -n, --count N   with --watch: stop after N rounds\n"
	"pressure only:\n"
	"  --table         with --watch: the whole table each round, not a line\n"
	"  --cgroup DIR    with --watch: a cgroup v2 directory's PSI beside the line\n"
	"frag only:\n"
	"  --types         the split by migratetype (a walk of every free list)\n"
	"cgroups only:\n"
	"  --dying         only the removed memory cgroups something still holds, each\n"
	"                  with its top files and slab caches (what holds it)\n"
	"  --sort KEY      id, path (ascending), anon, file, shmem, slab or total\n"
	"                  (largest first; '-' last); default: the file's order\n"
	"vmas, top:\n"
	"  --sort KEY      rss, pss, uss or swap, largest first\n"
	"slab only:\n"
	"  --sort KEY      name, size, waste, objs or growth (needs --watch)\n"
	"  --top N         only the first N rows (slab, allocs)\n"
	"allocs only:\n"
	"  --sort KEY      bytes, rate, count or allocs\n"
	"  --outstanding   the live objects by call site, with addresses\n"
	"  --min-age S     with --outstanding: at least S seconds old\n"
	"  --by KEY        site or cache: rows by call site or by slab cache\n"
	"  --allocinfo     the table in /proc/allocinfo's layout\n"
	"  --aliases       the names merged into each cache (alias_names)\n"
	"export only:\n"
	"  --prometheus    Prometheus text format\n"
	"  --textfile-dir DIR  write DIR/meminspect.prom atomically (node_exporter)\n"
	"  --per-pid       also export files with per-process rows\n"
	"  --cgroup-series N  series for N memory cgroups at most, dying ones first,\n"
	"                  then the largest (1 to 4096; default 100)\n";

static const char exit_help[] =
	"Exit status:\n"
	"  0  success\n"
	"  1  a file could not be read or parsed (format or internal error)\n"
	"  2  usage error (bad option or command, or a --dir that does not exist)\n"
	"  3  debugfs is not mounted on /sys/kernel/debug\n"
	"  4  the meminspect module is not loaded\n"
	"  5  permission denied (not root)\n"
	"  11 report, export: some files could not be read (named on stderr); the rest\n"
	"     were printed\n"
	"  12 kernel lockdown refused a file: a debugfs file that can be written, with no\n"
	"     copy in /dev/meminspect; fault: its knobs (fault injection is not\n"
	"     available while the kernel is locked down)\n";

static void usage(FILE *f)
{
	fprintf(f, "Usage: meminspect [OPTIONS] COMMAND [OPTIONS]\n"
		"Show the memory tables of the meminspect kernel module.\n\nCommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].brief);
	fprintf(f, "\n%s\n%s\nSee meminspect(8).\n", options_help, exit_help);
}

static void command_usage(const struct command *cmd)
{
	printf("Usage: meminspect [OPTIONS] %s\n\n%s\n%s\n%s", cmd->name, cmd->help,
	       options_help, exit_help);
}

int mi_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "meminspect: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'meminspect %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return ST_USAGE;
}

int mi_option_error(const char *cmd, int opt, char *const *argv, const char *optstring)
{
	if (opt == ':')
		return mi_usage_error(cmd, "option '%s' needs an argument", argv[optind - 1]);
	if (!optopt)	/* an unknown long option */
		return mi_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	/* inside "-jx", argv[optind - 1] is not the culprit: name the letter */
	if (optopt < 256 && (optopt == ':' || optopt == '+' || !strchr(optstring, optopt)))
		return mi_usage_error(cmd, "unknown option '-%c'", optopt);
	/* an option that takes no argument, given one (--json=x) */
	return mi_usage_error(cmd, "option '%s' takes no argument", argv[optind - 1]);
}

/* The warning every command gives when the loaded module is another version. */
static void warn_version(const char *mod)
{
	fprintf(stderr, "meminspect: warning: reader %s and module %s differ\n", MI_VERSION, mod);
}

static int version(const struct mi_access *a)
{
	char mod[64];

	printf("meminspect %s\n", MI_VERSION);
	if (mi_module_version(a, mod, sizeof(mod))) {
		printf("module meminspect %s\n", mod);
		if (strcmp(mod, MI_VERSION))
			warn_version(mod);
	} else {
		printf("module meminspect %s\n", mi_module_loaded(a) ? "loaded, version unknown" : "not loaded");
	}
	return ST_OK;
}

enum { OPT_DONE = -1, OPT_EXIT_OK = -2 };
enum {
	OPT_PROMETHEUS = 256, OPT_TEXTFILE_DIR, OPT_PER_PID, OPT_SORT, OPT_TOP, OPT_ALIASES,
	OPT_TYPES, OPT_TABLE, OPT_OUTSTANDING, OPT_MIN_AGE, OPT_CGROUP, OPT_BY,
	OPT_ALLOCINFO, OPT_DYING, OPT_CGROUP_SERIES,
};

/*
 * One getopt_long pass over argv; the same options are accepted before and
 * after COMMAND. Returns OPT_DONE, OPT_EXIT_OK (help/version printed) or an
 * exit status.
 */
static int parse_options(struct ctx *c, int argc, char **argv, const struct command *cmd)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "human", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "textfile-dir", required_argument, NULL, OPT_TEXTFILE_DIR },
		{ "per-pid", no_argument, NULL, OPT_PER_PID },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "aliases", no_argument, NULL, OPT_ALIASES },
		{ "types", no_argument, NULL, OPT_TYPES },
		{ "table", no_argument, NULL, OPT_TABLE },
		{ "outstanding", no_argument, NULL, OPT_OUTSTANDING },
		{ "min-age", required_argument, NULL, OPT_MIN_AGE },
		{ "by", required_argument, NULL, OPT_BY },
		{ "allocinfo", no_argument, NULL, OPT_ALLOCINFO },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "dying", no_argument, NULL, OPT_DYING },
		{ "cgroup-series", required_argument, NULL, OPT_CGROUP_SERIES },
		{ NULL, 0, NULL, 0 },
	};
	const char *shorts = cmd ? ":d:jHhVw:n:" : "+:d:jHhVw:n:";
	unsigned long long n;
	int opt;

	opterr = 0;	/* our own messages, naming meminspect, not argv[0] */
	optind = 0;	/* glibc: full re-initialisation for the second pass */
	/*
	 * Before COMMAND, stop at it ("+"); after it, GNU getopt moves the
	 * operands (a PID) behind the options: "vmas 1 --sort pss" works.
	 */
	while ((opt = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (!*optarg)
				return mi_bad_usage("--dir needs a directory");
			c->cli.acc.dir = optarg;
			break;
		case 'j':
			c->cli.json = true;
			break;
		case 'H':
			c->cli.out.human = true;
			break;
		case 'h':
			if (cmd)
				command_usage(cmd);
			else
				usage(stdout);
			return OPT_EXIT_OK;
		case 'V':
			version(&c->cli.acc);
			return OPT_EXIT_OK;
		case 'w':
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 86400)
				return mi_bad_usage("--watch takes whole seconds from 1 to 86400, not '%s'",
						 optarg);
			c->cli.watch = (unsigned int)n;
			break;
		case 'n':
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 1000000000)
				return mi_bad_usage("--count takes a number of rounds from 1, not '%s'",
						 optarg);
			c->cli.count = (unsigned long)n;
			break;
		case OPT_PROMETHEUS:
			c->opts.exp.prometheus = true;
			break;
		case OPT_TEXTFILE_DIR:
			if (!*optarg)
				return mi_bad_usage("--textfile-dir needs a directory");
			c->opts.exp.textfile_dir = optarg;
			break;
		case OPT_PER_PID:
			c->opts.exp.per_pid = true;
			break;
		case OPT_CGROUP_SERIES:
			if (mi_parse_u64(optarg, &n) || n < 1 || n > MI_CGROUP_SERIES_MAX)
				return mi_bad_usage("--cgroup-series takes a number of cgroups from 1 to %d, not '%s'",
						    MI_CGROUP_SERIES_MAX, optarg);
			c->opts.exp.cgroup_series = (unsigned long)n;
			break;
		case OPT_SORT:
			c->sort_arg = optarg;	/* its keys depend on the command */
			break;
		case OPT_TOP:
			if (mi_parse_u64(optarg, &n) || n < 1 || n > 1000000)
				return mi_bad_usage("--top takes a number of rows from 1 to 1000000, not '%s'",
						 optarg);
			c->opts.slab.top = (unsigned long)n;
			break;
		case OPT_ALIASES:
			c->opts.slab.aliases = true;
			break;
		case OPT_TYPES:
			c->opts.pa.types = true;
			break;
		case OPT_DYING:
			c->opts.cg.dying = true;
			break;
		case OPT_TABLE:
			c->opts.stall.table = true;
			break;
		case OPT_OUTSTANDING:
			c->opts.allocs.outstanding = true;
			break;
		case OPT_MIN_AGE:
			if (mi_parse_u64(optarg, &n) || n > 86400)
				return mi_bad_usage("--min-age takes whole seconds from 0 to 86400, not '%s'",
						    optarg);
			c->opts.allocs.min_age = (long)n;
			break;
		case OPT_ALLOCINFO:
			c->opts.allocs.allocinfo = true;
			break;
		case OPT_BY:
			if (strcmp(optarg, "site") && strcmp(optarg, "cache"))
				return mi_bad_usage("--by takes site or cache, not '%s'", optarg);
			c->opts.allocs.by_cache = !strcmp(optarg, "cache");
			c->opts.allocs.by_given = true;
			break;
		case OPT_CGROUP:
			if (!*optarg)
				return mi_bad_usage("--cgroup needs a cgroup v2 directory");
			c->opts.stall.cgroup = optarg;
			break;
		default:
			return mi_option_error(NULL, opt, argv, shorts);
		}
	}
	return OPT_DONE;
}

/* Options that only some commands take, and those that need each other. */
static int check_options(struct ctx *ctx, const struct command *cmd)
{
	const struct mi_cli *c = &ctx->cli;
	const struct export_opts *x = &ctx->opts.exp;
	struct slab_opts *s = &ctx->opts.slab;

	if (ctx->sort_arg && (cmd->flags & CMD_SLAB)) {
		s->sort = slab_key(ctx->sort_arg);
		if (!s->sort)
			return mi_bad_usage("--sort takes name, size, waste, objs or growth, not '%s'",
					    ctx->sort_arg);
	} else if (ctx->sort_arg && (cmd->flags & CMD_SORT)) {
		if (!process_sort_field(ctx->sort_arg))
			return mi_bad_usage("--sort takes rss, pss, uss or swap, not '%s'",
					    ctx->sort_arg);
		ctx->opts.proc.sort = ctx->sort_arg;
	} else if (ctx->sort_arg && (cmd->flags & CMD_ALLOCS)) {
		ctx->opts.allocs.sort = allocs_sort_field(ctx->sort_arg);
		if (!ctx->opts.allocs.sort)
			return mi_bad_usage("--sort takes bytes, rate, count or allocs, not '%s'",
					    ctx->sort_arg);
	} else if (ctx->sort_arg && (cmd->flags & CMD_DYING)) {
		if (!cgroups_sort_key(ctx->sort_arg))
			return mi_bad_usage("--sort takes id, path, anon, file, shmem, slab or total, not '%s'",
					    ctx->sort_arg);
		ctx->opts.cg.sort = ctx->sort_arg;
	} else if (ctx->sort_arg) {
		return mi_bad_usage("--sort is for slab, allocs, cgroups, vmas and top");
	}
	if ((c->watch || c->count) && !(cmd->flags & CMD_WATCH))
		return mi_bad_usage("'%s' takes no --watch or --count: its content does not change",
				    cmd->name);
	if (c->count && !c->watch)
		return mi_bad_usage("--count needs --watch");
	if ((x->prometheus || x->textfile_dir || x->per_pid || x->cgroup_series) &&
	    !(cmd->flags & CMD_EXPORT))
		return mi_bad_usage("--prometheus, --textfile-dir, --per-pid and --cgroup-series are export options");
	if ((cmd->flags & CMD_EXPORT) && !x->prometheus && !c->json)
		return mi_bad_usage("export needs a format: --prometheus (or --json)");
	if (x->textfile_dir && c->json)
		return mi_bad_usage("--textfile-dir writes the Prometheus text format: drop --json");
	if (s->top && !(cmd->flags & (CMD_SLAB | CMD_ALLOCS | CMD_FILES)))
		return mi_bad_usage("--top is a slab, allocs and files option");
	if (s->aliases && !(cmd->flags & CMD_SLAB))
		return mi_bad_usage("--aliases is a slab option");
	if (ctx->opts.pa.types && !(cmd->flags & CMD_TYPES))
		return mi_bad_usage("--types is a frag option");
	if (ctx->opts.cg.dying && !(cmd->flags & CMD_DYING))
		return mi_bad_usage("--dying is a cgroups option");
	if (ctx->opts.stall.table && !(cmd->flags & CMD_LINES))
		return mi_bad_usage("--table is a pressure option");
	if (ctx->opts.stall.cgroup &&
	    (!(cmd->flags & CMD_LINES) || !c->watch || ctx->opts.stall.table))
		return mi_bad_usage("--cgroup is for pressure --watch (its lines, not --table)");
	if ((ctx->opts.allocs.outstanding || ctx->opts.allocs.min_age >= 0) &&
	    !(cmd->flags & CMD_ALLOCS))
		return mi_bad_usage("--outstanding and --min-age are allocs options");
	if (ctx->opts.allocs.by_given && !(cmd->flags & CMD_ALLOCS))
		return mi_bad_usage("--by is an allocs option");
	if (ctx->opts.allocs.allocinfo &&
	    (!(cmd->flags & CMD_ALLOCS) || ctx->opts.allocs.outstanding ||
	     ctx->opts.allocs.by_cache || c->json))
		return mi_bad_usage("--allocinfo is for the allocs table by site, without --json");
	if (ctx->opts.allocs.by_cache && ctx->opts.allocs.outstanding)
		return mi_bad_usage("--by cache is for the table, not --outstanding");
	if (ctx->opts.allocs.min_age >= 0 && !ctx->opts.allocs.outstanding)
		return mi_bad_usage("--min-age needs --outstanding");
	if (ctx->opts.allocs.outstanding && ctx->opts.allocs.sort &&
	    !allocs_sort_outstanding(ctx->opts.allocs.sort))
		return mi_bad_usage("allocs --outstanding sorts by bytes or count");
	if (slab_sorts_by_growth(s) && !c->watch)
		return mi_bad_usage("--sort growth needs --watch");
	return OPT_DONE;
}

static volatile sig_atomic_t stop_watch;

static void on_stop(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/*
 * The command once, or with --watch every c->watch seconds until SIGINT or
 * SIGTERM (which end the current round first: a textfile is never left
 * half-written) or --count rounds. Errors a retry cannot fix end the loop;
 * others (the module unloaded for a while, report's or export's files
 * left out of one round: ST_PARTIAL) are reported and retried.
 */
static int run_command(struct ctx *ctx, const struct command *cmd)
{
	struct sigaction sa = { .sa_handler = on_stop };
	const struct mi_cli *c = &ctx->cli;
	unsigned long round = 0;
	int st;

	if (!c->watch)
		return cmd->run(c, &ctx->opts);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		struct timespec ts = { .tv_sec = c->watch };

		bool lines = (cmd->flags & CMD_LINES) && !ctx->opts.stall.table;

		if (!c->json && !ctx->opts.exp.textfile_dir && !(cmd->flags & CMD_EXPORT) && !lines) {
			time_t now = time(NULL);
			char when[64];

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&now));
			printf("%s== %s ==\n", round ? "\n" : "", when);
		}
		st = cmd->run(c, &ctx->opts);
		if (fflush(stdout) || ferror(stdout) || st == ST_USAGE || st == ST_PERM ||
		    st == ST_LOCKDOWN)
			break;
		if (++round == c->count)
			break;
		while (!stop_watch && nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (stop_watch)
			break;
	}
	return st;
}

static int finish(int st)
{
	/* a full disk or closed pipe must not pass for success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "meminspect: writing output: %s\n", strerror(errno));
		return st ? st : ST_FORMAT;
	}
	return st;
}

/* fault: its own subcommands and options (userspace/fault.c) */
static int own_args(const struct mi_cli *c, int argc, char **argv)
{
	const struct fault_env env = {
		.dir = c->acc.dir, .json = c->json, .out = &c->out, .acc = &c->acc,
	};

	return fault_main(&env, argc, argv);
}

/* The warning every command gives when the loaded module is another version. */
static void check_version(const struct mi_access *a)
{
	char mod[64];

	if (mi_module_version(a, mod, sizeof(mod)) && strcmp(mod, MI_VERSION))
		warn_version(mod);
}

int main(int argc, char **argv)
{
	struct ctx c = { 0 };
	const struct command *cmd = NULL;
	struct process_opts *proc = &c.opts.proc;
	int st, first;

	mi_access_init(&c.cli.acc);
	c.opts.allocs.min_age = -1;
	st = parse_options(&c, argc, argv, NULL);
	if (st != OPT_DONE)
		return finish(st == OPT_EXIT_OK ? ST_OK : st);
	if (optind >= argc)
		return mi_bad_usage("missing COMMAND");
	first = optind;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[first], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return mi_bad_usage("unknown command '%s'", argv[first]);
	if (cmd->flags & CMD_OWN_ARGS) {
		check_version(&c.cli.acc);
		return finish(own_args(&c.cli, argc - first, argv + first));
	}
	st = parse_options(&c, argc - first, argv + first, cmd);
	if (st != OPT_DONE)
		return finish(st == OPT_EXIT_OK ? ST_OK : st);
	if ((cmd->flags & CMD_PID) && optind < argc - first) {
		proc->pid = argv[first + optind++];
		if (!process_is_pid(proc->pid))
			return mi_bad_usage("bad PID '%s'", proc->pid);
	}
	if (optind < argc - first)
		return mi_bad_usage("unexpected argument '%s'", argv[first + optind]);
	st = check_options(&c, cmd);
	if (st != OPT_DONE)
		return st;
	check_version(&c.cli.acc);
	st = run_command(&c, cmd);
	mi_table_free(c.opts.pa.prev);
	mi_table_free(c.opts.slab.prev);
	mi_table_free(c.opts.allocs.prev);
	mi_table_free(c.opts.stall.prev);
	if (c.opts.stall.open)
		close(c.opts.stall.fd);
	free(c.opts.stall.cg_file);
	return finish(st);
}
