#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CM's tracepoints fire: one connection traced from start to end.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

tracing=/sys/kernel/debug/tracing
[ -d "$tracing/events/rdma_cm" ] || fail "no rdma_cm tracepoints"
echo 1 > "$tracing/events/rdma_cm/enable"
: > "$tracing/trace"

cm_e2e connect "addr=$CM_RXE_ADDR4" "port=$CM_E2E_PORT"
echo 0 > "$tracing/events/rdma_cm/enable"
trace=$(< "$tracing/trace")

# expect WHAT: the trace has a line containing WHAT.
expect() {
	[[ $trace == *"$1"* ]] || fail "no '$1' in the trace"
	echo "ok: traced $1"
}
expect "cm_id_create: id="
expect "cm_state: id="
expect "ADDR_QUERY -> ADDR_RESOLVED"
expect "ROUTE_RESOLVED -> CONNECT"
expect "cm_event_handler: id="
expect "event=CONNECT_REQUEST"
expect "cm_event_done: id="
expect "event=ESTABLISHED"
expect "REQ result=0"
expect "REP result=0"
expect "RTU result=0"
expect "DREQ result=0"
expect "cm_id_destroy: id="
cm_e2e_done
