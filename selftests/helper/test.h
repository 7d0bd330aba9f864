/* SPDX-License-Identifier: GPL-2.0 */
/* What the parts of meminspect_test.ko (test_main.c, test_allocs.c) share. */
#ifndef MI_TEST_H
#define MI_TEST_H

#include <linux/fs.h>

/* test_allocs.c: the `allocs` file, and freeing what it holds at unload */
extern const struct file_operations mi_test_allocs_fops;
void mi_test_allocs_free(void);

#endif /* MI_TEST_H */
