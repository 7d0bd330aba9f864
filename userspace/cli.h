/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What meminspect.c (options, --watch, dispatch) hands each command: the
 * options every command has, and the command group's own options.  Each
 * group file (cmd_*.c) defines its commands' run functions and the table
 * entries meminspect.c lists.
 */
#ifndef MI_CLI_H
#define MI_CLI_H

#include "access.h"
#include "output.h"

#include <stdbool.h>
#include <time.h>

#define MI_VERSION "0.1.0"

struct mi_table;

/* Every command: where the files are and how to print. */
struct mi_cli {
	struct mi_access acc;
	bool json;
	struct out_opts out;
	unsigned int watch;	/* --watch SECONDS; 0: once */
	unsigned long count;	/* --count N: stop after N rounds; 0: until a signal */
};

/* zones, buddy, frag, summary, capabilities, report */
struct pagealloc_opts {
	struct mi_table *prev;	/* zones, buddy, frag under --watch: the previous round */
	bool types;		/* frag --types: fragmentation_types, a free-list walk */
};

/* cgroups */
struct cgroups_opts {
	bool dying;		/* --dying: only the removed memcgs still held */
	const char *sort;	/* --sort KEY (cgroups_sort_key()); NULL: the file's order */
};

/* slab */
struct slab_opts {
	const struct slab_key *sort;	/* --sort; NULL: by size */
	unsigned long top;		/* --top N: the first N rows; 0: all */
	bool aliases;			/* --aliases: alias_names from /sys/kernel/slab */
	struct mi_table *prev;		/* --watch: the last round's, for growth */
};

/* mm, vmas, top */
struct process_opts {
	const char *sort;	/* vmas, top: --sort KEY */
	const char *pid;	/* mm, vmas: the optional PID argument */
};

/* pressure (cmd_pressure.c), latency (cmd_latency.c) */
struct stall_opts {
	bool table;		/* pressure --table: the N(+D) table under --watch */
	bool open;		/* pressure --watch: fd is the open pressure file */
	int fd;
	struct timespec last;	/* the open or previous read (latency: round) */
	unsigned long lines;	/* pressure --watch: lines printed, for the header */
	struct mi_table *prev;	/* latency --watch: the previous round */
	struct mi_table *prev_pa;	/* latency --watch: its page_alloc */
	const char *cgroup;	/* pressure --watch --cgroup: as given */
	char *cg_file;		/* its memory.pressure, once resolved */
	bool cg_prev_ok;	/* cg_prev holds the previous read's totals */
	unsigned long long cg_prev[2];	/* some, full total (us) */
};

/* allocs (cmd_allocs.c); --top is slab_opts' */
struct allocs_opts {
	const char *sort;	/* --sort: the field sorted by; NULL: live_bytes */
	struct mi_table *prev;	/* --watch: the last round's, for recent_rate */
	bool outstanding;	/* --outstanding: allocs/outstanding */
	long min_age;		/* --min-age SECONDS; -1: not given */
	bool by_cache;		/* --by cache: the sites summed by cache */
	bool by_given;		/* --by was given (an allocs option) */
	bool allocinfo;		/* --allocinfo: /proc/allocinfo's layout */
};

/* export */
struct export_opts {
	bool prometheus;	/* --prometheus */
	const char *textfile_dir;
	bool per_pid;
	unsigned long cgroup_series;	/* --cgroup-series N; 0: not given (100) */
};

struct cmd_opts {
	struct pagealloc_opts pa;
	struct slab_opts slab;
	struct process_opts proc;
	struct export_opts exp;
	struct stall_opts stall;
	struct allocs_opts allocs;
	struct cgroups_opts cg;
};

