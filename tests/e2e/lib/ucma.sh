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
	pair_server_out=$CM_OUT/$name.server
	no_stale_listener "${server[@]}"
	timeout "${CM_PAIR_TIMEOUT:-60}" "${server[@]}" \
		> "$pair_server_out" 2>&1 &
	spid=$!
	await_listener "$spid" "${server[@]}" ||
		echo "  $name: the server is not ready; the client tries anyway"
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
# server to be ready (server_ready); false if it was not, or ended. A
# client that comes too early does not always fail cleanly: of udaddy's
# four SIDR requests, the first two can find no listener and the last
# two be served, and the server then has room for only two of the next
# client's.
await_listener() {
	local spid=$1 comm i

	comm=$(server_comm "${@:2}")
	for ((i = 0; i < 100; i++)); do
		server_ready "$comm" && return 0
		kill -0 "$spid" 2> /dev/null || return 1
		nap 0.1
	done
	echo "  $comm: not ready after 10 s"
	return 1
}

# server_comm SERVER-CMD...: the name its ids are listed under: the
# command, or for "sh -c SCRIPT" the first word of SCRIPT.
server_comm() {
	local comm=$1

	[ "$comm" != sh ] || comm=${3%% *}
	comm=${comm##*/}
	echo "${comm:0:15}"
}

# no_stale_listener SERVER-CMD...: wait until no id of an earlier server
# of that name listens any more (its ids go once it has exited), so that
# the next one's readiness is not read from it.
no_stale_listener() {
	local comm

	[ -z "${CM_PAIR_READY:-}" ] || return 0
	comm=$(server_comm "$@")
	wait_for "the last $comm's listener to go" not_ready "$comm"
}

not_ready() {
	! server_ready "$1"
}

# server_ready COMM: the server is ready for its client.  With
# CM_PAIR_READY set, a server that joins a group instead of listening
# has printed that line in $pair_server_out; otherwise an id of COMM
# listens, as our listing of ids shows it, or, on the in-box CM, which
# has none, rdma's listing of restrack's cm_ids.
server_ready() {
	local line out
	local -a ids

	if [ -n "${CM_PAIR_READY:-}" ]; then
		mapfile -t ids < "$pair_server_out"
		for line in "${ids[@]}"; do
			[[ $line != *"$CM_PAIR_READY"* ]] || return 0
		done
		return 1
	fi
	if cm_is_ours; then
		[ -r "$CM_IDS" ] || fail "our CM has no $CM_IDS"
		mapfile -t ids < "$CM_IDS"
		for line in "${ids[@]}"; do
			[[ $line != *" state=LISTEN "*" owner=$1 "* ]] || return 0
		done
		return 1
	fi
	out=$(rdma resource show cm_id) || fail "rdma resource show cm_id"
	while IFS= read -r line; do
		[[ $line != *"state LISTEN "*"comm $1 "* ]] || return 0
	done <<< "$out"
	return 1
}

# client_until_served NAME SERVER-PID CLIENT-CMD...: run the client; if
# it fails while the server still runs, the server may not be listening
# yet (where await_listener cannot tell): try again, five times in all,
# each try after the first counted with a RETRY line.  The last client's
# status is returned.
client_until_served() {
	local name=$1 spid=$2 try rc=0
	shift 2
	for try in 1 2 3 4 5; do
		[ "$try" = 1 ] || nap 1
		rc=0
		timeout "${CM_PAIR_TIMEOUT:-60}" "$@" \
			> "$CM_OUT/$name.client" 2>&1 || rc=$?
		[ "$rc" != 0 ] && kill -0 "$spid" 2> /dev/null || break
		echo "  $name: client try $try failed ($rc), the server still waits"
		[ "$try" = 5 ] || retried "$name client (try $try exit $rc)"
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
		retried "$name (timed out, rxe's lost ACK)"
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
	local name=cmtime-$1 spid rc
	pair_server_out=$CM_OUT/$name.server
	no_stale_listener cmtime
	timeout 60 cmtime -b "$1" -c "$2" > "$pair_server_out" 2>&1 &
	spid=$!
	await_listener "$spid" cmtime ||
		echo "  $name: the server is not ready; the client tries anyway"
	client_until_served "$name" "$spid" cmtime -s "$1" -c "$2" ||
		fail "$name: client exit $?"
	kill "$spid" 2> /dev/null || {
		show_tail "$name server" "$CM_OUT/$name.server"
		fail "$name: the server ended before it was stopped"
	}
	rc=0
	wait "$spid" || rc=$?
	[ "$rc" = 143 ] || fail "$name: server exit $rc, not the SIGTERM sent"
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
# sides reaching the report's header after exchanging QP numbers.  Each
# side's status is written after its output: 0, or 1 with that message.
send_bw_pair() {
	local name=ib_send_bw-$1 f rc
	local -a lines
	local bw="ib_send_bw -R -d $2 -s 4096 -n 100"
	server_client "$name" sh -c "$bw; echo \"ib_send_bw exit \$?\"" -- \
		sh -c "$bw $1; echo \"ib_send_bw exit \$?\""
	for f in "$CM_OUT/$name.server" "$CM_OUT/$name.client"; do
		mapfile -t lines < "$f"
		rc=${lines[-1]:-}
		[[ $rc == "ib_send_bw exit "* ]] || fail "$name: no exit status in $f"
		rc=${rc#ib_send_bw exit }
		grep -q 'remote address: LID' "$f" ||
			fail "$name: no connection in $f"
		grep -q 'BW average' "$f" || fail "$name: no transfer in $f"
		if grep -q "Can't produce a report" "$f"; then
			[ "$rc" = 1 ] || fail "$name: exit $rc in $f"
		else
			[ "$rc" = 0 ] || fail "$name: exit $rc in $f"
			grep -Eq '^ *4096 +100 ' "$f" ||
				fail "$name: no report line in $f"
		fi
	done
	echo "ok: $name connected and sent"
}
