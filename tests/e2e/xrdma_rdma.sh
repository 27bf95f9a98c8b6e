#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xrdma's FRWR pool, RDMA WRITE and READ, and xrping's bandwidth and
# duplex modes end to end, over RoCE (rxe0) and iWARP (siw0):
# - a WRITE under a key the server invalidated is refused, the key
#   having been invalidated by the client's SEND_WITH_INV;
# - Sends of 1 B to 1 MiB, validated ping-pong, on both sides of every
#   size where the path changes: above the 64 KiB inline size each goes
#   as a read chunk the peer pulls, and each chunk's registration is
#   invalidated by the peer's SEND_WITH_INV (remote invalidations
#   counted, local ones skipped); a stream and a duplex run of chunks,
#   the stream's tally asked for behind chunks that take longer than
#   the timeout to pull, all together;
# - WRITE and READ ping-pong at 1 B, 4 KiB and a byte either side,
#   64 KiB, 1 MiB and a byte less, every message checked against the
#   pattern of its number (WRITEs by the server, READs here), each
#   registration under a key never seen before in the run, every
#   registration invalidated again;
# - bandwidth streams of Sends, WRITEs and READs and duplex runs that
#   must move exactly the bytes they claim, with 0 errors;
# - the verbs floor (bare QPs, no xrdma) moves what it claims too;
# - the pool refilled itself from its work item;
# - rxe0 removed in the middle of a WRITE stream, with MRs registered at
#   both ends, and of a stream of chunked Sends: the runs fail cleanly
#   and the device unregisters;
# - nothing left behind.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/xrdma/xrdma_lib.sh
. "$CM_TOP/tests/e2e/xrdma/xrdma_lib.sh"

port=18525
failed=0

bad() {
	echo "FAIL: $1" >&2
	printf '    %s\n' "${xrdma_results[@]}" >&2
	failed=$((failed + 1))
}

# xrun NAME ADDR PORT [ATTR=VALUE...]: xrdma_test, its status (the
# write of run) kept in $run_rc for check.
run_rc=0
xrun() {
	run_rc=0
	xrdma_test "$@" || run_rc=$?
}

# check WHAT MESSAGES BYTES: the last run (xrun) returned 0 and passed,
# completed MESSAGES messages, moved BYTES bytes and found no error.
check() {
	if [ "$run_rc" != 0 ] || [ "${xrdma_r[status]:-}" != pass ] ||
	   [ "${xrdma_r[messages]:-}" != "$2" ] ||
	   [ "${xrdma_r[bytes]:-}" != "$3" ] ||
	   [ "${xrdma_r[errors]:-}" != 0 ]; then
		bad "$1 (run's status $run_rc)"
		return 1
	fi
}

# check_keys WHAT MIN: at least MIN registrations advertised, every key
# distinct; the client invalidated each of its registrations and lost
# no MR.
check_keys() {
	if [ "${xrdma_r[rkeys]:-0}" -lt "$2" ] ||
	   [ "${xrdma_r[rkeys_distinct]:-}" != "${xrdma_r[rkeys]:-}" ] ||
	   [ "${xrdma_r[mr_regs]:-}" != "${xrdma_r[mr_invs]:-}" ] ||
	   [ "${xrdma_r[mr_dropped]:-}" != 0 ]; then
		bad "$1: registrations"
		return 1
	fi
}

# pingpong NAME ADDR OP SIZE COUNT: validated WRITEs or READs.  The
# server registers its buffer once to expose it and again after each
# check (WRITE) or refill for the next message (READ).
pingpong() {
	local what="$1 $3 size $4" keys=$(($5 + 1))

	[ "$3" = write ] || keys=$5
	xrun t "$2" "$port" "op=$3" mode=pingpong "size=$4" "count=$5"
	check "$what" "$5" $(($4 * $5)) || return 0
	check_keys "$what" "$keys" || return 0
	refills=$((refills + ${xrdma_r[mr_refills]:-0}))
	echo "ok: $what: $5 validated, median ${xrdma_r[lat_median_ns]} ns," \
		"${xrdma_r[gbps]} Gb/s, ${xrdma_r[rkeys_distinct]} distinct" \
		"rkeys (last local ${xrdma_r[mr_last_rkey]})"
}

# stream NAME ADDR OP MODE SIZE COUNT OPS WAYS [ATTR=VALUE...]: a
# bandwidth or duplex run of COUNT messages, each OPS operations (RDMA
# duplex: a WRITE and a READ) and carried WAYS ways (Send duplex: out
# and echoed back).
stream() {
	local what="$1 $3 $4 size $5" want=$(($6 * $7))

	xrun t "$2" "$port" "op=$3" "mode=$4" "size=$5" "count=$6" "${@:9}"
	check "$what" "$want" $(($6 * $5 * $8)) || return 0
	echo "ok: $what: $want messages, ${xrdma_r[bytes]} bytes," \
		"${xrdma_r[gbps]} Gb/s, ${xrdma_r[msg_per_sec]} msg/s"
}

