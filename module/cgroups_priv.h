/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What cgroups.c (the memcg list, the census of pages, the cgroups file)
 * and cgroups_slab.c (each slab object's obj_cgroup, the cgroup_slabs
 * file) share: one read's table.  docs/cgroups.md.
 */
#ifndef MI_CGROUPS_PRIV_H
#define MI_CGROUPS_PRIV_H

#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "pages.h"

/* memcgs in one read's table; more are counted in a "# cap:" note */
#define MI_CG_MAX	4096
/* the table's index: twice as many slots as entries, open addressing */
#define MI_CG_HASH_BITS	13

enum { MI_CG_ANON, MI_CG_FILE, MI_CG_SHMEM, MI_CG_NR };

struct mem_cgroup;
struct mi_cg_slabs;

struct mi_cg {
	struct mem_cgroup *memcg;	/* css reference held */
	u64 ino;
	bool dying;			/* when listed */
	unsigned long n[MI_CG_NR];	/* pages */
	u64 slab_bytes;			/* charged objects x (size + pointer) */
};

struct mi_cg_read {
	struct mi_cg *cg;		/* MI_CG_MAX entries */
	u32 *slot;			/* index + 1 into @cg, 0: empty */
	char *path;			/* PATH_MAX, for the paths printed */
	unsigned int nr;		/* entries in @cg, referenced */
	unsigned int nrec;		/* records of the file: @nr, or pairs */
	bool pairs;			/* the cgroup_slabs file */
	unsigned long over;		/* memcgs past the cap */
	unsigned long unlisted;		/* pages of memcgs not in @cg */
	unsigned long uncharged;	/* anon, file, shmem pages of no memcg */
	struct mi_census census;	/* the cost, for the "# walk:" note */
	u64 zones;
	bool walked;			/* @cg holds a walk's figures */
	struct mi_cg_slabs *slabs;	/* the slab side (cgroups_slab.c) */
};

/* cgroups.c */
u32 mi_cg_index(struct mi_cg_read *r, const struct mem_cgroup *memcg);
int mi_cg_read_open(struct mi_cg_read *r, bool pairs);
void mi_cg_read_close(struct mi_cg_read *r);
int mi_cg_walk(struct mi_cg_read *r);
/* the seq_file of both files: records 0 header, 1..nrec, nrec + 1 notes */
void *mi_cg_seq_start(struct seq_file *m, loff_t *pos);
void *mi_cg_seq_next(struct seq_file *m, void *v, loff_t *pos);
void mi_cg_seq_stop(struct seq_file *m, void *v);
int mi_cg_seq_open(struct inode *inode, struct file *file,
		   const struct seq_operations *sops, bool pairs);
int mi_cg_seq_release(struct inode *inode, struct file *file);

/* cgroups_slab.c: NULL when slab attribution is not available */
struct mi_cg_slabs *mi_cg_slabs_alloc(bool pairs);
void mi_cg_slabs_free(struct mi_cg_slabs *s);
/* before the census: the caches; 0 or -EINTR */
int mi_cg_slabs_begin(struct mi_cg_read *r);
/* the census's callback for a slab's head page */
void mi_cg_slab_page(struct mi_cg_read *r, struct page *head);
/* after it: the pairs in print order; the file's records (nr or pairs) */
unsigned int mi_cg_slabs_end(struct mi_cg_read *r);
bool mi_cg_slab_available(void);
void mi_cg_slab_notes(struct seq_file *m, struct mi_cg_read *r);

#endif /* MI_CGROUPS_PRIV_H */
