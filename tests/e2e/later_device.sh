#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A wildcard listener serves a device added after rdma_listen(): rping's
# server listens on 0.0.0.0 (then ::) through rdma_ucm, rxe1 appears on a
# new veth, and a client connects to rxe1's address.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/lib/ucma.sh
. "$CM_TOP/tests/e2e/lib/ucma.sh"

trap del_rxe1 EXIT

modprobe rdma_ucm

# later_device WILDCARD ADDR: listen on WILDCARD, then make rxe1 with ADDR
# on it, then connect to ADDR; both rping ends must succeed.
later_device() {
	local name=later-$2 spid rc=0

	no_stale_listener rping
	timeout 60 rping -s -a "$1" -p 7495 -v -C 10 \
		> "$CM_OUT/$name.server" 2>&1 &
	spid=$!
	await_listener "$spid" rping || {
		show_tail "$name server" "$CM_OUT/$name.server"
		fail "$name: the server did not listen before rxe1 came"
	}
	add_rxe1
	wait_for "rxe1's GID of $2" has_gids rxe1 "$2"
	timeout 60 rping -c -a "$2" -p 7495 -v -C 10 \
		> "$CM_OUT/$name.client" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	show_tail "$name server" "$CM_OUT/$name.server"
	show_tail "$name client" "$CM_OUT/$name.client"
	[ "$rc" = 0 ] || fail "$name: exit $rc"
	echo "ok: a listener on $1 served rxe1, added after it, at $2"
	del_rxe1
}

later_device 0.0.0.0 "$RXE1_ADDR4"
later_device :: "$RXE1_ADDR6"

rmmod rdma_ucm
