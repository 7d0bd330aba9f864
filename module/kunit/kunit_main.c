// SPDX-License-Identifier: GPL-2.0
/*
 * meminspect_kunit.ko: the KUnit suites of meminspect's pure logic
 * (docs/tests.md, "KUnit").  Loading the module runs every suite; the
 * results are in /sys/kernel/debug/kunit/<suite>/results and in the kernel
 * log as KTAP.  selftests/test_kunit.sh turns them into the lane's TAP.
 */
#include <linux/module.h>

#include "mi_kunit.h"

kunit_test_suites(&mi_frag_suite, &mi_params_suite, &mi_fault_parse_suite);

MODULE_DESCRIPTION("KUnit suites for meminspect's pure logic");
MODULE_LICENSE("GPL");
