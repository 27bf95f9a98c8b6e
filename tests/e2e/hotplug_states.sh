#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxe0 is removed while ids sit on it in every state (bound, resolved,
# routed, listening, connecting, connected at both ends, joined to a
# group), through rdma_ucm (tests/ucma/hotplug_states): each gets one
# DEVICE_REMOVAL and is destroyed, an idle id and a wildcard listener
# get none, and the device's unregistration finishes.
. "$CM_TOP/tests/e2e/lib/common.sh"

modprobe rdma_ucm
# A peer that never answers, for the connecting id.
ip neigh replace 10.0.0.9 lladdr 02:00:00:00:00:09 dev veth0 nud permanent

out=$CM_OUT/hotplug_states.out
tests/ucma/hotplug_states "$CM_RXE_ADDR4" 7496 10.0.0.9 > "$out" 2>&1 &
pid=$!
wait_for "ids in every state" grep -q '^ready' "$out"
timeout 60 rdma link delete rxe0 ||
	fail "rxe0 did not unregister"
rc=0
wait "$pid" || rc=$?
while IFS= read -r line; do echo "  $line"; done < "$out"
[ "$rc" = 0 ] || fail "hotplug_states exit $rc"

ip neigh delete 10.0.0.9 dev veth0 2> /dev/null || true
rdma link add rxe0 type rxe netdev veth0
wait_for "rxe0 port ACTIVE" port_active rxe0
rmmod rdma_ucm
