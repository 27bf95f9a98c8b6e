#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Ids made and destroyed at random points of their life by two threads at
# once while a server accepts (tests/ucma/cm_stress), over RoCE and
# iWARP, with a fixed seed: every id created is destroyed (none is left in
# the listing or the ids' slab cache), no splat, no leak. The connections have no QP, which iWARP cannot do: there the
# cycles stop at the route. CM_STRESS_CYCLES (default 150 per thread)
# makes it longer.
. "$CM_TOP/tests/e2e/lib/common.sh"

cycles=${CM_STRESS_CYCLES:-150}
modprobe rdma_ucm
tests/ucma/cm_stress "$CM_RXE_ADDR4" 7499 2 "$cycles" 1
tests/ucma/cm_stress "$CM_SIW_ADDR4" 7499 2 "$cycles" 2
rmmod rdma_ucm
expect_no_ids "the stress"
