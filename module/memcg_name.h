/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memory cgroup's name as users see it (memcg_name.c): the cgroup2
 * directory's inode number, its path, and whether it is online.  Every
 * helper takes a memcg whose css the caller holds a reference on.
 */
#ifndef MI_MEMCG_NAME_H
#define MI_MEMCG_NAME_H

#include <linux/seq_file.h>
#include <linux/types.h>

struct mem_cgroup;

/* what `stat -c %i` gives for the cgroup's directory */
u64 mi_memcg_ino(struct mem_cgroup *memcg);
/* removed (rmdir) and not yet freed: killed or offline */
bool mi_memcg_dying(struct mem_cgroup *memcg);
/* the path from the hierarchy's root ("/" for the root), escaped */
void mi_memcg_put_path(struct seq_file *m, struct mem_cgroup *memcg,
		       char *buf, size_t len);

#endif /* MI_MEMCG_NAME_H */
