// SPDX-License-Identifier: GPL-2.0
/*
 * allocs/table: a header, one record per call site with an allocation
 * since arming, then a "# allocs:" note (docs/format.md).
 */
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "allocs_priv.h"
#include "lockdown.h"
#include "slab.h"

/* A count kept in MI_ALLOCS_FP_ONE units, rounded to the nearest whole. */
static long long mi_allocs_fp_round(long long v)
{
	return div_s64(v + (v < 0 ? -1 : 1) * (MI_ALLOCS_FP_ONE / 2),
		       MI_ALLOCS_FP_ONE);
}

/*
 * table (docs/format.md): a header, one record per call site with an
 * allocation since arming, then a "# allocs:" note of key-value pairs:
 * the mode, the tables' sizes and what overflowed.  rate is allocations
 * per second since arming.  Sampled, every figure but samples is an
 * estimate.
 */
/*
 * A site's cache column: the cache's name, "(several)", "(pages)", or "-"
 * (not known: no names, no slab_cache offset, or a cache destroyed since;
 * looked up on slab_caches, so a stale address is never dereferenced).
 */
static const char *mi_allocs_cache_name(unsigned long cache, bool names)
{
	if (cache == MI_ALLOCS_CACHE_SEVERAL)
		return "(several)";
	if (cache == MI_ALLOCS_CACHE_PAGES)
		return "(pages)";
	if (cache == MI_ALLOCS_CACHE_NONE || !names)
		return "-";
	return mi_slab_name_of((const void *)cache) ?: "-";
}

static int mi_allocs_table_show(struct seq_file *m, void *v)
{
	unsigned long ms = 0;
	bool hide = mi_lockdown_hides_addresses();
	unsigned int i, used = 0;
	bool names = false;

	if (mutex_lock_killable(&mi_allocs.lock))
		return -EINTR;
	seq_puts(m, "live_objs live_bytes live_bytes_alloc allocs frees rate samples cache site\n");
	if (!mi_allocs.sites)
		goto note;
	/* the cache names: caches stay on slab_caches while it is held */
	names = !mi_slab_names_lock();
	/* since arming, until disarming */
	ms = max(1U, jiffies_to_msecs((mi_allocs.armed ? jiffies :
				       mi_allocs.disarmed_at) - mi_allocs.armed_at));
	for (i = 0; i < MI_ALLOCS_SITES; i++) {
		struct mi_allocs_site *s = &mi_allocs.sites[i];
		/* pairs with the release in mi_allocs_site_get() */
		unsigned long site = smp_load_acquire(&s->call_site);
		long long allocs = atomic64_read(&s->allocs);

		if (!READ_ONCE(s->key))
			continue;
		used++;
		if (!site || !allocs)
			continue;
		seq_printf(m, "%lld %lld %lld %lld %lld %lld %lld %s ",
			   mi_allocs_fp_round(atomic64_read(&s->live)),
			   (long long)atomic64_read(&s->live_req),
			   (long long)atomic64_read(&s->live_alloc),
			   mi_allocs_fp_round(allocs),
			   mi_allocs_fp_round(atomic64_read(&s->frees)),
			   div_s64(mi_allocs_fp_round(allocs) * 1000, ms),
			   (long long)atomic64_read(&s->samples),
			   mi_allocs_cache_name(READ_ONCE(s->cache), names));
		mi_allocs_put_site(m, s, site, hide);
		seq_putc(m, '\n');
	}
	if (names)
		mi_slab_names_unlock();
note:
	seq_printf(m, "# allocs: armed %d mode %s sample_bytes %u elapsed_ms %lu sites %u sites_used %u hash_size %u table_bytes %zu site_overflow %lld obj_overflow %lld pages %d page_nosite %lld page_stack %u\n",
		   mi_allocs.armed,
		   mi_allocs.sample_bytes ? "sampled" : "exact",
		   mi_allocs.sample_bytes, ms, MI_ALLOCS_SITES, used,
		   mi_allocs.hash_cap,
		   (mi_allocs.sites ? MI_ALLOCS_SITES * sizeof(*mi_allocs.sites) : 0) +
		   mi_allocs.hash_cap * sizeof(*mi_allocs.objs),
		   (long long)atomic64_read(&mi_allocs.site_overflow),
		   (long long)atomic64_read(&mi_allocs.obj_overflow),
		   mi_allocs.pages,
		   (long long)atomic64_read(&mi_allocs.page_nosite),
		   mi_allocs.page_stack);
	mutex_unlock(&mi_allocs.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mi_allocs_table);

int mi_allocs_table_create(struct dentry *dir)
{
	struct dentry *file;

	file = debugfs_create_file("table", 0400, dir, NULL,
				   &mi_allocs_table_fops);
	return PTR_ERR_OR_ZERO(file);
}