# xcheck WHAT KEY WANT: the last run's counter KEY is WANT.
xcheck() {
	if [ "${xrdma_r[$2]:-}" != "$3" ]; then
		bad "$1: $2 ${xrdma_r[$2]:-none}, not $3"
		return 1
	fi
}

# xsum WHAT KEY1 KEY2 WANT: the last run's counters KEY1 + KEY2 are WANT.
xsum() {
	local sum=$((${xrdma_r[$2]:-0} + ${xrdma_r[$3]:-0}))

	if [ "$sum" != "$4" ]; then
		bad "$1: $2 + $3 = $sum, not $4"
		return 1
	fi
}

# xatleast WHAT KEY MIN: the last run's counter KEY is MIN or more.
xatleast() {
	if [ "${xrdma_r[$2]:-0}" -lt "$3" ]; then
		bad "$1: $2 ${xrdma_r[$2]:-none}, fewer than $3"
		return 1
	fi
}

# sendpp NAME ADDR SIZE COUNT [ATTR=VALUE...]: validated Send ping-pong
# at the 64 KiB inline size.  Above it each message and each echo goes
# as a chunk the peer pulls or, once the peer's landing buffers are
# registered (after the first large message each way), is pushed into
# one: of 8 or more one at a time, at least half are pushed each way
# (with more in flight than the peer's two landing buffers, at least
# one).  Every key the peer invalidated with its Send (a DONE's, a
# push's) spared a LOCAL_INV here, and each push the peer made into our
# landing buffer invalidated its key.  Below it, on rxe, each of our
# COUNT messages has its header as immediate data; siw (iWARP) has
# none.
sendpp() {
	local what="$1 send size $3" n=$4 chunked=0 imm=0 pushed=0

	[ "$3" -le 65536 ] || chunked=$n
	if [ "$n" -ge 8 ] && [ "$chunked" != 0 ]; then
		pushed=1
		[ $# -gt 4 ] || pushed=$((n / 2))
	fi
	# rxe has immediate data: each inline message's header goes there.
	[ "$chunked" != 0 ] || [ "${1#rxe}" = "$1" ] || imm=$n
	xrun t "$2" "$port" op=send mode=pingpong "size=$3" \
		"count=$4" inline_size=65536 "${@:5}"
	check "$what" "$n" $(($3 * n * 2)) || return 0
	xsum "$what" chunks_sent pushes_sent "$chunked" || return 0
	xsum "$what" chunks_received pushes_received "$chunked" || return 0
	xatleast "$what" pushes_sent "$pushed" || return 0
	xatleast "$what" pushes_received "$pushed" || return 0
	xcheck "$what" mr_invs_skipped "${xrdma_r[mr_remote_invs]:-}" ||
		return 0
	xatleast "$what" mr_remote_invs "${xrdma_r[pushes_received]:-0}" ||
		return 0
	xatleast "$what" sends_inv "${xrdma_r[pushes_sent]:-0}" || return 0
	if [ "$chunked" != 0 ]; then
		xatleast "$what" mr_remote_invs 1 || return 0
		xatleast "$what" sends_inv 1 || return 0
	else
		xcheck "$what" mr_remote_invs 0 || return 0
		xcheck "$what" sends_inv 0 || return 0
	fi
	xcheck "$what" sends_imm "$imm" || return 0
	xcheck "$what" mr_dropped 0 || return 0
	echo "ok: $what: $n validated, median ${xrdma_r[lat_median_ns]} ns," \
		"${xrdma_r[chunks_sent]} chunks and ${xrdma_r[pushes_sent]}" \
		"pushes sent, ${xrdma_r[mr_remote_invs]} remote invalidations," \
		"${xrdma_r[mr_invs_skipped]} LOCAL_INV skipped"
}

# srv_inv NAME: the server's transports saw remote invalidations and
# skipped their LOCAL_INVs (counted when each is destroyed).
srv_inv() {
	local r s

	r=$(xrdma_server_stat "$1" mr_remote_invs) || return 1
	s=$(xrdma_server_stat "$1" mr_invs_skipped) || return 1
	[ "$r" -gt 0 ] && [ "$s" -gt 0 ]
}

xrdma_load || fail "cannot load xrdma.ko and xrping.ko"
servers=(rxe4 "$CM_RXE_ADDR4" siw4 "$CM_SIW_ADDR4" rxe6 "$CM_RXE_ADDR6")
for ((i = 0; i < ${#servers[@]}; i += 2)); do
	xrdma_server_start "${servers[i]}" "${servers[i + 1]}" "$port" \
		inline_size=65536 || fail "cannot start server ${servers[i]}"
done

refills=0
for ((i = 0; i < 4; i += 2)); do
	name=${servers[i]} addr=${servers[i + 1]}
	for op in write read; do
		pingpong "$name" "$addr" "$op" 1 8
		pingpong "$name" "$addr" "$op" 4096 8
		pingpong "$name" "$addr" "$op" 65536 4
		pingpong "$name" "$addr" "$op" 1048576 2
		# Around a page (siw signals a WRITE of a page or more)
		# and a registration of all but one byte of 1 MiB.
		pingpong "$name" "$addr" "$op" 4095 4
		pingpong "$name" "$addr" "$op" 4097 4
		pingpong "$name" "$addr" "$op" 1048575 2
	done
	stream "$name" "$addr" write bw 65536 128 1 1 window=16
	stream "$name" "$addr" read bw 65536 128 1 1 window=16
	# Each operation posted by the run's thread, not by a completion.
	stream "$name" "$addr" write bw 4096 256 1 1 window=16 chain=0
	stream "$name" "$addr" write bw 1048576 8 1 1 window=4
	stream "$name" "$addr" read bw 1048576 8 1 1 window=4
	stream "$name" "$addr" write duplex 65536 64 2 2 window=16
	stream "$name" "$addr" send bw 4096 2000 1 1
	stream "$name" "$addr" send duplex 4096 1000 1 2
	stream "$name" "$addr" send floor 4096 200 1 2
	stream "$name" "$addr" write floor 65536 128 1 1 window=16
	stream "$name" "$addr" write floor 1048576 4 1 1
	# A key the server invalidated (and replaced) must not work; our
	# FILL request invalidated it remotely.
	xrun t "$addr" "$port" op=write mode=stale size=4096
	if ! check "$name stale rkey" 1 0; then
		:
	elif [ "${xrdma_r[sends_inv]:-0}" -lt 1 ]; then
		bad "$name stale rkey: the key was not invalidated remotely"
	else
		echo "ok: $name: a WRITE under a remotely invalidated rkey" \
			"was refused"
	fi
	# Sends of every size, inline and chunked.
	for size in 1 4096 65536 65537 262144; do
		sendpp "$name" "$addr" "$size" 4
	done
	# And on each side of every boundary the path changes at: rxe's
	# 1 KiB packets; a page with and without siw's 12-byte header (a
	# Send of a page or more is signalled there); the inline size;
	# above it, a chunk's or a push's registration growing by a page,
	# and the 1 MiB most (8 each, so that most go as pushes).
	for size in 2 1023 1024 1025 2049 4083 4084 4095 4097 8191 65535; do
		sendpp "$name" "$addr" "$size" 2
	done
	for size in 69632 69633 131073 1048575; do
		sendpp "$name" "$addr" "$size" 8
	done
	sendpp "$name" "$addr" 1048576 8
	sendpp "$name" "$addr" 262144 16 window=4
	# A one-way stream: the server's DONEs and credit updates carry its
	# landing buffers; each chunk's key is invalidated by its DONE.  The
	# 8 chunks go at once and the server's tally comes after it pulled
	# them all: over rxe that is 3-7 s, past the timeout, which only a
	# wait without a chunk done may reach.
	stream "$name" "$addr" send bw 1048576 8 1 1 inline_size=65536 \
		window=4 timeout_ms=2000
	xsum "$name send bw 1 MiB" chunks_sent pushes_sent 8 || true
	xcheck "$name send bw 1 MiB" mr_invs_skipped \
		"${xrdma_r[chunks_sent]:-}" || true
	stream "$name" "$addr" send duplex 131072 16 1 2 inline_size=65536 \
		window=4 depth=4
done
pingpong rxe6 "$CM_RXE_ADDR6" write 4096 4
pingpong rxe6 "$CM_RXE_ADDR6" read 4096 4

# The pool starts with 2 MRs; the work item tops it up once a
# registration leaves it low.
if [ "$refills" -lt 1 ]; then
	echo "FAIL: the FRWR pool was never refilled" >&2
	failed=$((failed + 1))
else
	echo "ok: the FRWR pool was refilled $refills times"
fi

# Every server side check found its pattern.
for ((i = 0; i < ${#servers[@]}; i += 2)); do
	if ! nbad=$(xrdma_server_stat "${servers[i]}" bad) || [ "$nbad" != 0 ]; then
		echo "FAIL: server ${servers[i]} found ${nbad:-?} bad buffers" >&2
		failed=$((failed + 1))
	fi
done
echo "server rxe4: registered $(xrdma_server_stat rxe4 registered)," \
	"verified $(xrdma_server_stat rxe4 verified)"

# The servers' registrations were invalidated by our VERIFY and FILL
# requests and our DONEs: their releases skipped the LOCAL_INV.  Their
# echoes of inline messages left from the buffers the messages arrived
# in: at least those of the Sends of 1 B, 4 KiB and 64 KiB above, four
# each, whose validation passed.
for name in rxe4 siw4; do
	wait_for "$name's remote invalidations" srv_inv "$name"
	echo "ok: server $name:" \
		"$(xrdma_server_stat "$name" mr_remote_invs) remote" \
		"invalidations, $(xrdma_server_stat "$name" mr_invs_skipped)" \
		"LOCAL_INV skipped, $(xrdma_server_stat "$name" mr_invs) done"
	n=$(xrdma_server_stat "$name" sends_received) || n=0
	if [ "$n" -lt 12 ]; then
		echo "FAIL: server $name echoed $n messages from their" \
			"receive buffers, not at least 12" >&2
		failed=$((failed + 1))
	else
		echo "ok: server $name echoed $n messages from their receive" \
			"buffers"
	fi
done

# rxe0_sent: rxe0's count of packets sent, in $sent.
rxe0_sent() {
	read -r sent < /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
}

# rxe0_sent_past N: rxe0 sent more than N packets.
rxe0_sent_past() {
	local sent
	rxe0_sent
	[ "$sent" -gt "$1" ]
}

# remove_under NAME WHAT PACKETS KEY ATTR=VALUE...: rxe0 removed once a
# run of ATTRs made it send PACKETS packets: it unregisters (rdma link
# delete returns), and the run ends with an error instead of hanging
# (its result KEY shows how far it got); then rxe0 comes back.
remove_under() {
	local name=$1 what=$2 packets=$3 key=$4 sent

	shift 4
	rxe0_sent
	xrdma_test_start "$name" "$CM_RXE_ADDR4" "$port" "$@" ||
		fail "cannot start the $what"
	wait_for "the $what to send $packets packets" rxe0_sent_past \
		$((sent + packets))
	rdma link delete rxe0 || fail "rxe0 did not unregister under a $what"
	if xrdma_test_finish "$name" || [ "${xrdma_r[status]:-}" != fail ]; then
		bad "the $what survived the removal of its device"
	else
		echo "ok: rxe0 unregistered under a $what" \
			"($key ${xrdma_r[$key]}, error ${xrdma_r[error]})"
	fi
	rdma link add rxe0 type rxe netdev veth0 || fail "cannot add rxe0 again"
	wait_for "rxe0 active" port_active rxe0
	wait_for "rxe0's GIDs" rxe0_gids_whole
}

# Device removal in the middle of a WRITE stream: both ends hold
# registrations; teardown destroys them.
remove_under dr "WRITE stream" 2000 messages op=write mode=bw size=65536 \
	count=1000000 window=16

# The same in the middle of a stream of 1 MiB Sends: chunks wait for
# their DONE at the client, a pull may be in progress at the server;
# teardown releases both, nothing is left and no check complains.
xrdma_server_stop rxe4 || failed=$((failed + 1))
xrdma_server_start rxe4 "$CM_RXE_ADDR4" "$port" inline_size=65536 ||
	fail "cannot restart server rxe4"
remove_under dc "stream of chunks" 3000 chunks_sent op=send mode=bw \
	size=1048576 count=1000000 window=4 inline_size=65536

# Past the limits: refused, not truncated.
if xrdma_put "$XRPING_CFS/tests/t/size" 1048577 2> /dev/null; then
	echo "FAIL: a size over 1 MiB was accepted" >&2
	failed=$((failed + 1))
else
	echo "ok: size over 1 MiB refused"
fi
if xrdma_test t "$CM_RXE_ADDR4" "$port" op=send size=65537 \
	inline_size=65536 window=8 || [ "${xrdma_r[status]:-}" != refused ]
then
	echo "FAIL: a window of chunks over half the slots was not refused" >&2
	printf '    %s\n' "${xrdma_results[@]}" >&2
	failed=$((failed + 1))
else
	echo "ok: a window of 8 chunked Sends refused (4 at most)"
fi

# Every MR, QP, CQ, PD and id the module made is gone.
xrdma_cleanup t dr dc || failed=$((failed + 1))
[ "$failed" = 0 ] || fail "$failed checks failed"
echo "all xrdma RDMA checks passed"
