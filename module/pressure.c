// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: reclaim and compaction pressure in one read (docs/pressure.md).
 *
 * Header "section scope name value delta unit".  The vmstat records are the
 * /proc/vmstat counters of the same name (all_vm_events() and
 * global_node_page_state(), as mm/vmstat.c sums them) with their change
 * since this open file's previous read (first read: since open): the
 * per-open state is the previous totals.  The psi records are
 * psi_system's memory averages and totals, as /proc/pressure/memory shows
 * them, the totals with a per-open delta as the vmstat counters;
 * psi_system is not exported, so it is looked up once at init and its
 * records are left out (with a note) where PSI is off.  The zone and
 * node records are free pages against the watermarks (/proc/zoneinfo) and
 * kswapd's state.  No lock is held while printing: each figure is one
 * word read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/psi.h>
#include <linux/psi_types.h>
#include <linux/sched/loadavg.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

#include "capabilities.h"
#include "compat.h"
#include "ksyms.h"
#include "pressure.h"
#include "zone_walk.h"

/*
 * Per-zone-type allocstall: FOR_ALL_ZONES(ALLOCSTALL) in vm_event_item.h
 * has one item per zone type up to ZONE_MOVABLE, in zone order.
 */
#define MI_NR_STALL_ZONES	(ZONE_MOVABLE + 1)

/* The vmstat counters, in the file's order. */
enum {
	MI_PR_ALLOCSTALL,
	MI_PR_ALLOCSTALL_ZONE,			/* MI_NR_STALL_ZONES of them */
	MI_PR_PGSCAN_DIRECT = MI_PR_ALLOCSTALL_ZONE + MI_NR_STALL_ZONES,
	MI_PR_PGSCAN_KSWAPD,
	MI_PR_PGSTEAL_DIRECT,
	MI_PR_PGSTEAL_KSWAPD,
	MI_PR_COMPACT_STALL,
	MI_PR_COMPACT_FAIL,
	MI_PR_COMPACT_SUCCESS,
	MI_PR_OOM_KILL,
	MI_PR_REFAULT_ANON,
	MI_PR_REFAULT_FILE,
	MI_PR_NR
};

