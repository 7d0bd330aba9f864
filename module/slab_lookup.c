// SPDX-License-Identifier: GPL-2.0
/*
 * Slab caches looked up: by name (the aim_cache knobs of fault/ and
 * allocs/), by address (allocs/'s cache column, which never dereferences
 * an address that is not on slab_caches: the cache may be gone), and the
 * cache of an object, read from its slab (allocs/).  The kmem tracepoints
 * do not say that for kmalloc() at all, nor for kmem_cache_alloc() before
 * 6.1 ("mm/slab_common: drop kmem_alloc & avoid dereferencing fields when
 * not using", 2c1d697fb8ba), but every object knows: its slab's
 * slab_cache.  struct slab overlays the head page of its folio; up to 5.16
 * the member is in struct page itself ("mm: Split slab into its own type",
 * d122019bf061, v5.17).  Neither is copied here: the offset comes from the
 * running kernel's BTF at load, and without it the answer is "no cache".
 */
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/slab.h>

#include "btf.h"
#include "slab.h"

/*
 * The cache called @name (as on slab_caches: a merged cache under its
 * first name), into @cache: for comparing with allocation arguments only,
 * never to be dereferenced, since nothing keeps it from being destroyed
 * afterwards.  -EINVAL if there is no such cache, -EOPNOTSUPP if the list
 * cannot be walked on this kernel.
 */
int mi_slab_find_cache(const char *name, const void **cache)
{
	int err = mi_slab_names_lock();
	const char *found;
	const void *s;

	if (err)
		return err;
	s = mi_slab_search(name, NULL, &found);
	mi_slab_names_unlock();
	if (!s)
		return -EINVAL;
	*cache = s;
	return 0;
}

/* The name of the cache at @cache, or NULL; under mi_slab_names_lock(). */
const char *mi_slab_name_of(const void *cache)
{
	const char *name;

	return mi_slab_search(NULL, cache, &name) ? name : NULL;
}

static u32 mi_slab_cache_off;
static bool mi_slab_cache_ok;
static u32 mi_cache_size_off;
static bool mi_cache_size_ok;

/* Called by mi_slab_init() with the BTF open. */
void mi_slab_object_layout(void)
{
	struct mi_btf_member bm;
	u32 sid = mi_btf_struct("kmem_cache");

	/* the object's size with the cache's metadata: what slabinfo's objsize is */
	if (sid && mi_btf_member(sid, "size", &bm) && !bm.bit_size &&
	    !(bm.bit_offset % 8) && bm.size == sizeof(unsigned int)) {
		mi_cache_size_off = bm.bit_offset / 8;
		mi_cache_size_ok = true;
	}
	sid = mi_btf_struct("slab");
	/* a struct slab with a slab_list is SLUB's (5.17 on), else struct page */
	if (!sid || !mi_btf_member(sid, "slab_list", &bm))
		sid = mi_btf_struct("page");
	if (!sid || !mi_btf_member(sid, "slab_cache", &bm) || bm.bit_size ||
	    bm.bit_offset % 8 || bm.size != sizeof(void *))
		return;
	mi_slab_cache_off = bm.bit_offset / 8;
	mi_slab_cache_ok = true;
}

bool mi_slab_cache_of_available(void)
{
	return mi_slab_cache_ok;
}

bool mi_slab_size_of_available(void)
{
	return mi_cache_size_ok;
}

/*
 * What an object of @s takes in its slab (s->size: red zones, tracking,
 * KASAN's metadata, alignment), as the kmem_cache_alloc tracepoint's
 * bytes_alloc and /proc/allocinfo count it; kmem_cache_size() (the object
 * size) where BTF does not say.  For probes: @s is the cache being
 * allocated from or freed to, so it stays.
 */
unsigned int mi_slab_size_of(const struct kmem_cache *s)
{
	if (!mi_cache_size_ok)
		return kmem_cache_size((struct kmem_cache *)s);
	return READ_ONCE(*(const unsigned int *)((const char *)s + mi_cache_size_off));
}

/*
 * The cache @obj was allocated from, or NULL (not a slab object: a large
 * kmalloc's pages).  For probes, any context: no lock, no allocation.  The
 * caller keeps @obj allocated meanwhile (the kmem tracepoints run before
 * the new object is returned), so its slab and the slab's cache stay.
 * Only compared, never dereferenced by the callers.
 */
const void *mi_slab_cache_of(const void *obj)
{
	struct page *head;

	if (!mi_slab_cache_ok || !virt_addr_valid(obj))
		return NULL;
	head = virt_to_head_page(obj);
	if (!PageSlab(head))
		return NULL;
	return READ_ONCE(*(void **)((char *)head + mi_slab_cache_off));
}
