// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/'s aim knobs that take the injector's aims (docs/allocs.md):
 * aim_module, aim_cgroup and aim_cache are parsed by the injector's own
 * knob table (fault_parse.c), so both accept and refuse the same input,
 * and resolved as the injector resolves them.  Called with mi_allocs.lock
 * held (allocs.c's knob write); each checks its input before -EBUSY, so a
 * bad value is -EINVAL whether armed or not, and a refused write changes
 * nothing.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/string.h>

#include "allocs_priv.h"
#include "fault.h"
#include "fault_parse.h"
#include "slab.h"

/* Parsed into under mi_allocs.lock: too big for the stack. */
static struct mi_fault_settings mi_allocs_parsed;

/*
 * @buf parsed by the injector's knob @name into mi_allocs_parsed, cleared
 * first (a string knob written empty reads "").
 */
static int mi_allocs_parse_as(const char *name, const char *buf, size_t len)
{
	const struct mi_fault_knob *k;

	for (k = mi_fault_knobs; k->name; k++)
		if (!strcmp(k->name, name))
			break;
	if (WARN_ON_ONCE(!k->name))
		return -EINVAL;
	memset(&mi_allocs_parsed, 0, sizeof(mi_allocs_parsed));
	return mi_fault_parse_knob(k, buf, len, 0, &mi_allocs_parsed);
}

/* aim_module: a module name; -EOPNOTSUPP where modules cannot be found */
int mi_allocs_aim_module(const char *buf, size_t len)
{
	int err = mi_allocs_parse_as("aim-module", buf, len);

	if (err)
		return err;
	if (mi_allocs_parsed.aim_module[0] && !mi_fault_aim_module_available())
		return -EOPNOTSUPP;
	if (mi_allocs.armed)
		return -EBUSY;
	strscpy(mi_allocs.aim_module, mi_allocs_parsed.aim_module,
		sizeof(mi_allocs.aim_module));
	return 0;
}

/*
 * aim_pid: @nr, a process of the writer's pid namespace (find_vpid(), as
 * the injector's aim-pid), or 0 for any; -EINVAL if no such process.  The
 * reference is held until the next write or unload.  Under mi_allocs.lock,
 * disarmed.
 */
int mi_allocs_aim_pid(int nr)
{
	struct pid *pid = NULL;

	if (nr) {
		pid = mi_aim_pid_get(nr);
		if (!pid)
			return -EINVAL;
	}
	put_pid(mi_allocs.pid);
	mi_allocs.pid = pid;
	mi_allocs.aim_pid = nr;
	return 0;
}

/*
 * aim_cgroup: an absolute path from the cgroup v2 root, "" for any,
 * resolved now as the injector does (fault_knobs.c), the reference held
 * until the next write or unload.
 */
int mi_allocs_aim_cgroup(const char *buf, size_t len)
{
	struct cgroup *cgrp = NULL;
	int err;

	err = mi_allocs_parse_as("aim-cgroup", buf, len);
	if (err)
		return err;
	if (mi_allocs.armed)
		return -EBUSY;
	if (mi_allocs_parsed.aim_cgroup[0]) {
		cgrp = cgroup_get_from_path(mi_allocs_parsed.aim_cgroup);
		if (IS_ERR_OR_NULL(cgrp))
			return -EINVAL;
	}
	if (mi_allocs.cgrp)
		cgroup_put(mi_allocs.cgrp);
	mi_allocs.cgrp = cgrp;
	strscpy(mi_allocs.aim_cgroup, mi_allocs_parsed.aim_cgroup,
		sizeof(mi_allocs.aim_cgroup));
	return 0;
}

/*
 * aim_cache: a cache name as /proc/slabinfo prints it, "" for any, looked
 * up now on slab_caches (-EINVAL: no such cache; a merged cache's alias
 * name is not on the list, as for the injector).  The probes compare the
 * cache of each new object, read from its slab (slab_lookup.c), with the
 * one found: kmalloc() allocations count under their kmalloc-N cache, and
 * so do the caches merged into it.  The pointer is only compared: a cache
 * destroyed while aimed at matches nothing (or a new cache at its address).
 */
int mi_allocs_aim_cache(const char *buf, size_t len)
{
	const void *cache = NULL;
	char why[8];		/* capabilities says why: only yes or no here */
	int err;

	err = mi_allocs_parse_as("aim-cache", buf, len);
	if (err)
		return err;
	if (mi_allocs_parsed.aim_cache[0] &&
	    (!mi_slab_find_available(why, sizeof(why)) || !mi_slab_cache_of_available()))
		return -EOPNOTSUPP;
	if (mi_allocs.armed)
		return -EBUSY;
	if (mi_allocs_parsed.aim_cache[0]) {
		err = mi_slab_find_cache(mi_allocs_parsed.aim_cache, &cache);
		if (err)
			return err;
	}
	mi_allocs.cache = cache;
	strscpy(mi_allocs.aim_cache, mi_allocs_parsed.aim_cache,
		sizeof(mi_allocs.aim_cache));
	return 0;
}
