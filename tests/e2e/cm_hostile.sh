#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile peers over RoCE (rxe0, loopback), IPv4 and IPv6: cm_hostile.ko
# drives the IB CM directly against an rdma_cm listener with malformed CM
# headers, private data of every length, REQs for ports nobody listens
# on, duplicate REQs, DREQs for no connection, peers that go silent or
# reject after the REP; good peers must still connect before and after.
#
# Then the requests that could not have come from where their header says
# (a source with no route, one routed through another netdev, loopback, a
# destination on another netdev) and one to a listener in another network
# namespace, first on the in-box rdma_cm, the oracle, then on ours: both
# must drop them and serve the honest ones beside them, and ours must
# count each it drops for its origin in the listing of devices.
. "$CM_TOP/tests/e2e/lib/common.sh"

CH_KO=tests/e2e/cm_hostile/cm_hostile.ko
CH_PORT=7472
CH_COUNTERS=/sys/class/infiniband/rxe0/ports/1
# Addresses of this host on a netdev of its own, not rxe0's (documentation
# ranges: nothing is sent there).
CH_FOREIGN_DEV=chv0
CH_FOREIGN4=198.51.100.1
CH_FOREIGN6=2001:db8:100::1
CH_NS=cm_hostile
ch_failed=()

[ -e "$CH_KO" ] ||
	fail "$CH_KO is missing: build it (make -C KDIR M=\$PWD/tests/e2e/cm_hostile modules)"
cm_is_ours || fail "cm_hostile.sh starts on our rdma_cm"

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

# Our CM's count of requests dropped on rxe0's port for their origin.
ch_unroutable() {
	local line

	[ -r "$CM_DEVICES" ] || fail "our CM has no $CM_DEVICES"
	while read -r line; do
		if [[ $line == "rxe0 1 "* ]]; then
			[[ $line == *" unroutable_reqs="* ]] ||
				fail "no unroutable_reqs in: $line"
			line=${line##* unroutable_reqs=}
			echo "${line%% *}"
			return 0
		fi
	done < "$CM_DEVICES"
	fail "rxe0's port 1 is not in $CM_DEVICES"
}

# ch_use inbox|ours: that rdma_cm, loaded alone.
ch_use() {
	[ ! -e /sys/module/rdma_ucm ] || rmmod rdma_ucm ||
		fail "rdma_ucm is in use"
	[ ! -e /sys/module/rdma_cm ] || rmmod rdma_cm ||
		fail "rdma_cm is in use"
	if [ "$1" = ours ]; then
		insmod "$CM_KO" || fail "our rdma_cm does not load"
		cm_is_ours || fail "the rdma_cm loaded is not ours"
	else
		modprobe rdma_cm || fail "the in-box rdma_cm does not load"
		! cm_is_ours || fail "modprobe loaded ours, not the in-box CM"
	fi
	echo "== rdma_cm: $1"
}

# Whatever happens, the scripts after this one get our CM and no leftovers.
ch_cleanup() {
	if [ ! -e /sys/module/rdma_cm ]; then
		insmod "$CM_KO"
	elif ! cm_is_ours; then
		rmmod rdma_cm && insmod "$CM_KO"
	fi
	ip link del "$CH_FOREIGN_DEV" 2> /dev/null || :
	ip netns del "$CH_NS" 2> /dev/null || :
}
trap ch_cleanup EXIT

# A netdev of the script's own, with addresses on subnets of its own, not
# rxe0's; its peer end has none.
ip -b - <<-EOF
	link add $CH_FOREIGN_DEV type veth peer name chv1
	addr add $CH_FOREIGN4/24 dev $CH_FOREIGN_DEV
	addr add $CH_FOREIGN6/64 dev $CH_FOREIGN_DEV nodad
	link set $CH_FOREIGN_DEV up
	link set chv1 up
EOF

# A network namespace of its own, which insmod opens for the module.
ip netns add "$CH_NS" || fail "cannot make the network namespace $CH_NS"

# ch_run WHAT ADDR OTHER FOREIGN [PARAM...]: one insmod, listener on
# ADDR; its status is the verdict, kernel messages and counters shown.
# On ours, the count of requests dropped for their origin must grow by
# as many as the module sent.
ch_run() {
	local what=$1 a=$2 o=$3 f=$4 mark rc=0 dup0 dup1 rtx0 rtx1 start
	local ours=0 u0=0 u1=0 sent
	shift 4
	mark="cm_hostile-run-$$-$a-$what"
	echo "== cm_hostile $what addr=$a other=$o foreign=$f $*"
	echo "$mark" > /dev/kmsg
	if cm_is_ours; then
		ours=1
		u0=$(ch_unroutable)
	fi
	dup0=$(ch_counter cm_rx_duplicates req)
	rtx0=$(ch_counter cm_tx_retries req)
	start=$SECONDS
	insmod "$CH_KO" "addr=$a" "other=$o" "foreign=$f" "port=$CH_PORT" \
		netns_fd=9 "$@" 9< "/run/netns/$CH_NS" || rc=$?
	dup1=$(ch_counter cm_rx_duplicates req)
	rtx1=$(ch_counter cm_tx_retries req)
	dmesg | sed -n "/$mark/,\$p" | grep -E 'cm_hostile|FAIL|WARNING|BUG' |
		grep -v "$mark" || :
	echo "REQs resent: $((rtx1 - rtx0)); duplicate REQs received: $((dup1 - dup0)); $((SECONDS - start)) s"
	if grep -q '^cm_hostile ' /proc/modules; then
		rmmod cm_hostile || rc=1
	fi
	if ! ch_nothing_left; then
		echo "FAIL: cm_hostile left these behind:" >&2
		printf '  %s\n' "${restrack_left[@]}" >&2
		rc=1
	fi
	if [ "$ours" = 1 ]; then
		u1=$(ch_unroutable)
		sent=$(dmesg | sed -n "/$mark/,\$s/.*unroutable requests sent: \([0-9]*\).*/\1/p")
		echo "unroutable_reqs on rxe0 port 1: $u0 -> $u1; the module sent ${sent:-none}"
		if [ -z "$sent" ] || [ "$((u1 - u0))" != "$sent" ]; then
			echo "FAIL: our CM counted $((u1 - u0)) requests dropped for their origin, the module sent ${sent:-none}" >&2
			rc=1
		fi
	fi
	if [ "$rc" = 0 ]; then
		echo "ok: cm_hostile $what addr=$a"
	else
		echo "FAIL: cm_hostile $what addr=$a (insmod exit $rc)" >&2
		ch_failed+=("$what $a")
	fi
}

# The in-box CM first, as the oracle of the origin cases; it is known to
# differ on some of the others, which are ours alone.
ch_use inbox
ch_run inbox "$CM_RXE_ADDR4" "$CM_RXE_ADDR6" "$CH_FOREIGN4" origin_only=1
ch_run inbox "$CM_RXE_ADDR6" "$CM_RXE_ADDR4" "$CH_FOREIGN6" origin_only=1
ch_use ours
ch_run ours "$CM_RXE_ADDR4" "$CM_RXE_ADDR6" "$CH_FOREIGN4" strict=1
ch_run ours "$CM_RXE_ADDR6" "$CM_RXE_ADDR4" "$CH_FOREIGN6" strict=1

if [ ${#ch_failed[@]} -gt 0 ]; then
	fail "cm_hostile failed for: ${ch_failed[*]}"
fi
echo "cm_hostile passed for IPv4 and IPv6, the origin cases on the in-box CM and ours"
