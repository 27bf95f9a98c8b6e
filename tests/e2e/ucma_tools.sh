#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's tools through the in-box rdma_ucm loaded on top of our CM.
. "$CM_TOP/tests/e2e/lib/common.sh"

modprobe rdma_ucm || fail "rdma_ucm does not load on our rdma_cm"
[ -e /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"

# server_client NAME SERVER-CMD -- CLIENT-CMD: both must exit 0.
server_client() {
	local name=$1 spid rc=0
	shift
	local server=() client=()
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	timeout 60 "${server[@]}" > "$CM_OUT/$name.server" 2>&1 &
	spid=$!
	sleep 1
	timeout 60 "${client[@]}" > "$CM_OUT/$name.client" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	sed "s/^/  $name server: /" "$CM_OUT/$name.server" | tail -n 5
	sed "s/^/  $name client: /" "$CM_OUT/$name.client" | tail -n 5
	[ "$rc" = 0 ] || fail "$name: exit $rc"
	echo "ok: $name"
}

for a in "$CM_RXE_ADDR4" "$CM_RXE_ADDR6" "$CM_SIW_ADDR4"; do
	server_client "rping-$a" rping -s -a "$a" -v -C 10 -- \
		rping -c -a "$a" -v -C 10
	server_client "ucmatose-$a" ucmatose -b "$a" -c 4 -- \
		ucmatose -s "$a" -c 4
done
# The IB port space for RC, with a type of service and an ACK timeout.
server_client ucmatose-ib ucmatose -P ib -b "$CM_RXE_ADDR4" -c 2 -- \
	ucmatose -P ib -s "$CM_RXE_ADDR4" -c 2 -t 32 -a 16

server_client mckey mckey -m 239.1.2.3 -b "$CM_RXE_ADDR4" -c 5 -- \
	mckey -m 239.1.2.3 -b "$CM_RXE_ADDR4" -s -c 5

# IPv6 groups on RoCEv2 join with MLD here; the in-box CM says -ENOTSUPP.
if [ -e "$CM_DEVICES" ]; then
	server_client mckey6 mckey -m ff0e::1:2:3 -b "$CM_RXE_ADDR6" -c 5 -- \
		mckey -m ff0e::1:2:3 -b "$CM_RXE_ADDR6" -s -c 5
fi

# Leave the CM free to unload for the scripts after this one.
rmmod rdma_ucm
