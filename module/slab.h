/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MI_SLAB_H
#define MI_SLAB_H

#include <linux/fs.h>

void mi_slab_init(void);
void mi_slab_exit(void);
int mi_slab_find_cache(const char *name, const void **cache);
bool mi_slab_find_available(char *why, size_t len);
/* slab_object.c */
void mi_slab_object_layout(void);
bool mi_slab_cache_of_available(void);
const void *mi_slab_cache_of(const void *obj);

extern const struct file_operations mi_slabs_fops;

#endif /* MI_SLAB_H */
