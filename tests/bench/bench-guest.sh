#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of scripts/bench: run each measurement against our
# rdma_cm and the in-box one in turns (ours, in-box, then in-box, ours
# in the next round ...), in one boot, and write every report to
# $CM_OUT/bench.raw, each after a line "== ROUND CM DEVICE WHAT".
# scripts/bench reads it.
#
#   bench-guest.sh ROUNDS SEQ_N STORM_N IDLE_N DEVICES
#
# DEVICES is a comma-separated list of rxe and siw; the floor (the IB
# CM alone) runs over rxe only, iWARP has no IB CM.  The in-box rdma_cm
# is a module of the test kernel (modprobe); ours is the tree's
# drivers/infiniband/core/rdma_cm.ko.  rdma_ucm must not be loaded: it
# would pin rdma_cm.
. "$CM_TOP/tests/e2e/lib/common.sh"

[ $# = 5 ] || fail "usage: bench-guest.sh ROUNDS SEQ_N STORM_N IDLE_N DEVICES"
rounds=$1 seq_n=$2 storm_n=$3 idle_n=$4
IFS=, read -ra devices <<< "$5"
raw=$CM_OUT/bench.raw
run=/sys/kernel/debug/cm_bench/run
bench_ko=tests/bench/cm_bench.ko

[ -e "$bench_ko" ] || fail "$bench_ko is missing: run make first"
[ ! -e /sys/module/rdma_ucm ] || fail "rdma_ucm is loaded: it pins rdma_cm"

# Which rdma_cm is loaded: ours has a debugfs device listing.
cm_now() {
	if [ ! -e /sys/module/rdma_cm ]; then
		echo none
	elif [ -e "$CM_DEVICES" ]; then
		echo ours
	else
		echo inbox
	fi
}

cm_use() {
	local want=$1

	[ "$(cm_now)" != "$want" ] || return 0
	[ "$(cm_now)" = none ] || rmmod rdma_cm
	if [ "$want" = ours ]; then
		insmod "$CM_KO"
	else
		modprobe rdma_cm
	fi
	[ "$(cm_now)" = "$want" ] || fail "could not load the $want rdma_cm"
}

dev_addr() {
	case "$1" in
	rxe) echo "$CM_RXE_ADDR4" ;;
	siw) echo "$CM_SIW_ADDR4" ;;
	*) fail "unknown device '$1'" ;;
	esac
}

# measure ROUND CM DEVICE FILE COMMAND: one measurement, its report
# appended to the raw file.
measure() {
	local head="== $1 $2 $3 $5" report

	echo "$head" >&2
	echo "$5" > "$4" || fail "'$5' failed on $2 $3 (round $1)"
	report=$(< "$4")
	printf '%s\n%s\n' "$head" "$report" >> "$raw"
}

clocksource=
read -r clocksource < /sys/devices/system/clocksource/clocksource0/current_clocksource
{
	echo "# kernel $(uname -r), clocksource $clocksource, $(nproc) CPUs"
	echo "# rounds $rounds seq $seq_n storm $storm_n idle $idle_n devices $5"
} > "$raw"

# pair ROUND DEVICE COMMAND: the measurement on both CMs, one right
# after the other, ours first in odd rounds and last in even ones, so
# that a drift of the machine's speed hits both alike.
pair() {
	local order=(ours inbox) cm

	[ $(($1 % 2)) = 1 ] || order=(inbox ours)
	for cm in "${order[@]}"; do
		cm_use "$cm"
		insmod "$bench_ko" "addr=$(dev_addr "$2")"
		measure "$1" "$cm" "$2" "$run" "$3"
		# The floor, the IB CM alone, between the two sequential
		# runs; the rdma_cm loaded only resolves its route, untimed.
		if [ "$2" = rxe ] && [ "${3%% *}" = seq ] && [ "$cm" = "${order[0]}" ]; then
			measure "$1" floor "$2" "$run" "floor ${3#* }"
		fi
		rmmod cm_bench
	done
}

for ((r = 1; r <= rounds; r++)); do
	for dev in "${devices[@]}"; do
		pair "$r" "$dev" "seq $seq_n"
		pair "$r" "$dev" "storm $storm_n"
		if [ "$dev" = rxe ] && [ "$idle_n" -gt 0 ]; then
			pair "$r" "$dev" "idle $idle_n"
		fi
	done
done
cm_use ours
echo "== done" >> "$raw"