static const char *const mi_pr_names[MI_PR_NR] = {
	[MI_PR_ALLOCSTALL] = "allocstall",
	[MI_PR_PGSCAN_DIRECT] = "pgscan_direct",
	[MI_PR_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[MI_PR_PGSTEAL_DIRECT] = "pgsteal_direct",
	[MI_PR_PGSTEAL_KSWAPD] = "pgsteal_kswapd",
	[MI_PR_COMPACT_STALL] = "compact_stall",
	[MI_PR_COMPACT_FAIL] = "compact_fail",
	[MI_PR_COMPACT_SUCCESS] = "compact_success",
	[MI_PR_OOM_KILL] = "oom_kill",
	[MI_PR_REFAULT_ANON] = "workingset_refault_anon",
	[MI_PR_REFAULT_FILE] = "workingset_refault_file",
};

/* psi_system's totals (us), kept per open file as the vmstat counters are */
enum { MI_PSI_SOME, MI_PSI_FULL, MI_PSI_NR };

struct mi_pressure_state {
	u64 prev[MI_PR_NR];
	u64 now[MI_PR_NR];
	u64 psi_prev[MI_PSI_NR];
	u64 psi_now[MI_PSI_NR];
	unsigned long events[NR_VM_EVENT_ITEMS];	/* all_vm_events() scratch */
};

enum {
	MI_ROW_PSI,
	MI_ROW_COMPACTION,
	MI_ROW_EVENTS,
	MI_NR_ROWS
};

static struct mi_cap mi_pressure_caps[MI_NR_ROWS] = {
	[MI_ROW_PSI] = { .name = "pressure.psi", .kind = MI_CAP_FIELD },
	[MI_ROW_COMPACTION] = { .name = "pressure.compact",
				.kind = MI_CAP_FIELD },
	[MI_ROW_EVENTS] = { .name = "pressure.events", .kind = MI_CAP_FIELD },
};

static struct mi_cap_table mi_pressure_table;

#ifdef CONFIG_PSI
/* psi_system, when PSI is on; NULL otherwise (mi_pressure_init()). */
static struct psi_group *mi_psi_system;

/* psi_show(): the total in microseconds */
static void mi_pressure_psi_snapshot(struct mi_pressure_state *st)
{
	struct psi_group *g = mi_psi_system;

	if (!g)
		return;
	st->psi_now[MI_PSI_SOME] =
		div_u64(READ_ONCE(g->total[PSI_AVGS][PSI_MEM_SOME]), NSEC_PER_USEC);
	st->psi_now[MI_PSI_FULL] =
		div_u64(READ_ONCE(g->total[PSI_AVGS][PSI_MEM_FULL]), NSEC_PER_USEC);
}
#else
static void mi_pressure_psi_snapshot(struct mi_pressure_state *st)
{
}
#endif

static void mi_pressure_snapshot(struct mi_pressure_state *st)
{
	unsigned long *ev = st->events;
	u64 *v = st->now;
	int i;

	mi_pressure_psi_snapshot(st);
	all_vm_events(ev);
	v[MI_PR_ALLOCSTALL] = 0;
	for (i = 0; i < MI_NR_STALL_ZONES; i++) {
		v[MI_PR_ALLOCSTALL_ZONE + i] =
			ev[ALLOCSTALL_NORMAL - ZONE_NORMAL + i];
		v[MI_PR_ALLOCSTALL] += v[MI_PR_ALLOCSTALL_ZONE + i];
	}
	/*
	 * PGSCAN_* and PGSTEAL_* are node stats in the 7.3 headers (not in
	 * 6.12's; upstream hash not checked here): there the same names index
	 * enum node_stat_item, and all_vm_events() has no such counters.
	 */
#ifdef MI_HAVE_PGSCAN_NODE_STAT
	v[MI_PR_PGSCAN_DIRECT] = global_node_page_state(PGSCAN_DIRECT);
	v[MI_PR_PGSCAN_KSWAPD] = global_node_page_state(PGSCAN_KSWAPD);
	v[MI_PR_PGSTEAL_DIRECT] = global_node_page_state(PGSTEAL_DIRECT);
	v[MI_PR_PGSTEAL_KSWAPD] = global_node_page_state(PGSTEAL_KSWAPD);
#else
	v[MI_PR_PGSCAN_DIRECT] = ev[PGSCAN_DIRECT];
	v[MI_PR_PGSCAN_KSWAPD] = ev[PGSCAN_KSWAPD];
	v[MI_PR_PGSTEAL_DIRECT] = ev[PGSTEAL_DIRECT];
	v[MI_PR_PGSTEAL_KSWAPD] = ev[PGSTEAL_KSWAPD];
#endif
#ifdef CONFIG_COMPACTION
	v[MI_PR_COMPACT_STALL] = ev[COMPACTSTALL];
	v[MI_PR_COMPACT_FAIL] = ev[COMPACTFAIL];
	v[MI_PR_COMPACT_SUCCESS] = ev[COMPACTSUCCESS];
#endif
	v[MI_PR_OOM_KILL] = ev[OOM_KILL];
	/*
	 * node counters since "mm: workingset: age nonresident information
	 * alongside anonymous pages" (170b04b7ae49, v5.9) split them
	 */
	v[MI_PR_REFAULT_ANON] = global_node_page_state(WORKINGSET_REFAULT_ANON);
	v[MI_PR_REFAULT_FILE] = global_node_page_state(WORKINGSET_REFAULT_FILE);
}

/* the vmstat name of zone type @idx, "allocstall_" + the lower-case zone name */
static void mi_pressure_stall_name(struct seq_file *m, int idx)
{
	const char *s = NODE_DATA(first_online_node)->node_zones[idx].name;

	seq_puts(m, "allocstall_");
	for (; s && *s; s++)
		seq_putc(m, tolower(*s));
}

static void mi_pressure_show_vmstat(struct seq_file *m,
				    struct mi_pressure_state *st)
{
	int i;

	mi_pressure_snapshot(st);
	for (i = 0; i < MI_PR_NR; i++) {
		bool zone = i >= MI_PR_ALLOCSTALL_ZONE &&
			    i < MI_PR_ALLOCSTALL_ZONE + MI_NR_STALL_ZONES;

#ifndef CONFIG_COMPACTION
		if (i >= MI_PR_COMPACT_STALL && i <= MI_PR_COMPACT_SUCCESS)
			continue;
#endif
		/* without VM_EVENT_COUNTERS all_vm_events() is a stub of zeros */
		if (!IS_ENABLED(CONFIG_VM_EVENT_COUNTERS) && i < MI_PR_REFAULT_ANON)
			continue;
		seq_puts(m, "vmstat all ");
		if (zone)
			mi_pressure_stall_name(m, i - MI_PR_ALLOCSTALL_ZONE);
		else
			seq_puts(m, mi_pr_names[i]);
		seq_printf(m, " %llu %llu events\n", st->now[i],
			   st->now[i] - st->prev[i]);
	}
}

#ifdef CONFIG_PSI
/* one avg as /proc/pressure/memory's "%lu.%02lu", in hundredths of a percent */
static unsigned long mi_psi_centi(unsigned long avg)
{
	return LOAD_INT(avg) * 100 + LOAD_FRAC(avg);
}

static void mi_pressure_show_psi(struct seq_file *m,
				 struct mi_pressure_state *st)
{
	static const char *const win[3] = { "avg10", "avg60", "avg300" };
	struct psi_group *g = mi_psi_system;
	int full, w;

	if (!g) {
		seq_puts(m, "# psi: unavailable (see capabilities pressure.psi)\n");
		return;
	}
	for (full = 0; full < 2; full++) {
		int s = full ? PSI_MEM_FULL : PSI_MEM_SOME;
		int t = full ? MI_PSI_FULL : MI_PSI_SOME;
		const char *kind = full ? "full" : "some";

		for (w = 0; w < 3; w++)
			seq_printf(m, "psi memory %s_%s %lu - centipercent\n",
				   kind, win[w],
				   mi_psi_centi(READ_ONCE(g->avg[s][w])));
		/* taken with the vmstat counters (mi_pressure_snapshot()) */
		seq_printf(m, "psi memory %s_total %llu %llu us\n", kind,
			   st->psi_now[t], st->psi_now[t] - st->psi_prev[t]);
	}
}
#else
static void mi_pressure_show_psi(struct seq_file *m,
				 struct mi_pressure_state *st)
{
	seq_puts(m, "# psi: unavailable (see capabilities pressure.psi)\n");
}
#endif

static void mi_pressure_show_zones(struct seq_file *m)
{
	struct zone *zone = NULL;

	while ((zone = mi_next_populated_zone(zone))) {
		long free = zone_page_state(zone, NR_FREE_PAGES);
		long wm[3] = { min_wmark_pages(zone), low_wmark_pages(zone),
			       high_wmark_pages(zone) };
		static const char *const names[3] = { "min", "low", "high" };
		int nid = zone_to_nid(zone), i;

		seq_printf(m, "zone %d/%s free %ld - pages\n", nid, zone->name,
			   free);
		for (i = 0; i < 3; i++) {
			seq_printf(m, "zone %d/%s %s %ld - pages\n", nid,
				   zone->name, names[i], wm[i]);
			seq_printf(m, "zone %d/%s %s_distance %ld - pages\n",
				   nid, zone->name, names[i], free - wm[i]);
		}
	}
}

static void mi_pressure_show_nodes(struct seq_file *m)
{
	int nid;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);
		bool running;

		/*
		 * kswapd sleeps on kswapd_wait; wakeup_kswapd() tests the
		 * same thing to decide whether to wake it.  No barrier: a
		 * snapshot for display, racing with kswapd by nature.
		 */
		running = !waitqueue_active(&pgdat->kswapd_wait);
		seq_printf(m, "node %d kswapd_running %d - bool\n", nid, running);
		seq_printf(m, "node %d kswapd_failures %d - runs\n", nid,
			   mi_kswapd_failures(pgdat));
	}
}

