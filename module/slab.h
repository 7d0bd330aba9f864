/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MI_SLAB_H
#define MI_SLAB_H

#include <linux/fs.h>

struct kmem_cache;

void mi_slab_init(void);
void mi_slab_exit(void);
bool mi_slab_find_available(char *why, size_t len);
int mi_slab_names_lock(void);
void mi_slab_names_unlock(void);
void *mi_slab_search(const char *name, const void *cache, const char **namep);
void mi_slab_each(void (*fn)(void *s, const char *name, void *arg), void *arg);
/* cgroups_slab.c, with the BTF open */
void mi_cg_slab_layout(void);
/* slab_lookup.c: a cache by name, by address, of an object */
int mi_slab_find_cache(const char *name, const void **cache);
const char *mi_slab_name_of(const void *cache);
void mi_slab_object_layout(void);
bool mi_slab_cache_of_available(void);
const void *mi_slab_cache_of(const void *obj);
bool mi_slab_size_of_available(void);
unsigned int mi_slab_size_of(const struct kmem_cache *s);

extern const struct file_operations mi_slabs_fops;

#endif /* MI_SLAB_H */
