#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xrdma (net/xrdma) and its tool xrping end to end: ping-pong with
# byte-by-byte validation over RoCE (rxe0) and iWARP (siw0), IPv4 and
# IPv6, at least 10,000 validated round trips in all; sizes from 1 byte
# to the inline limit, and past a small inline size as chunks; 64
# connections at once; reconnect with backoff after the
# server restarted and after rxe0 was removed mid-run and added back;
# nothing left behind.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/xrdma/xrdma_lib.sh
. "$CM_TOP/tests/e2e/xrdma/xrdma_lib.sh"

port=18515
failed=0
validated=0

# check WHAT COUNT RC: the last run's write of run returned RC, which
# must be 0, and its results say it passed and validated COUNT messages.
check() {
	local want=$2

	if [ "$3" != 0 ] || [ "${xrdma_r[status]:-}" != pass ] ||
	   [ "${xrdma_r[messages]:-}" != "$want" ] ||
	   [ "${xrdma_r[errors]:-}" != 0 ]; then
		echo "FAIL: $1 (run's status $3)" >&2
		printf '    %s\n' "${xrdma_results[@]}" >&2
		failed=$((failed + 1))
		return
	fi
	validated=$((validated + xrdma_r[messages]))
	echo "ok: $1: ${xrdma_r[messages]} messages" \
		"in ${xrdma_r[elapsed_us]} us," \
		"median ${xrdma_r[lat_median_ns]} ns," \
		"p99 ${xrdma_r[lat_p99_ns]} ns"
}

run() {
	local what=$1 want=$2 rc=0
	shift 2
	xrdma_test t "$@" || rc=$?
	check "$what" "$want" "$rc"
}

xrdma_load || fail "cannot load xrdma.ko and xrping.ko"
servers=(rxe4 "$CM_RXE_ADDR4" rxe6 "$CM_RXE_ADDR6"
	 siw4 "$CM_SIW_ADDR4" siw6 "$CM_SIW_ADDR6")
