#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The CM's tracepoints are the in-box module's: system rdma_cma, its 19
# events, each with the fields (type and name, in order) that 6.1's
# drivers/infiniband/core/cma_trace.h gives it, so that tools written for
# the in-box CM (trace-cmd -e rdma_cma, bpftrace) work on ours. Then one
# connection traced from start to end.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

tracing=/sys/kernel/debug/tracing
events=$tracing/events/rdma_cma
[ -d "$events" ] || fail "no rdma_cma tracepoints"

# The field lists, written from 6.1's cma_trace.h (its event classes
# cma_fsm_class, cma_qp_class, cma_client_class and the TRACE_EVENTs),
# as the format files spell them: "type name", "|" between fields.
addrs='unsigned char srcaddr[28]|unsigned char dstaddr[28]'
fsm="u32 cm_id|u32 tos|$addrs"
qp="u32 cm_id|u32 tos|u32 qp_num|$addrs"
client='__data_loc char[] name'
declare -A want=(
	[cm_send_rtu]=$fsm [cm_send_rej]=$fsm [cm_send_mra]=$fsm
	[cm_send_sidr_req]=$fsm [cm_send_sidr_rep]=$fsm
	[cm_disconnect]=$fsm [cm_sent_drep]=$fsm [cm_sent_dreq]=$fsm
	[cm_id_destroy]=$fsm
	[cm_id_attach]="u32 cm_id|$addrs|__data_loc char[] devname"
	[cm_send_req]=$qp [cm_send_rep]=$qp [cm_qp_destroy]=$qp
	[cm_qp_create]="u32 cm_id|u32 pd_id|u32 tos|u32 qp_num|u32 send_wr|u32 recv_wr|int rc|unsigned long qp_type|$addrs"
	[cm_req_handler]="u32 cm_id|u32 tos|unsigned long event|$addrs"
	[cm_event_handler]="u32 cm_id|u32 tos|unsigned long event|int status|$addrs"
	[cm_event_done]="u32 cm_id|u32 tos|unsigned long event|int result|$addrs"
	[cm_add_one]=$client [cm_remove_one]=$client
)
[ "${#want[@]}" = 19 ] || fail "the list has ${#want[@]} events, 6.1 has 19"

# fields EVENT: the event's own fields from its format file, "|" between.
fields() {
	local line list=

	while IFS= read -r line; do
		[[ $line =~ ^[[:space:]]field:(.*)\;[[:space:]]offset: ]] ||
			continue
		[[ ${BASH_REMATCH[1]} != *" common_"* ]] || continue
		list+=${list:+|}${BASH_REMATCH[1]}
	done < "$events/$1/format"
	printf '%s' "$list"
}

bad=0
for ev in "${!want[@]}"; do
	if [ ! -e "$events/$ev/format" ]; then
		echo "FAIL: no event rdma_cma:$ev" >&2
		bad=$((bad + 1))
		continue
	fi
	got=$(fields "$ev")
	if [ "$got" != "${want[$ev]}" ]; then
		echo "FAIL: rdma_cma:$ev has fields" >&2
		echo "    $got" >&2
		echo "  where 6.1 has" >&2
		echo "    ${want[$ev]}" >&2
		bad=$((bad + 1))
		continue
	fi
	echo "ok: rdma_cma:$ev, fields as in 6.1"
done
[ "$bad" = 0 ] || fail "$bad of 19 events differ from 6.1's"

echo 1 > "$events/enable"
: > "$tracing/trace"
cm_e2e connect "addr=$CM_RXE_ADDR4" "port=$CM_E2E_PORT"
echo 0 > "$events/enable"
trace=$(< "$tracing/trace")

# expect WHAT: the trace has a line containing WHAT.
expect() {
	[[ $trace == *"$1"* ]] || fail "no '$1' in the trace"
	echo "ok: traced $1"
}
expect "cm_id_attach: cm.id="
expect "cm_qp_create: cm.id="
expect "cm_send_req: cm.id="
expect "cm_req_handler: cm.id="
expect "cm_event_handler: cm.id="
expect "CONNECT_REQUEST"
expect "cm_event_done: cm.id="
expect "ESTABLISHED"
expect "cm_send_mra: cm.id="
expect "cm_send_rep: cm.id="
expect "cm_send_rtu: cm.id="
expect "cm_disconnect: cm.id="
expect "cm_sent_dreq: cm.id="
expect "cm_id_destroy: cm.id="
# Ours alone: the events the in-box CM lacks.
if [ -e "$CM_DEVICES" ]; then
	expect "cm_id_create: cm.id="
	expect "cm_state: id="
	expect "ADDR_QUERY -> ADDR_RESOLVED"
	expect "ROUTE_RESOLVED -> CONNECT"
fi
cm_e2e_done
