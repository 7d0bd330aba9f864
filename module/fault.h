/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection (docs/fault.md): state shared by fault.c (arming, the
 * decision, stats), fault_knobs.c (the knob files), fault_log.c (the log),
 * fault_probe.c (entry points and the probe handler), fault_aim.c (aim
 * matching), fault_frames.c (the call's unwind, wrappers) and fault_caller.c
 * (spared callers).
 */
#ifndef MI_FAULT_H
#define MI_FAULT_H

#include <linux/gfp.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "fault_parse.h"

struct cgroup;
struct dentry;
struct module;
struct pid;
struct seq_file;
struct mi_cap;

enum mi_fault_site {
	MI_SITE_SLAB,
	MI_SITE_PAGES,
	MI_NR_SITES
};

extern const char *const mi_fault_site_names[MI_NR_SITES];

/*
 * The settings as written (@cur) and their names resolved (@pid, @cgrp):
 * fault_knobs.c writes them, fault.c arms with them.  Everything here
 * changes only under @lock (taken killably by writers), and the settings
 * only while disarmed.
 */
struct mi_fault_state {
	struct mutex lock;		/* everything here */
	struct mi_fault_settings cur;
	struct pid *pid;		/* cur.aim_pid resolved, referenced */
	struct cgroup *cgrp;		/* cur.aim_cgroup resolved, referenced */
	bool armed;
};

extern struct mi_fault_state mi_fault_state;

/*
 * What the handlers read while armed: written by fault.c before the probes
 * are registered, not changed until they are unregistered (every knob
 * write is -EBUSY while armed), except @mod, which the module notifier
 * clears when the aimed module goes away.
 */
struct mi_fault_armed {
	struct mi_fault_settings set;
	struct pid *pid;		/* aim-pid, referenced by fault_knobs.c */
	struct cgroup *cgrp;		/* aim-cgroup, referenced by fault_knobs.c */
	const void *cache;		/* aim-cache: compared, never dereferenced */
	bool cache_set;
	struct module *mod;		/* aim-module; NULL until it comes, once it goes */
	bool mod_set;
};

extern struct mi_fault_armed mi_fault_cfg;
/* set when disarming starts or the duration ends: the handlers fail nothing */
extern bool mi_fault_stopped;

/* One call seen by the handler. */
struct mi_fault_call {
	enum mi_fault_site site;
	const void *cache;		/* NULL if the entry point has none */
	unsigned long size;		/* bytes; 0 if unknown */
	gfp_t gfp;
	int order;			/* pages; -1 for slab */
	unsigned long caller;		/* return address of the entry call */
	/*
	 * The probed location as the handler's registers show it: the probed
	 * address on arm64 (the BRK), one byte past it on x86-64 (kprobes set
	 * the ip as after an int3, through ftrace too).  A frame-pointer
	 * unwinder that meets the probe's register frame reports this ip.
	 */
	unsigned long regs_ip;
	/*
	 * The allocating code's frames, from the first outside the allocator
	 * (fault_frames.c's mi_fault_frames()): unwound once per call, by the
	 * first question that needs them, into this CPU's buffer; @nframes
	 * is -1 until then.  @nested: a probed entry point of an attached
	 * site is among the allocator's frames below them.
	 */
	int nframes;
	const unsigned long *frames;
	bool nested;
};

/* fault_probe.c */
int mi_fault_probes_init(struct mi_cap *caps);	/* one row per site */
int mi_fault_probes_register(unsigned int sites, char *why, size_t len);
void mi_fault_probes_unregister(void);
bool mi_fault_site_attached(enum mi_fault_site site);
void mi_fault_show_unprobed(struct seq_file *m);
bool mi_fault_verify(enum mi_fault_site site);
void mi_fault_set_owner(bool owner);
unsigned int mi_fault_max_order(void);

/* fault_aim.c */
bool mi_fault_aim_match(const struct mi_fault_armed *a,
			struct mi_fault_call *c);
int mi_fault_aim_init(void);
void mi_fault_aim_exit(void);
bool mi_fault_aim_module_arm(const char *name);
/* the users of the module aim: the injector's aim-module, allocs' aim_module */
enum mi_aim_mod_user {
	MI_AIM_MOD_FAULT,
	MI_AIM_MOD_ALLOCS,
	MI_AIM_MOD_NR
};

bool mi_aim_module_arm(enum mi_aim_mod_user who, const char *name);
/*
 * The process @nr of the writer's pid namespace, referenced (put_pid()),
 * NULL if none: the injector's aim-pid and allocs' aim_pid
 */
struct pid *mi_aim_pid_get(int nr);
struct module *mi_aim_module(enum mi_aim_mod_user who);
bool mi_fault_aim_module_available(void);
bool mi_fault_aim_module_present(void);

/* fault_frames.c: past the page allocator's own wrappers */
void mi_fault_caller_init(void);
unsigned int mi_fault_nr_wrappers(void);
/* also allocs_pages.c's: a return address inside one of those wrappers? */
bool mi_in_wrapper(unsigned long addr);
/* the code range of function @name (ksyms); false: no such function */
bool mi_func_range(const char *name, unsigned long *start, unsigned long *end);

/*
 * Functions found by name at init (ksyms), each as its code range, that
 * probes compare return addresses with: no lookup, no lock.  fill packs
 * the ranges of those of @names the kernel has into @out and says how
 * many; hold says whether @addr lies in one of @nr (NOKPROBE: the
 * injector's handler calls it).
 */
struct mi_code_range {
	unsigned long start, end;
};

unsigned int mi_code_ranges_fill(const char *const *names, unsigned int nr,
				 struct mi_code_range *out);
bool mi_code_ranges_hold(const struct mi_code_range *r, unsigned int nr,
			 unsigned long addr);
unsigned long mi_fault_alloc_caller(struct mi_fault_call *c);
bool mi_fault_caller_in(struct mi_fault_call *c, struct module *mod,
			unsigned int depth);
/*
 * fault_probe.c: is @addr inside a probed entry point of an attached site?
 * (a call made by another entry point is part of that one's allocation)
 */
bool mi_fault_in_entry_point(unsigned long addr);
/*
 * fault_frames.c: the allocating code's frames of @c (from the first
 * outside the allocator), unwound once per call; how many
 */
unsigned int mi_fault_frames(struct mi_fault_call *c,
			     const unsigned long **frames);
/* fault_frames.c: was @c made by an attached entry point, past wrappers? */
bool mi_fault_nested(struct mi_fault_call *c);

/* fault_caller.c: exclude-caller and the built-in spared callers */
void mi_fault_exclude_init(void);
int mi_fault_exclude_check(const char *list);
int mi_fault_exclude_arm(const char *list);
bool mi_fault_excluded(struct mi_fault_call *c);
void mi_fault_exclude_show(struct seq_file *m);

/* fault_knobs.c */
int mi_fault_knobs_create(struct dentry *dir);
void mi_fault_knobs_exit(void);

/* fault.c: called with mi_fault_state.lock held */
int mi_fault_arm(void);
void mi_fault_disarm(void);
void mi_fault_linger_end(void);

/* fault.c: called by the handler */
enum { MI_CNT_CHECKED, MI_CNT_MATCHED, MI_CNT_FAILED, MI_CNT_NOFAIL,
	MI_CNT_SPARED, MI_NR_CNT };
void mi_fault_count(enum mi_fault_site site, int what);
bool mi_fault_should_fail(struct mi_fault_call *c);

/* fault_log.c: mi_fault_record() called by the handler */
void mi_fault_record(struct mi_fault_call *c);
void mi_fault_log_init(void);
void mi_fault_log_reset(void);
void mi_fault_log_quiesce(void);
int mi_fault_log_create(struct dentry *dir);
/* fault_log.c: called by fault_aim.c's notifier */
void mi_fault_log_module_going(struct module *mod);

int mi_fault_init(struct dentry *parent);
void mi_fault_exit(void);

#endif /* MI_FAULT_H */
