// SPDX-License-Identifier: GPL-2.0
/*
 * A memory cgroup's name as users see it (memcg_name.h).  The caller holds
 * a css reference: it keeps the memcg, its cgroup and the cgroup's kernfs
 * node (put when the cgroup is freed), so a removed cgroup still has the
 * inode number and path it had.
 */
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/seq_file.h>

#include "memcg_name.h"
#include "text.h"

u64 mi_memcg_ino(struct mem_cgroup *memcg)
{
	return cgroup_ino(memcg->css.cgroup);
}

/*
 * rmdir kills the css (css_is_dying() from then on) and takes it offline
 * (CSS_ONLINE cleared) once its users are gone; the memcg lives on while
 * anything still holds a reference: what cgroup.stat's
 * nr_dying_descendants counts.
 */
bool mi_memcg_dying(struct mem_cgroup *memcg)
{
	struct cgroup_subsys_state *css = &memcg->css;

	return css_is_dying(css) || !(READ_ONCE(css->flags) & CSS_ONLINE);
}

/*
 * cgroup_path() is kernfs_path() on the cgroup's node: a spinlock, no
 * sleep, no cgroup_mutex (cgroup_path_ns() would take it).  Escaped as a
 * comm is (text.c): any user who may mkdir in cgroupfs names the cgroup.
 */
void mi_memcg_put_path(struct seq_file *m, struct mem_cgroup *memcg,
		       char *buf, size_t len)
{
	int n = cgroup_path(memcg->css.cgroup, buf, len);

	if (n < 0) {
		seq_puts(m, "-");
		return;
	}
	mi_put_comm(m, buf);
}
