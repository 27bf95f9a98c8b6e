#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# As in-box, the active side asks ib_cm for an MRA on every REP, before
# its RTU: for rdma_ucm's ids, which have no QP in the kernel, the RTU
# waits for user space, and ib_cm then answers the passive side's resent
# REPs with MRAs instead of letting it time out. The CM's MRA setting
# delays the MRA until such a resend, so the wire shows none on a quick
# connection: count the CM's requests instead, in the tracepoint the
# in-box CM has for them (rdma_cma:cm_send_mra, fired for each).
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

tracing=/sys/kernel/debug/tracing
event=$tracing/events/rdma_cma/cm_send_mra
[ -d "$event" ] || fail "no rdma_cma:cm_send_mra tracepoint"

echo 1 > "$event/enable"
: > "$tracing/trace"
# Two connections over rxe0 to itself: the first accepted from the
# CONNECT_REQUEST handler, the second later under rdma_lock_handler.
cm_e2e connect "addr=$CM_RXE_ADDR4" "port=$CM_E2E_PORT"
echo 0 > "$event/enable"
mapfile -t trace < "$tracing/trace"
cm_e2e_done

# The active ids connect to the listener's port; the passive ones are
# bound to it.
active=0 passive=0
for line in "${trace[@]}"; do
	[[ $line == *"cm_send_mra: "* ]] || continue
	if [[ $line == *" dst=$CM_RXE_ADDR4:$CM_E2E_PORT "* ]]; then
		active=$((active + 1))
	elif [[ $line == *" src=$CM_RXE_ADDR4:$CM_E2E_PORT "* ]]; then
		passive=$((passive + 1))
	fi
done
[ "$active" = 2 ] ||
	fail "$active MRAs asked for on the active side; one per REP makes 2"
echo "ok: an MRA asked for on each of the 2 REPs"
[ "$passive" -ge 1 ] ||
	fail "no MRA asked for the request accepted later"
echo "ok: an MRA asked for the request accepted later"