for ((i = 0; i < ${#servers[@]}; i += 2)); do
	xrdma_server_start "${servers[i]}" "${servers[i + 1]}" "$port" \
		inline_size=65536 ||
		fail "cannot start server ${servers[i]}"
done

# The bulk of the 10,000 validated round trips the script makes in all:
# 2,200 on each device and family, 16 in flight at once (each echo is
# checked against the pattern of its number; echoes come back in
# order).  rxe and siw run side by side: the guest has two CPUs.
for ((i = 0; i < ${#servers[@]}; i += 2)); do
	xrdma_test_start "${servers[i]}" "${servers[i + 1]}" "$port" \
		size=64 count=2200 window=16 ||
		fail "cannot start the ping-pong on ${servers[i]}"
done
for ((i = 0; i < ${#servers[@]}; i += 2)); do
	rc=0
	xrdma_test_finish "${servers[i]}" || rc=$?
	check "${servers[i]} ping-pong" 2200 "$rc"
done

# Sizes from 1 byte to the 64 KiB inline limit, over every device and
# family in turn.
sizes=(1 7 1000 4096 65536 65536 65536 65536)
for ((i = 0; i < ${#sizes[@]}; i++)); do
	j=$((i % 4 * 2))
	run "${servers[j]} size ${sizes[i]}" 4 "${servers[j + 1]}" "$port" \
		"size=${sizes[i]}" count=4 inline_size=65536
done

# One message in flight: the plain ping-pong, each next message sent
# by the echo's receive callback, and then by the run's thread.
run "rxe4 window 1" 50 "$CM_RXE_ADDR4" "$port" count=50
run "siw4 window 1 unchained" 50 "$CM_SIW_ADDR4" "$port" count=50 chain=0

# A message larger than the inline size goes as a chunk the server
# pulls or is pushed into a landing buffer it advertised, and so does
# its echo; the threshold follows the inline size.
for ((j = 0; j < 8; j += 2)); do
	run "${servers[j]} size 8192 over inline 4096" 4 \
		"${servers[j + 1]}" "$port" size=8192 inline_size=4096 count=4
	if [ $((${xrdma_r[chunks_sent]:-0} + ${xrdma_r[pushes_sent]:-0})) != 4 ] ||
	   [ $((${xrdma_r[chunks_received]:-0} + ${xrdma_r[pushes_received]:-0})) != 4 ]; then
		echo "FAIL: ${servers[j]}: 8192 over inline 4096 went neither as a chunk nor pushed" >&2
		failed=$((failed + 1))
	fi
done

# 64 connections open at once, each ping-ponging, with setup times.
run "64 connections" 512 "$CM_RXE_ADDR4" "$port" conns=64 count=512 \
	depth=4 window=4
echo "   ${xrdma_r[setup_established_ns]:-no setup figures}"

# A server that is not there: a clear refusal, not a hang.
# ran_and_failed: the last run was not refused, it ran and failed with
# an error.
ran_and_failed() {
	[ "${xrdma_r[status]:-}" = fail ] && [ "${xrdma_r[error]:-0}" != 0 ]
}

if xrdma_test t "$CM_RXE_ADDR4" $((port + 1)) count=1 || ! ran_and_failed
then
	echo "FAIL: connect to a closed port: not a failed run" >&2
	printf '    %s\n' "${xrdma_results[@]}" >&2
	failed=$((failed + 1))
else
	echo "ok: closed port refused (error ${xrdma_r[error]})"
fi

# An address nobody has: resolution fails within the timeout, and the
# half-built endpoint (an id, no QP) is torn down.
if xrdma_test t 10.0.0.99 "$port" count=1 timeout_ms=1000 ||
   ! ran_and_failed; then
	echo "FAIL: connect to an address nobody has: not a failed run" >&2
	printf '    %s\n' "${xrdma_results[@]}" >&2
	failed=$((failed + 1))
else
	echo "ok: unresolvable address failed (error ${xrdma_r[error]})"
fi

# check_reconnected WHAT COUNT RC: as check, and the client reconnected.
check_reconnected() {
	check "$1" "$2" "$3"
	if [ "${xrdma_r[reconnects]:-0}" -lt 1 ]; then
		echo "FAIL: $1: no reconnect" >&2
		failed=$((failed + 1))
	fi
}

# restart NAME ADDR: the server listens again (after its device went,
# its listening id went too).
restart() {
	xrdma_server_stop "$1" || failed=$((failed + 1))
	xrdma_server_start "$1" "$2" "$port" inline_size=65536 ||
		fail "cannot restart server $1"
}

# echoed SERVER: how many messages SERVER echoed so far, in $echoed.
echoed() {
	echoed=$(xrdma_server_stat "$1" echoed) ||
		fail "server $1 has no echoed in its stats"
}

# echoed_past SERVER N: SERVER echoed more than N messages.
echoed_past() {
	local echoed
	echoed "$1"
	[ "$echoed" -gt "$2" ]
}

# mid_run SERVER SINCE N: wait until SERVER echoed N messages more than
# SINCE, that is until the run under way is well into its messages.
mid_run() {
	wait_for "$1 to echo $3 messages of the run" echoed_past "$1" \
		$(($2 + $3 - 1))
}

# restart_under NAME SERVER ADDR AFTER COUNT WHAT [ATTR=VALUE...]: a
# run of COUNT messages with reconnect, during which SERVER goes away
# once it echoed AFTER of them, and comes back; the run must pass whole,
# with a reconnect.
restart_under() {
	local name=$1 srv=$2 addr=$3 after=$4 count=$5 what=$6 rc=0 echoed

	shift 6
	echoed "$srv"
	xrdma_test_start "$name" "$addr" "$port" "count=$count" \
		reconnect_ms=100 "$@" || fail "cannot start $what"
	mid_run "$srv" "$echoed" "$after"
	xrdma_server_stop "$srv" || failed=$((failed + 1))
	xrdma_server_start "$srv" "$addr" "$port" inline_size=65536 ||
		fail "cannot restart server $srv"
	xrdma_test_finish "$name" || rc=$?
	check_reconnected "$what" "$count" "$rc"
}

# Reconnect with backoff: the server goes away in the middle of a run
# and comes back; the client's message in flight is sent again.  With
# xrdma's debug output on, the log says how the connection ended: the
# client's DISCONNECTED event and the disconnect forced (by that event,
# or by an error completion before it).
ddebug=/sys/kernel/debug/dynamic_debug/control
mark="xrdma.sh: reconnect $$"
echo 'module xrdma +p' > "$ddebug"
echo "$mark" > /dev/kmsg
restart_under rc rxe4 "$CM_RXE_ADDR4" 50 200 \
	"reconnect after the server restarted"
echo 'module xrdma -p' > "$ddebug"
for said in "$CM_RXE_ADDR4:$port: disconnected, status 0" \
	    "$CM_RXE_ADDR4:$port: disconnect forced by "; do
	if ! dmesg | sed -n "/$mark/,\$p" | grep -qF "$said"; then
		echo "FAIL: the log does not say \"$said\"" >&2
		failed=$((failed + 1))
	fi
done

# The same with 1 MiB messages over siw: the client keeps its landing
# buffers across the connections and registers them again on the new
# one, whose server has new ones; after the first one or two messages
# of each connection every message is pushed, each way.
restart_under rl siw4 "$CM_SIW_ADDR4" 5 40 \
	"1 MiB messages across a reconnect" size=1048576 inline_size=65536
if [ "${xrdma_r[pushes_sent]:-0}" -lt 20 ] ||
   [ "${xrdma_r[pushes_received]:-0}" -lt 20 ]; then
	echo "FAIL: 1 MiB across a reconnect: ${xrdma_r[pushes_sent]:-0}" \
		"pushed, ${xrdma_r[pushes_received]:-0} pushed to us, not 20" >&2
	failed=$((failed + 1))
else
	echo "   ${xrdma_r[pushes_sent]} pushed and ${xrdma_r[chunks_sent]}" \
		"chunks sent, ${xrdma_r[pushes_received]} pushed to us"
fi

# Device removal in the middle of a run: the endpoints let go, rxe0
# unregisters (rdma link delete returns), it comes back, the client
# reconnects and finishes.
echoed rxe4
xrdma_test_start dr "$CM_RXE_ADDR4" "$port" count=600 reconnect_ms=100 ||
	fail "cannot start the run for the device removal"
mid_run rxe4 "$echoed" 100
rdma link delete rxe0 || fail "rxe0 did not unregister"
echo "ok: rxe0 unregistered with a transfer running"
rdma link add rxe0 type rxe netdev veth0 || fail "cannot add rxe0 again"
wait_for "rxe0 active" port_active rxe0
restart rxe4 "$CM_RXE_ADDR4"
restart rxe6 "$CM_RXE_ADDR6"
rc=0
xrdma_test_finish dr || rc=$?
check_reconnected "reconnect after rxe0 was removed and added" 600 "$rc"

# Every id, QP, CQ and PD the module made is gone.
xrdma_cleanup t rc rl dr rxe4 rxe6 siw4 siw6 || failed=$((failed + 1))
echo "validated round trips in all: $validated"
[ "$validated" -ge 10000 ] || fail "fewer than 10,000 validated round trips"
[ "$failed" = 0 ] || fail "$failed checks failed"
echo "all xrdma checks passed"