static int mi_pressure_show(struct seq_file *m, void *v)
{
	struct mi_pressure_state *st = m->private;

	seq_puts(m, "section scope name value delta unit\n");
	mi_pressure_show_vmstat(m, st);
	mi_pressure_show_psi(m, st);
	mi_pressure_show_zones(m);
	mi_pressure_show_nodes(m);
	/*
	 * The next read's deltas start here only if this output is the one
	 * read: on an overflow seq_read() calls the show again with a larger
	 * buffer, which must print the same deltas, not ones since now.
	 */
	if (!seq_has_overflowed(m)) {
		memcpy(st->prev, st->now, sizeof(st->prev));
		memcpy(st->psi_prev, st->psi_now, sizeof(st->psi_prev));
	}
	return 0;
}

static int mi_pressure_open(struct inode *inode, struct file *file)
{
	struct mi_pressure_state *st;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	/* the first read's delta is since open */
	mi_pressure_snapshot(st);
	memcpy(st->prev, st->now, sizeof(st->prev));
	memcpy(st->psi_prev, st->psi_now, sizeof(st->psi_prev));
	err = single_open_size(file, mi_pressure_show, st, 8192);
	if (err)
		kfree(st);
	return err;
}

static int mi_pressure_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	kfree(m->private);
	return single_release(inode, file);
}

