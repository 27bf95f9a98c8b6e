#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our rdma_cm sees RDMA devices come and go, finds the ones already there
# when it loads, and unloads cleanly while devices exist.
. "$CM_TOP/tests/e2e/lib/common.sh"

[ -e "$CM_DEVICES" ] || fail "$CM_DEVICES missing: is our rdma_cm loaded?"
expect_devices "rxe0 1 roce" "siw0 1 iwarp"

rdma link delete rxe0
expect_devices "siw0 1 iwarp"
rdma link delete siw0
expect_devices

rdma -b - <<-EOF
	link add rxe0 type rxe netdev veth0
	link add siw0 type siw netdev veth1
EOF
expect_devices "rxe0 1 roce" "siw0 1 iwarp"

rmmod rdma_cm
[ ! -e "$CM_DEVICES" ] || fail "listing left behind after rmmod"
insmod "$CM_KO"
expect_devices "rxe0 1 roce" "siw0 1 iwarp"
