#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One listener on the wildcard address (0.0.0.0, then ::) gets
# connections through two RoCE devices: rxe0 and rxe1, made here on a
# second veth pair and removed at the end.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

RXE1_ADDR4=10.0.1.1
RXE1_ADDR6=fd00:1::1

cleanup() {
	rdma link delete rxe1 2> /dev/null || true
	ip link delete veth2 2> /dev/null || true
}
trap cleanup EXIT

ip -batch - <<-EOF
	link add veth2 type veth peer name veth3
	addr add $RXE1_ADDR4/24 dev veth2
	addr add $RXE1_ADDR6/64 dev veth2 nodad
	link set veth2 up
	link set veth3 up
EOF
rdma link add rxe1 type rxe netdev veth2
wait_for "rxe1 port ACTIVE" port_active rxe1

cm_e2e wildcard laddr=0.0.0.0,:: "addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" \
	"addr2=$RXE1_ADDR4,$RXE1_ADDR6" "port=$CM_E2E_PORT"
cm_e2e_done
