# SPDX-License-Identifier: GPL-2.0
# rdma-core's and perftest's tools through rdma_ucm, a server and a client
# at a time: used by tests/e2e/ucma_tools.sh (test kernel) and
# tests/stock/run (Debian's stock kernel). Source tests/e2e/lib/common.sh
# first.
# shellcheck shell=bash

# run_pair NAME SERVER-CMD -- CLIENT-CMD: run both, each for at most
# $CM_PAIR_TIMEOUT seconds (default 60), and show the end of their
# output. Returns the first non-zero status (124: a timeout), or 0.
run_pair() {
	local name=$1 spid rc=0
	shift
	local server=() client=()
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	timeout "${CM_PAIR_TIMEOUT:-60}" "${server[@]}" \
		> "$CM_OUT/$name.server" 2>&1 &
	spid=$!
	await_listener "$spid" "${server[@]}"
	client_until_served "$name" "$spid" "${client[@]}" || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	show_tail "$name server" "$CM_OUT/$name.server"
	show_tail "$name client" "$CM_OUT/$name.client"
	return "$rc"
}

# server_client NAME SERVER-CMD -- CLIENT-CMD: run_pair; both must exit 0.
server_client() {
	local rc=0
	run_pair "$@" || rc=$?
	[ "$rc" = 0 ] || fail "$1: exit $rc"
	echo "ok: $1"
}

# await_listener SERVER-PID SERVER-CMD...: wait up to 10 s for the
# server to listen, as our listing of ids shows it (the owner is the
# command, or for "sh -c SCRIPT" the first word of SCRIPT). A client
# that comes too early does not always fail cleanly: of udaddy's four
# SIDR requests, the first two can find no listener and the last two
# be served, and the server then has room for only two of the next
# client's. Returns at once where there is no listing (the in-box CM)
# and when CM_PAIR_LISTENS=0 (a server that joins a group instead).
await_listener() {
	local spid=$1 comm=$2 line i
	local -a ids

	[ "${CM_PAIR_LISTENS:-1}" = 1 ] && [ -r "$CM_IDS" ] || return 0
	[ "$comm" != sh ] || comm=${4%% *}
	comm=${comm##*/}
	comm=${comm:0:15}
	for ((i = 0; i < 100; i++)); do
		mapfile -t ids < "$CM_IDS"
		for line in "${ids[@]}"; do
			[[ $line != *" state=LISTEN "*" owner=$comm "* ]] || return 0
		done
		kill -0 "$spid" 2> /dev/null || return 0
		nap 0.1
	done
	echo "  $comm: not listening after 10 s"
}

# client_until_served NAME SERVER-PID CLIENT-CMD...: run the client; if
# it fails while the server still runs, the server may not be listening
# yet (where await_listener cannot tell): try again, five times in all.
# The last client's status is returned.
client_until_served() {
	local name=$1 spid=$2 try rc=0
	shift 2
	for try in 1 2 3 4 5; do
		nap 1
		rc=0
		timeout "${CM_PAIR_TIMEOUT:-60}" "$@" \
			> "$CM_OUT/$name.client" 2>&1 || rc=$?
		[ "$rc" != 0 ] && kill -0 "$spid" 2> /dev/null || break
		echo "  $name: client try $try failed ($rc), the server still waits"
	done
	return "$rc"
}

show_tail() {
	local -a lines
	mapfile -t lines < "$2"
	local n=${#lines[@]} i
	for ((i = n > 5 ? n - 5 : 0; i < n; i++)); do
		echo "  $1: ${lines[i]}"
	done
}

# rping with data validation, COUNT iterations, to ADDR.
rping_pair() {
	server_client "rping-$1" rping -s -a "$1" -v -C "$2" -- \
		rping -c -a "$1" -v -C "$2"
}

# ucmatose: COUNT connections to ADDR, a message each way on each.
ucmatose_pair() {
	server_client "ucmatose-$1" ucmatose -b "$1" -c "$2" -- \
		ucmatose -s "$1" -c "$2"
}

# rdma_server_client ADDR rxe|siw: librdmacm's rdma_server and
# rdma_client (the rdma_getaddrinfo path) on ADDR's device.
#
# Each moves its QP to ERR as soon as its last completion arrives, and
# rxe acknowledges a message only after completing it: when the peer's
# shutdown wins that race, rxe drops the ACK, and the send it was for
# is retried forever (librdmacm asks for 7 retries, which rxe takes as
# infinite). It was seen about once in 40 pairs, and the CM has no
# part in it: the retry count and the ACK are the QP's. So an rxe pair
# that times out gets one more try.
rdma_server_client() {
	local name=rdma_server-$1 rc=0
	CM_PAIR_TIMEOUT=20 run_pair "$name" rdma_server -p 7471 -- \
		rdma_client -s "$1" -p 7471 || rc=$?
	if [ "$rc" = 124 ] && [ "${2:-}" = rxe ]; then
		echo "  $name: timed out, rxe's lost ACK (above): once more"
		rc=0
		CM_PAIR_TIMEOUT=20 run_pair "$name" rdma_server -p 7471 -- \
			rdma_client -s "$1" -p 7471 || rc=$?
	fi
	[ "$rc" = 0 ] || fail "$name: exit $rc"
	echo "ok: $name"
}

# cmtime: COUNT connections set up and torn down at once. Its server
# serves until it is stopped: the client's status is the verdict.
cmtime_pair() {
	local name=cmtime-$1 spid
	timeout 60 cmtime -b "$1" -c "$2" > "$CM_OUT/$name.server" 2>&1 &
	spid=$!
	await_listener "$spid" cmtime
	client_until_served "$name" "$spid" cmtime -s "$1" -c "$2" ||
		fail "$name: client exit $?"
	kill "$spid"
	wait "$spid" || true
	show_tail "$name client" "$CM_OUT/$name.client"
	echo "ok: $name"
}

# perftest's ib_send_lat with rdma_cm connection setup (-R) on DEVICE.
send_lat_pair() {
	server_client "ib_send_lat-$1" ib_send_lat -R -d "$2" -n 100 -- \
		ib_send_lat -R -d "$2" -n 100 "$1"
}

# ib_send_bw -R on DEVICE. Under TCG perftest cannot calibrate its clock
# (its fit of the cycle counter stays below r^2 0.9) and so ends with
# "Can't produce a report" and status 1 after the transfer: what counts
# here, the connection through rdma_cm and the sends, shows as both
# sides reaching the report's header after exchanging QP numbers.
send_bw_pair() {
	local name=ib_send_bw-$1 f
	server_client "$name" sh -c "ib_send_bw -R -d $2 -s 4096 -n 100; true" -- \
		sh -c "ib_send_bw -R -d $2 -s 4096 -n 100 $1; true"
	for f in "$CM_OUT/$name.server" "$CM_OUT/$name.client"; do
		grep -q 'remote address: LID' "$f" ||
			fail "$name: no connection in $f"
		grep -q 'BW average' "$f" || fail "$name: no transfer in $f"
		if ! grep -q "Can't produce a report" "$f"; then
			grep -Eq '^ *4096 +100 ' "$f" ||
				fail "$name: no report line in $f"
		fi
	done
	echo "ok: $name connected and sent"
}
