/* SPDX-License-Identifier: GPL-2.0 */
/* The KUnit suites of meminspect_kunit.ko, registered in kunit_main.c. */
#ifndef MI_KUNIT_H
#define MI_KUNIT_H

#include <kunit/test.h>

extern struct kunit_suite mi_frag_suite;
extern struct kunit_suite mi_params_suite;
extern struct kunit_suite mi_fault_parse_suite;

#endif /* MI_KUNIT_H */
