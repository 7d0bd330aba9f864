// SPDX-License-Identifier: GPL-2.0
/*
 * The buddy walk (buddy.c) drops zone->lock between holds and resumes from
 * a page it remembers by pfn, revalidated with pfn_to_online_page(); the
 * pageblock count reads the pageblock bits of every online pfn without
 * zone->lock.  A memory block offlined meanwhile has its struct pages
 * poisoned (remove_pfn_range_from_zone()) and, once removed, its memmap
 * freed (arch_remove_memory()): a check-then-use on such a page would read
 * freed memory.  get_online_mems() would hold that off, but it is not
 * exported.
 *
 * So the module holds it off itself, with the memory notifier (exported on
 * every kernel with CONFIG_MEMORY_HOTPLUG, a no-op stub without): offline_pages()
 * sends MEM_GOING_OFFLINE before it takes any page of the range off the
 * free lists, and removal needs every block of the range offline first.
 * At MEM_GOING_OFFLINE the offlining task marks an offline as pending
 * (new walks wait) and waits for the walks in progress to finish; at
 * MEM_OFFLINE or MEM_CANCEL_OFFLINE the mark is cleared.  While a walk
 * runs, no section stops being online, so no struct page it can reach
 * through pfn_to_online_page() is poisoned or freed.  Why that is enough,
 * with the kernel's source lines: docs/buddy.md.
 *
 * No lock is held across notifier calls (a counter and a flag under a
 * spinlock, a wait queue), so unloading between the two calls of one
 * offline leaves nothing held.  Both sides wait killably: a walker gets
 * -EINTR, an offline killed while waiting fails as a notifier failure.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "offline_guard.h"
#include "params.h"

static DEFINE_SPINLOCK(mi_og_lock);
static DECLARE_WAIT_QUEUE_HEAD(mi_og_wq);
static unsigned int mi_og_walkers;	/* walks in progress */
static bool mi_og_offlining;		/* between GOING_OFFLINE and its end */
static bool mi_og_registered;

/*
 * test_walk_pause_ms: for hotplug_buddy.sh only.  Every walk that takes the
 * guard then sleeps this long, killably, before it touches a struct page,
 * so that the test can start an offline while a walk surely holds the guard
 * (and another walk while that offline is pending) and time both: without
 * the guard the offline would not wait.  0 (the default): no pause.  Set at
 * load time only (0444); 0..MI_WALK_PAUSE_MAX_MS, else -EINVAL or -ERANGE.
 */
static unsigned int mi_og_pause_ms;

static int mi_og_pause_set(const char *val, const struct kernel_param *kp)
{
	return mi_walk_pause_parse(val, kp->arg);
}

static const struct kernel_param_ops mi_og_pause_ops = {
	.set = mi_og_pause_set,
	.get = param_get_uint,
};

module_param_cb(test_walk_pause_ms, &mi_og_pause_ops, &mi_og_pause_ms, 0444);
MODULE_PARM_DESC(test_walk_pause_ms,
		 "tests only: every walk sleeps this long after taking the offline guard (0-10000 ms, default 0)");

static bool mi_og_enter(void)
{
	bool ok;

	spin_lock(&mi_og_lock);
	ok = !mi_og_offlining;
	if (ok)
		mi_og_walkers++;
	spin_unlock(&mi_og_lock);
	return ok;
}

static bool mi_og_idle(void)
{
	bool idle;

	spin_lock(&mi_og_lock);
	idle = !mi_og_walkers;
	spin_unlock(&mi_og_lock);
	return idle;
}

void mi_offline_release(void)
{
	bool last;

	spin_lock(&mi_og_lock);
	last = !--mi_og_walkers;
	spin_unlock(&mi_og_lock);
	if (last)
		wake_up_all(&mi_og_wq);
}

/*
 * Before touching struct pages by pfn: wait out an offline in progress.
 * -ENODEV when the notifier is not registered: nothing would hold off an
 * offline, so nothing is walked.  The callers hold no lock here, so the
 * test pause may sleep; killed during it, the walk counts itself out and
 * fails with -EINTR.
 */
int mi_offline_hold(void)
{
	int err;

	if (!mi_og_registered)
		return -ENODEV;
	err = wait_event_killable(mi_og_wq, mi_og_enter());
	if (err || !mi_og_pause_ms)
		return err;
	schedule_timeout_killable(msecs_to_jiffies(mi_og_pause_ms));
	if (fatal_signal_pending(current)) {
		mi_offline_release();
		return -EINTR;
	}
	return 0;
}

static void mi_og_set_offlining(bool on)
{
	spin_lock(&mi_og_lock);
	mi_og_offlining = on;
	spin_unlock(&mi_og_lock);
	if (!on)
		wake_up_all(&mi_og_wq);
}

/*
 * Offlines are serialised by mem_hotplug_lock, so one is pending at most;
 * MEM_CANCEL_OFFLINE also comes when another notifier refused
 * MEM_GOING_OFFLINE before this one was called: clearing an unset mark is
 * harmless.
 */
static int mi_og_notify(struct notifier_block *nb, unsigned long action,
			void *arg)
{
	int err;

	switch (action) {
	case MEM_GOING_OFFLINE:
		mi_og_set_offlining(true);
		err = wait_event_killable(mi_og_wq, mi_og_idle());
		if (err) {
			mi_og_set_offlining(false);
			return notifier_from_errno(err);
		}
		break;
	case MEM_OFFLINE:
	case MEM_CANCEL_OFFLINE:
		mi_og_set_offlining(false);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block mi_og_nb = {
	.notifier_call = mi_og_notify,
};

int mi_offline_guard_init(void)
{
	int err = register_memory_notifier(&mi_og_nb);

	mi_og_registered = !err;
	return err;
}

void mi_offline_guard_exit(void)
{
	if (mi_og_registered)
		unregister_memory_notifier(&mi_og_nb);
	mi_og_registered = false;
}
