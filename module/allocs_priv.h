/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of allocs/ share: allocs.c (the site table and the
 * object hash, arming), allocs_probes.c (the kmem tracepoints),
 * allocs_bulk.c (the bulk frees), allocs_pages.c (page allocations),
 * allocs_knobs.c (the knobs), allocs_aim.c (the aims' writes),
 * allocs_table.c (the table file), allocs_outstanding.c (the outstanding
 * file), allocs_names.c (names of sites in code that goes away).
 */
#ifndef MI_ALLOCS_PRIV_H
#define MI_ALLOCS_PRIV_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "fault_parse.h"

struct dentry;

#define MI_ALLOCS_SITES		1024	/* call sites tracked (power of 2) */
#define MI_ALLOCS_HASH_MIN	1024	/* hash_size's bounds and default */
#define MI_ALLOCS_HASH_MAX	BIT(22)
#define MI_ALLOCS_HASH_DEFAULT	BIT(16)
#define MI_ALLOCS_SAMPLE_MAX	BIT(30)	/* sample_bytes at most 1 GiB */
/* object counts are kept in 1/1024ths: a sampled object stands for N/s */
#define MI_ALLOCS_FP_SHIFT	10
#define MI_ALLOCS_FP_ONE	BIT(MI_ALLOCS_FP_SHIFT)
#define MI_ALLOCS_TOMB		1UL	/* a freed slot; never a slab pointer */
#define MI_ALLOCS_BUSY		2UL	/* being filled by one probe */

/* mi_allocs_site.cache besides a cache's address */
#define MI_ALLOCS_CACHE_NONE	0UL	/* no allocation seen yet */
#define MI_ALLOCS_CACHE_SEVERAL	1UL	/* objects of more than one cache */
#define MI_ALLOCS_CACHE_PAGES	2UL	/* pages: a large kmalloc, a page allocation */

/* page_stack: callers kept past a page allocation's site (knob, 0 .. this) */
#define MI_ALLOCS_STACK_MAX	4

/*
 * A row: a call site, or for pages with page_stack > 0 a site and its
 * callers.  key claims the slot (the call site, or the hash of site and
 * callers: never 0); call_site is published last, after stack, so a
 * reader that sees it sees the whole row.
 */
struct mi_allocs_site {
	unsigned long key;		/* 0 = free slot; set once per arming */
	unsigned long call_site;	/* 0 until the slot is filled */
	unsigned long stack[MI_ALLOCS_STACK_MAX];	/* callers; 0 past the last */
	unsigned long cache;		/* its objects' cache: compared only */
	/* estimates: counts in MI_ALLOCS_FP_ONE units, bytes in bytes */
	atomic64_t allocs, frees;
	atomic64_t live, live_req, live_alloc;
	atomic64_t samples;		/* objects followed, live now */
};

struct cgroup;

struct mi_allocs_obj {
	unsigned long ptr;		/* 0 empty, TOMB freed, BUSY claimed */
	u32 site;			/* index into mi_allocs.sites */
	u32 bytes_req, bytes_alloc;
	u32 born;			/* jiffies at the allocation, low 32 bits */
};

struct mi_allocs_state {
	struct mutex lock;		/* knobs, arming, the tables' lifetime */
	bool armed;
	int aim_pid;			/* 0 = any; as written */
	/*
	 * aim_pid resolved in the writer's pid namespace (a container's
	 * reader writes its own pids), referenced: compared with the
	 * allocating task's, so a pid recycled after the target exits never
	 * matches
	 */
	struct pid *pid;
	char aim_comm[TASK_COMM_LEN];	/* "" = any */
	char aim_module[MI_FAULT_NAME_LEN];	/* "" = any */
	bool mod_set;			/* armed with aim_module */
	char aim_cgroup[MI_FAULT_PATH_LEN];	/* "" = any */
	struct cgroup *cgrp;		/* aim_cgroup resolved, referenced */
	char aim_cache[MI_FAULT_NAME_LEN];	/* "" = any */
	const void *cache;		/* aim_cache resolved: compared only */
	unsigned int hash_size;		/* knob; the table has hash_cap slots */
	unsigned int hash_cap;
	unsigned int sample_bytes;	/* 0 = exact */
	bool pages;			/* knob: page allocations too */
	unsigned int page_stack;	/* knob: callers kept per page site */
	struct mi_allocs_site *sites;
	struct mi_allocs_obj *objs;
	unsigned long armed_at, disarmed_at;	/* jiffies */
	atomic64_t site_overflow, obj_overflow;
	atomic64_t page_nosite;		/* pages whose caller was not unwound */
	struct dentry *dir;
};

extern struct mi_allocs_state mi_allocs;

/* allocs_aim.c: knob writes, under mi_allocs.lock */
int mi_allocs_aim_module(const char *buf, size_t len);
int mi_allocs_aim_cgroup(const char *buf, size_t len);
int mi_allocs_aim_pid(int nr);
int mi_allocs_aim_cache(const char *buf, size_t len);

/* allocs.c: arming, under mi_allocs.lock */
int mi_allocs_set_armed(bool on);

/*
 * allocs.c: the probes' path, allocs_pages.c's too.  wanted: the task's
 * aims (pid, comm, cgroup) and the sampler, before any site is known;
 * store: the site's aims (module, cache: a page is of none) and the
 * object's slot; forget: a free.
 */
bool mi_allocs_wanted(size_t bytes_req);
void mi_allocs_store(unsigned long call_site, const unsigned long *stack,
		     const void *ptr, size_t bytes_req, size_t bytes_alloc,
		     bool pages);
void mi_allocs_forget(const void *ptr);

/* allocs_probes.c: the kmem tracepoints (and the bulk frees first) */
void mi_allocs_probes_init(void);
int mi_allocs_attach(void);
void mi_allocs_detach(void);

/* allocs_bulk.c: kprobes on the frees no tracepoint reports */
struct mi_cap;
void mi_allocs_bulk_init(struct mi_cap *cap);
int mi_allocs_bulk_attach(void);
void mi_allocs_bulk_detach(void);

/* allocs_names.c: a row's site as the table prints it */
struct seq_file;
void mi_allocs_put_site(struct seq_file *m, const struct mi_allocs_site *s,
			unsigned long call_site, bool hide);
int mi_allocs_names_init(void);
void mi_allocs_names_reset(void);
void mi_allocs_names_exit(void);

/* allocs_pages.c: the page tracepoints, attached under mi_allocs.lock */
void mi_allocs_pages_init(struct mi_cap *cap);
bool mi_allocs_pages_available(void);
int mi_allocs_pages_attach(void);
void mi_allocs_pages_detach(void);

/* the files: allocs_knobs.c, allocs_table.c, allocs_outstanding.c */
int mi_allocs_knobs_create(struct dentry *dir);
int mi_allocs_table_create(struct dentry *dir);
int mi_allocs_outstanding_create(struct dentry *dir);

#endif
