#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxe0 is removed while ids sit on it in every state (bound, resolved,
# routed, listening, connecting, connected at both ends, joined to a
# group), through rdma_ucm (tests/ucma/hotplug_states): each gets one
# DEVICE_REMOVAL and is destroyed, an idle id and a wildcard listener
# get none, and the device's unregistration finishes. Then again with
# 100 live connections. Last, cm_e2e's accept_removed: rdma_accept() on
# a request held unanswered while rxe0 goes must fail (-EINVAL).
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

modprobe rdma_ucm
# A peer that never answers, for the connecting id.
dead_peer 02:00:00:00:00:09

out=$CM_OUT/hotplug_states.out
start_ready "$out" tests/ucma/hotplug_states "$CM_RXE_ADDR4" 7496 "$DEAD_PEER"
remove_rxe0 "with ids in every state"
end_ready "$out"

# The same with 100 connections (200 ids) and their listener on rxe0.
restore_rxe0
out=$CM_OUT/hotplug_100.out
start_ready "$out" tests/ucma/hotplug_states "$CM_RXE_ADDR4" 7496 "$DEAD_PEER" 100
remove_rxe0 "with 100 connections on it"
end_ready "$out"

dead_peer_gone
restore_rxe0
rmmod rdma_ucm

# The scenario waits for DEVICE_REMOVAL from "holding" on, and the
# removal waits for the scenario to destroy its ids. Its listener is a
# wildcard one, which the removal does not tell.
cm_e2e_start accept_removed "addr=$CM_RXE_ADDR4" laddr=0.0.0.0 \
	"port=$CM_E2E_PORT" timeout_ms=60000
removed=0
if cm_e2e_wait_state holding; then
	remove_rxe0 "under a request held"
	removed=1
else
	echo "FAIL: accept_removed did not hold a request" >&2
	cm_e2e_failed+=("accept_removed: no request held")
fi
cm_e2e_finish
[ "$removed" = 0 ] || restore_rxe0
cm_e2e_done
