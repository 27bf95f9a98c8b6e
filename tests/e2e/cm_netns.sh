#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm ports are per network namespace: the same port binds and
# listens in init_net and in another namespace, twice in one does not.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

# siw listens with a kernel TCP socket made in the caller's namespace,
# whatever the rdma_cm id's: a wildcard listen in the other namespace
# would clash with init_net's on siw0 (the in-box CM fails it with
# -EADDRINUSE), so siw0 sits this one out.
rdma link delete siw0

unshare --net sleep 600 &
ns_pid=$!
cleanup() {
	kill "$ns_pid" 2> /dev/null || true
	wait "$ns_pid" 2> /dev/null || true
	[ -e /sys/class/infiniband/siw0 ] ||
		rdma link add siw0 type siw netdev veth1
}
trap cleanup EXIT

in_other_netns() {
	! [ "/proc/$ns_pid/ns/net" -ef /proc/self/ns/net ]
}
wait_for "pid $ns_pid in a new network namespace" in_other_netns

cm_e2e netns "netns_pid=$ns_pid" "addr=$CM_RXE_ADDR4" "port=$CM_E2E_PORT"
cm_e2e_done
