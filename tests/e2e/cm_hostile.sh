#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile peers over RoCE (rxe0, loopback), IPv4 and IPv6: cm_hostile.ko
# drives the IB CM directly against an rdma_cm listener with malformed CM
# headers, private data of every length, REQs for ports nobody listens
# on, duplicate REQs, DREQs for no connection, peers that go silent or
# reject after the REP; good peers must still connect before and after.
. "$CM_TOP/tests/e2e/lib/common.sh"

CH_KO=tests/e2e/cm_hostile/cm_hostile.ko
CH_PORT=7472
CH_COUNTERS=/sys/class/infiniband/rxe0/ports/1
ch_failed=()

[ -e "$CH_KO" ] ||
	fail "$CH_KO is missing: build it (make -C KDIR M=\$PWD/tests/e2e/cm_hostile modules)"

# The checks the in-box CM is known to fail count only against ours.
if cm_is_ours; then
	ch_strict=1
	echo "our rdma_cm: strict checks on"
else
	ch_strict=0
	echo "in-box rdma_cm: strict checks off"
fi

# No RDMA resource the module made is left (the CM may still be
# destroying an id whose handler returned non-zero).
ch_nothing_left() {
	local tries=50
	while ! restrack_none_of cm_hostile; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		nap 0.1
	done
}

# An IB CM counter of rxe0's port: GROUP (cm_rx_duplicates ...) and NAME.
ch_counter() {
	cat "$CH_COUNTERS/$1/$2" 2> /dev/null || echo 0
}

# ch_run ADDR OTHER: one insmod, listener on ADDR; its status is the
# verdict, kernel messages and counters shown.
ch_run() {
	local a=$1 o=$2 mark rc=0 dup0 dup1 rtx0 rtx1 start
	mark="cm_hostile-run-$$-$a"
	echo "== cm_hostile addr=$a other=$o"
	echo "$mark" > /dev/kmsg
	dup0=$(ch_counter cm_rx_duplicates req)
	rtx0=$(ch_counter cm_tx_retries req)
	start=$SECONDS
	insmod "$CH_KO" "addr=$a" "other=$o" "port=$CH_PORT" \
		"strict=$ch_strict" || rc=$?
	dup1=$(ch_counter cm_rx_duplicates req)
	rtx1=$(ch_counter cm_tx_retries req)
	dmesg | sed -n "/$mark/,\$p" | grep -E 'cm_hostile|FAIL|WARNING|BUG' |
		grep -v "$mark" || true
	echo "REQs resent: $((rtx1 - rtx0)); duplicate REQs received: $((dup1 - dup0)); $((SECONDS - start)) s"
	if grep -q '^cm_hostile ' /proc/modules; then
		rmmod cm_hostile || rc=1
	fi
	if ! ch_nothing_left; then
		echo "FAIL: cm_hostile left these behind:" >&2
		printf '  %s\n' "${restrack_left[@]}" >&2
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok: cm_hostile addr=$a"
	else
		echo "FAIL: cm_hostile addr=$a (insmod exit $rc)" >&2
		ch_failed+=("$a")
	fi
}

ch_run "$CM_RXE_ADDR4" "$CM_RXE_ADDR6"
ch_run "$CM_RXE_ADDR6" "$CM_RXE_ADDR4"

if [ ${#ch_failed[@]} -gt 0 ]; then
	fail "cm_hostile failed for: ${ch_failed[*]}"
fi
echo "cm_hostile passed for IPv4 and IPv6"
