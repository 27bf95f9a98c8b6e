// SPDX-License-Identifier: GPL-2.0
/*
 * A module that warns as it loads, and nothing else: make check loads it
 * in a guest to prove that the harness fails a run whose kernel splats.
 */

#include <linux/bug.h>
#include <linux/module.h>

static int __init cm_splat_init(void)
{
	WARN(1, "cm_splat: deliberate warning, the harness must catch it\n");
	return 0;
}
module_init(cm_splat_init);

MODULE_DESCRIPTION("Deliberate WARN for the test harness's self-test");
MODULE_LICENSE("GPL");