/* Which options beyond the common ones a command takes. */
enum {
	CMD_WATCH = 1,		/* its figures change: --watch, --count */
	CMD_EXPORT = 2,		/* --prometheus, --textfile-dir, --per-pid */
	CMD_SLAB = 4,		/* --sort, --top, --aliases */
	CMD_PID = 8,		/* one optional PID argument */
	CMD_SORT = 16,		/* --sort rss|pss|uss|swap */
	CMD_TYPES = 32,		/* --types (frag) */
	CMD_OWN_ARGS = 64,	/* parses the rest of the line itself (fault) */
	CMD_LINES = 128,	/* --watch: a line per round, no time heading (pressure unless --table) */
	CMD_ALLOCS = 256,	/* --sort bytes|rate|count|allocs, --top */
	CMD_FILES = 512,	/* --top */
	CMD_DYING = 1024,	/* --dying (cgroups) */
};

/* One round of a command (meminspect.c repeats it under --watch). */
typedef int (*mi_cmd_fn)(const struct mi_cli *c, struct cmd_opts *o);

/*
 * "meminspect: [CMD: ]MESSAGE" and the hint "Try 'meminspect [CMD ]--help'."
 * on stderr; ST_USAGE. CMD: a command that parses its own options (fault).
 */
__attribute__((format(printf, 2, 3)))
int mi_usage_error(const char *cmd, const char *fmt, ...);
#define mi_bad_usage(...) mi_usage_error(NULL, __VA_ARGS__)

/*
 * getopt_long()'s ':' or '?' (@opt) as a usage error that names the
 * culprit: missing argument, unknown option, or an argument to an option
 * that takes none. @optstring: the short options given to getopt_long().
 */
int mi_option_error(const char *cmd, int opt, char *const *argv, const char *optstring);

/* cmd_cgroups.c */
int cmd_cgroups(const struct mi_cli *c, struct cmd_opts *o);
/* cmd_cgroup_slabs.c */
int cmd_cgroup_slabs(const struct mi_cli *c, struct cmd_opts *o);
/* KEY is one of cgroups --sort's: id, path, anon, file, shmem, slab, total */
bool cgroups_sort_key(const char *key);

/* cmd_where.c */
int cmd_where(const struct mi_cli *c, struct cmd_opts *o);

/* cmd_pagealloc.c */
int cmd_summary(const struct mi_cli *c, struct cmd_opts *o);
int cmd_capabilities(const struct mi_cli *c, struct cmd_opts *o);
int cmd_pages(const struct mi_cli *c, struct cmd_opts *o);
int cmd_pressure(const struct mi_cli *c, struct cmd_opts *o);
int cmd_zones(const struct mi_cli *c, struct cmd_opts *o);
int cmd_buddy(const struct mi_cli *c, struct cmd_opts *o);
int cmd_frag(const struct mi_cli *c, struct cmd_opts *o);

/* cmd_pressure.c: pressure --watch (unless --table) */
int cmd_pressure_lines(const struct mi_cli *c, struct cmd_opts *o);
/* seconds from a to b (cmd_pressure.c) */
double elapsed(const struct timespec *a, const struct timespec *b);
/* cmd_latency.c */
int cmd_latency(const struct mi_cli *c, struct cmd_opts *o);

/* cmd_files.c */
int cmd_files(const struct mi_cli *c, struct cmd_opts *o);

/* cmd_slab.c */
int cmd_slab(const struct mi_cli *c, struct cmd_opts *o);
/* --sort KEY of slab; NULL if it is none of them */
const struct slab_key *slab_key(const char *name);
bool slab_sorts_by_growth(const struct slab_opts *o);

/* cmd_allocs.c */
int cmd_allocs(const struct mi_cli *c, struct cmd_opts *o);
/* --sort KEY of allocs: its field, or NULL */
const char *allocs_sort_field(const char *name);
/* the --sort field (of the table) has a counterpart in outstanding */
bool allocs_sort_outstanding(const char *field);

/* cmd_process.c */
int cmd_mm(const struct mi_cli *c, struct cmd_opts *o);
int cmd_vmas(const struct mi_cli *c, struct cmd_opts *o);
int cmd_top(const struct mi_cli *c, struct cmd_opts *o);
/* --sort KEY of vmas and top: its field, or NULL */
const char *process_sort_field(const char *key);
bool process_is_pid(const char *s);

/* cmd_report.c */
int cmd_report(const struct mi_cli *c, struct cmd_opts *o);
int cmd_export(const struct mi_cli *c, struct cmd_opts *o);

#endif