const struct file_operations mi_pressure_fops = {
	.owner = THIS_MODULE,
	.open = mi_pressure_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = mi_pressure_release,
};

static void mi_pressure_psi_init(void)
{
	struct mi_cap *cap = &mi_pressure_caps[MI_ROW_PSI];
#ifdef CONFIG_PSI
	struct mi_ksym_set set = MI_KSYM_SET_INIT;
	struct static_key_false *off;
	struct psi_group *g;

	g = (struct psi_group *)mi_ksym_in(&set, "psi_system");
	off = (struct static_key_false *)mi_ksym_in(&set, "psi_disabled");
	if (!set.ok) {
		mi_ksym_set_missing(cap, &set);
		return;
	}
	/* psi_disabled is set at boot (psi=0, PSI_DEFAULT_DISABLED), never after */
	if (static_key_enabled(off)) {
		mi_cap_set(cap, false,
			   "PSI is disabled on this boot (psi=0 or CONFIG_PSI_DEFAULT_DISABLED): psi_system is never updated, no psi records");
		return;
	}
	mi_psi_system = g;
	mi_cap_set(cap, true,
		   "psi_system (not exported) via ksyms: avg[PSI_MEM_SOME/FULL] and total[PSI_AVGS] read as psi_show() prints them, without its aggregation (up to 2 s older than /proc/pressure/memory)");
#else
	mi_cap_set(cap, false, "kernel built without CONFIG_PSI: no psi records");
#endif
}

void mi_pressure_init(void)
{
	mi_pressure_psi_init();
	/* compact_* are vm events: all_vm_events() is a stub without them */
	if (!IS_ENABLED(CONFIG_COMPACTION))
		mi_cap_set(&mi_pressure_caps[MI_ROW_COMPACTION], false,
			   "kernel built without CONFIG_COMPACTION: no compact_* records");
	else if (!IS_ENABLED(CONFIG_VM_EVENT_COUNTERS))
		mi_cap_set(&mi_pressure_caps[MI_ROW_COMPACTION], false,
			   "kernel built without CONFIG_VM_EVENT_COUNTERS: compact_* are vm events, no records");
	else
		mi_cap_set(&mi_pressure_caps[MI_ROW_COMPACTION], true,
			   "COMPACTSTALL/COMPACTFAIL/COMPACTSUCCESS from all_vm_events()");
	if (IS_ENABLED(CONFIG_VM_EVENT_COUNTERS))
		mi_cap_set(&mi_pressure_caps[MI_ROW_EVENTS], true,
			   "allocstall*, pgscan_*, pgsteal_*, oom_kill from all_vm_events()");
	else
		mi_cap_set(&mi_pressure_caps[MI_ROW_EVENTS], false,
			   "kernel built without CONFIG_VM_EVENT_COUNTERS: only the workingset_refault_* vmstat records");
	mi_caps_register(&mi_pressure_table, mi_pressure_caps, MI_NR_ROWS);
}

void mi_pressure_exit(void)
{
	mi_caps_unregister(&mi_pressure_table);
}
