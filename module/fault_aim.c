// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: does one allocation match every aim (docs/fault.md)?
 * Called from the probe handler: no allocation, no sleeping, no lock other
 * than RCU read sections.
 *
 * aim-module names a module that may not be loaded yet: a module
 * notifier sets the pointer the handler reads when a module of that name
 * is COMING (its text is in place, its init has not run: a sweep of
 * "insmod foo.ko" fails foo's init), and clears it when the module is
 * GOING (unloaded, or its init or load failed), then waits for an RCU
 * grace period, which every handler (preemption off) running with the
 * old pointer has finished by then.  A module loaded when arming is found
 * with find_module(), not exported since "module: unexport find_module
 * and module_mutex" (089049f6c9956, v5.12): ksyms finds it, and it is
 * called directly (static call).
 *
 * allocs/ aims at a module too (aim_module): the same lookup and notifier
 * keep one pointer per user (enum mi_aim_mod_user), each with its name.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/static_call.h>
#include <linux/string.h>

#include "fault.h"
#include "ksyms.h"

/* longest parent chain followed for aim-children */
#define MI_MAX_ANCESTORS	256

DEFINE_STATIC_CALL_NULL(mi_find_module_call, struct module *(const char *));
static bool mi_find_module_ok;

/*
 * Serialises setting each user's module pointer against the notifier;
 * the name aimed at while armed ("" when none) is under it too, so the
 * notifier never reads the settings arming is writing.
 */
static DEFINE_SPINLOCK(mi_aim_mod_lock);
static struct module *mi_allocs_aim_mod;
static struct mi_aim_mod_slot {
	char name[MODULE_NAME_LEN];
	struct module **mod;		/* what that user's handlers read */
} mi_aim_mod_slots[MI_AIM_MOD_NR] = {
	[MI_AIM_MOD_FAULT] = { .mod = &mi_fault_cfg.mod },
	[MI_AIM_MOD_ALLOCS] = { .mod = &mi_allocs_aim_mod },
};

struct pid *mi_aim_pid_get(int nr)
{
	struct pid *pid;

	/* in the writer's pid namespace */
	rcu_read_lock();
	pid = find_vpid(nr);
	/* a process: its thread group leader is alive */
	if (pid && pid_task(pid, PIDTYPE_TGID))
		get_pid(pid);
	else
		pid = NULL;
	rcu_read_unlock();
	return pid;
}

static bool mi_task_aim(const struct mi_fault_armed *a)
{
	const struct mi_fault_settings *s = &a->set;
	struct task_struct *t;
	bool match = true;
	int n;

	if (s->aim_comm[0] &&
	    strncmp(current->comm, s->aim_comm, sizeof(current->comm)))
		return false;
	if (!a->pid && !a->cgrp)
		return true;
	rcu_read_lock();
	if (a->pid) {
		match = false;
		t = current;
		for (n = 0; n < MI_MAX_ANCESTORS; n++) {
			if (task_tgid(t) == a->pid) {
				match = true;
				break;
			}
			if (!s->aim_children || t->pid <= 1)
				break;
			t = rcu_dereference(t->real_parent);
		}
	}
	if (match && a->cgrp)
		match = task_under_cgroup_hierarchy(current, a->cgrp);
	rcu_read_unlock();
	return match;
}

NOKPROBE_SYMBOL(mi_task_aim);

/*
 * Is a return address inside @mod among the first aim-depth frames of the
 * allocating code (fault_caller.c: the allocator's wrappers not counted)?
 */
static bool mi_module_aim(const struct mi_fault_armed *a,
			  struct mi_fault_call *c)
{
	struct module *mod = READ_ONCE(a->mod);

	if (!mod)			/* unloaded while armed */
		return false;
	return mi_fault_caller_in(c, mod, a->set.aim_depth);
}

NOKPROBE_SYMBOL(mi_module_aim);

bool mi_fault_aim_match(const struct mi_fault_armed *a,
			struct mi_fault_call *c)
{
	const struct mi_fault_settings *s = &a->set;

	if (c->site == MI_SITE_PAGES) {
		if (c->order < (int)s->min_order || c->order > (int)s->max_order)
			return false;
		if (s->ignore_gfp_highmem && (c->gfp & __GFP_HIGHMEM))
			return false;
	}
	if (s->ignore_gfp_wait && (c->gfp & __GFP_DIRECT_RECLAIM))
		return false;
	if (a->cache_set && (c->site != MI_SITE_SLAB || c->cache != a->cache))
		return false;
	if (s->aim_size.set &&
	    (c->size < s->aim_size.min || c->size > s->aim_size.max))
		return false;
	if (s->aim_comm[0] || a->pid || a->cgrp) {
		if (!in_task() || !mi_task_aim(a))
			return false;
	}
	if (a->mod_set && !mi_module_aim(a, c))
		return false;
	return true;
}

NOKPROBE_SYMBOL(mi_fault_aim_match);

/*
 * The live or coming module called @name, or NULL.  Caller holds
 * mi_aim_mod_lock, or the answer only says it was there.
 */
static struct module *mi_find_module(const char *name)
{
	struct module *mod;

	if (!mi_find_module_ok)
		return NULL;
	/* find_module() wants RCU (7.x) or RCU-sched (older) readers */
	rcu_read_lock();
	preempt_disable();
	mod = static_call(mi_find_module_call)(name);
	if (mod && mod->state != MODULE_STATE_LIVE &&
	    mod->state != MODULE_STATE_COMING)
		mod = NULL;
	preempt_enable();
	rcu_read_unlock();
	return mod;
}

/*
 * Aim @who at the module called @name for the coming arming (NULL: at
 * none).  Returns true if it is loaded now (or coming), false if the aim
 * waits for it to come.  Looking it up and setting the pointer under
 * mi_aim_mod_lock, which the notifier takes for COMING and GOING, means
 * it cannot come or go unnoticed in between.
 */
bool mi_aim_module_arm(enum mi_aim_mod_user who, const char *name)
{
	struct mi_aim_mod_slot *slot = &mi_aim_mod_slots[who];
	struct module *mod = NULL;

	spin_lock(&mi_aim_mod_lock);
	if (name) {
		strscpy(slot->name, name, sizeof(slot->name));
		mod = mi_find_module(name);
	} else {
		slot->name[0] = '\0';
	}
	WRITE_ONCE(*slot->mod, mod);
	spin_unlock(&mi_aim_mod_lock);
	return mod;
}

bool mi_fault_aim_module_arm(const char *name)
{
	return mi_aim_module_arm(MI_AIM_MOD_FAULT, name);
}

/*
 * @who's aimed module while it is loaded, else NULL.  For handlers
 * (preemption off): the module stays until they return (the notifier's
 * synchronize_rcu()).
 */
struct module *mi_aim_module(enum mi_aim_mod_user who)
{
	return READ_ONCE(*mi_aim_mod_slots[who].mod);
}

/* Is the aimed module in place now? */
bool mi_fault_aim_module_present(void)
{
	return READ_ONCE(mi_fault_cfg.mod);
}

static int mi_fault_module_notify(struct notifier_block *nb,
				  unsigned long state, void *data)
{
	struct module *mod = data;
	unsigned int hit = 0, i;

	if (state != MODULE_STATE_COMING && state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	spin_lock(&mi_aim_mod_lock);
	for (i = 0; i < MI_AIM_MOD_NR; i++) {
		struct mi_aim_mod_slot *slot = &mi_aim_mod_slots[i];

		if (state == MODULE_STATE_COMING) {
			if (slot->name[0] && !*slot->mod &&
			    !strcmp(mod->name, slot->name))
				WRITE_ONCE(*slot->mod, mod);
		} else if (*slot->mod == mod) {
			WRITE_ONCE(*slot->mod, NULL);
			hit |= BIT(i);
		}
	}
	spin_unlock(&mi_aim_mod_lock);
	if (!hit)
		return NOTIFY_DONE;
	/* handlers run with preemption off: after this none holds @mod */
	synchronize_rcu();
	/* its symbols are still there: name the log's callers inside it */
	if (hit & BIT(MI_AIM_MOD_FAULT))
		mi_fault_log_module_going(mod);
	return NOTIFY_DONE;
}

static struct notifier_block mi_fault_module_nb = {
	.notifier_call = mi_fault_module_notify,
};

int mi_fault_aim_init(void)
{
	struct mi_ksym_set set = MI_KSYM_SET_INIT;

	mi_find_module_ok = mi_ksym_static_call(&set, mi_find_module_call, "find_module");
	return register_module_notifier(&mi_fault_module_nb);
}

void mi_fault_aim_exit(void)
{
	unregister_module_notifier(&mi_fault_module_nb);
}

bool mi_fault_aim_module_available(void)
{
	return mi_find_module_ok;
}
