/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pieces of mm and vmas share (docs/procmem.md): procmem.c (the
 * two files, their capabilities rows and init), procmem_walk.c (the page
 * walk), procmem_target.c (the process a file shows) and procmem_procs.c
 * (procs: every process's rollup).
 */
#ifndef MI_PROCMEM_PRIV_H
#define MI_PROCMEM_PRIV_H

#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/pagewalk.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/static_call.h>
#include <linux/swap.h>
#include <linux/types.h>

#include "compat.h"

/* smaps keeps PSS in 1/4096 bytes (PSS_SHIFT in fs/proc/task_mmu.c) */
#define MI_PSS_SHIFT	12

/* What init found (procmem.c). */
struct mi_pm_state {
	bool walk;		/* the page walk works: rollup figures */
	bool swap;		/* swp_swapcount and the shmem swap helpers */
	bool swap_figs;		/* swap_kb, swap_pss_kb are right (mm.swap_pss) */
	bool access;		/* mm_access: other pids may be chosen */
	bool procs;		/* mm_access and find_ge_pid: the procs file */
	int *max_map_count;	/* sysctl_max_map_count */
};

extern struct mi_pm_state mi_pm;

/*
 * Unexported helpers, found once at init (procmem.c) and called directly
 * (ksyms.h): the walk's in procmem_walk.c, mm_access in procmem_target.c,
 * find_ge_pid in procmem_procs.c; shmem_mapping, vm_normal_page and the
 * PTE table's map-and-lock are compat_procmem.h's.
 */
DECLARE_STATIC_CALL(mi_walk_page_range, walk_page_range);
DECLARE_STATIC_CALL(mi_walk_page_vma, walk_page_vma);
DECLARE_STATIC_CALL(mi_vm_normal_page_pmd, vm_normal_page_pmd);
DECLARE_STATIC_CALL(mi_mm_access, mm_access);
DECLARE_STATIC_CALL(mi_find_ge_pid, find_ge_pid);
DECLARE_STATIC_CALL(mi_swp_swapcount, swp_swapcount);
DECLARE_STATIC_CALL(mi_shmem_swap_usage, shmem_swap_usage);
DECLARE_STATIC_CALL(mi_shmem_partial_swap_usage, shmem_partial_swap_usage);

/* ---- the page walk (procmem_walk.c) ---- */

/* The walk figures, in bytes (PSS in bytes << MI_PSS_SHIFT), as smaps. */
struct mi_mss {
	unsigned long resident;
	unsigned long shared_clean;
	unsigned long shared_dirty;
	unsigned long private_clean;
	unsigned long private_dirty;
	unsigned long referenced;
	unsigned long anonymous;
	unsigned long lazyfree;
	unsigned long anon_thp;
	unsigned long shmem_thp;
	unsigned long file_thp;
	unsigned long swap;
	u64 pss;
	u64 pss_anon;
	u64 pss_file;
	u64 pss_shmem;
	u64 pss_dirty;
	u64 pss_locked;
	u64 swap_pss;
	unsigned long shared_hugetlb;
	unsigned long private_hugetlb;
};

/*
 * One walk of @mm.  The caller holds mm_users and, while w->locked,
 * mmap_lock for read.  Each VMA is walked whole by one walker call, which
 * our callbacks stop (returning 1, the address to resume from in w->stop)
 * when the budget is spent or the lock is wanted; the caller then drops
 * the lock and resumes by address.  The walker's private data is the walk.
 */
struct mi_walk {
	struct mm_struct *mm;
	struct mi_mss *mss;	/* where the figures go */
	bool locked;		/* mmap_lock held for read */
	bool exited;		/* the target exited during the walk */
	bool moved;		/* a PMD or a hole was walked in this hold */
	bool reset;		/* the lock was dropped since vmi was placed */
	unsigned long work;	/* entries visited in this hold */
	unsigned long stop;	/* where a callback stopped the walk */
	unsigned long drops;	/* times the lock was dropped */
	struct mi_vma_iter vmi;	/* the VMAs, in address order */
	/*
	 * Shmem swap below this address was counted from the object
	 * (shmem_swap_usage() of a VMA walked from its start): a VMA found
	 * there after the lock was dropped (one split at the cursor, or put
	 * back in its place) must not count it again.  The walk only moves up.
	 */
	unsigned long swap_counted;
};

int mi_walk_lock(struct mi_walk *w);
void mi_walk_unlock(struct mi_walk *w);
int mi_walk_yield(struct mi_walk *w, bool force);
struct vm_area_struct *mi_walk_next_vma(struct mi_walk *w, unsigned long addr);
int mi_walk_range(struct mi_walk *w, struct vm_area_struct *vma,
		  unsigned long addr, unsigned long end, unsigned long *nr);

/* ---- what mm and procs print (procmem.c) ---- */

#define MI_MSS_HEADER "rss_kb pss_kb pss_dirty_kb pss_anon_kb pss_file_kb " \
	"pss_shmem_kb uss_kb shared_clean_kb shared_dirty_kb "		\
	"private_clean_kb private_dirty_kb referenced_kb anonymous_kb "	\
	"lazyfree_kb anon_huge_kb shmem_pmd_kb file_pmd_kb swap_kb "	\
	"swap_pss_kb locked_kb shared_hugetlb_kb private_hugetlb_kb"

/* The figures task_mem() prints for /proc/PID/status. */
struct mi_mm_fig {
	unsigned long total_vm, hiwater_vm, anon, file, shmem, hiwater_rss;
	unsigned long data_vm, exec_vm, stack_vm, locked_vm, pinned_vm, swap;
	unsigned long pgtables, start_code, end_code, start_data, end_data;
	unsigned long start_brk, brk, start_stack;
	int map_count;
};

int mi_walk_mm(struct mi_walk *w, struct mi_mm_fig *g, unsigned long *vmas);
void mi_put_mss(struct seq_file *m, const struct mi_mss *s);

/* ---- the target process (procmem_target.c) ---- */

/* Per open file: the target.  NULL pid: the reading process. */
struct mi_target {
	struct mutex lock;	/* protects pid */
	struct pid *pid;
};

/* What a read found when it looked for the target's memory. */
struct mi_found {
	struct mm_struct *mm;	/* mm_users held, or NULL: see why */
	const char *why;
	pid_t nr;
	char comm[TASK_COMM_LEN];
};

int mi_target_find(struct mi_target *t, struct mi_found *f);
void mi_target_init(struct mi_target *t);
void mi_target_release(struct mi_target *t);
/* ->write of a seq_file whose private data starts with its mi_target */
ssize_t mi_target_fwrite(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos);

#endif /* MI_PROCMEM_PRIV_H */
