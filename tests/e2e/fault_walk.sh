#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every kernel allocation the CM's synchronous paths make, through
# rdma_ucm, is made to fail in turn (tests/ucma/fault_walk, with the
# kernel's fail-nth and failslab): each failure must surface cleanly, the
# ids must be destroyable, nothing may leak or splat.
. "$CM_TOP/tests/e2e/lib/common.sh"

fs=/sys/kernel/debug/failslab
[ -d "$fs" ] || fail "no $fs: the kernel lacks CONFIG_FAILSLAB"

restore() {
	echo Y > "$fs/ignore-gfp-wait"
}
trap restore EXIT
# GFP_KERNEL allocations too; no stack dump per failure (that would
# read as a splat).
echo N > "$fs/ignore-gfp-wait"
echo 0 > "$fs/verbose"

modprobe rdma_ucm
tests/ucma/fault_walk "$CM_RXE_ADDR4" 7498 239.1.2.7
rmmod rdma_ucm
