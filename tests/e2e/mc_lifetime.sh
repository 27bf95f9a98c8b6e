#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast lifetimes through rdma_ucm (tests/ucma/mc_race): joins left
# or destroyed before their event arrives, over IPv4 and IPv6; then a
# device removed under a joined group, whose unregistration must finish
# (a GID table reference kept by the group would hold it forever).
. "$CM_TOP/tests/e2e/lib/common.sh"

modprobe rdma_ucm

tests/ucma/mc_race "$CM_RXE_ADDR4" 239.1.2.4 20
tests/ucma/mc_race "$CM_RXE_ADDR6" ff0e::1:2:4 10

out=$CM_OUT/mc_removal.out
tests/ucma/mc_removal "$CM_RXE_ADDR4" 239.1.2.5 > "$out" 2>&1 &
pid=$!
wait_for "a group joined" grep -q '^ready' "$out"
timeout 60 rdma link delete rxe0 ||
	fail "rxe0 did not unregister with a group joined on it"
rc=0
wait "$pid" || rc=$?
while IFS= read -r line; do echo "  $line"; done < "$out"
[ "$rc" = 0 ] || fail "mc_removal exit $rc"

# Back as it was, for the scripts after this one.
rdma link add rxe0 type rxe netdev veth0
wait_for "rxe0 port ACTIVE" port_active rxe0
rmmod rdma_ucm
