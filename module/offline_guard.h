/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory offline held off while a free-list walk or a pageblock count
 * touches struct pages it found by pfn (offline_guard.c, docs/buddy.md).
 */
#ifndef MI_OFFLINE_GUARD_H
#define MI_OFFLINE_GUARD_H

int mi_offline_guard_init(void);
void mi_offline_guard_exit(void);
int mi_offline_hold(void);
void mi_offline_release(void);

#endif /* MI_OFFLINE_GUARD_H */
