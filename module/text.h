/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free text in the tables: how a value a process chooses (its comm) is
 * printed so that it stays one field of one record (docs/format.md).
 */
#ifndef MI_TEXT_H
#define MI_TEXT_H

#include <linux/seq_file.h>

void mi_put_comm(struct seq_file *m, const char *comm);

#endif /* MI_TEXT_H */
