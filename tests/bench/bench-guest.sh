#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of scripts/bench: run the same measurements against
# our rdma_cm and the in-box one in turns (ours, in-box, ours, in-box
# ...), in one boot, and write every report to $CM_OUT/bench.raw, each
# after a line "== ROUND CM DEVICE WHAT".  scripts/bench reads it.
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

for ((r = 1; r <= rounds; r++)); do
	for cm in ours inbox; do
		cm_use "$cm"
		for dev in "${devices[@]}"; do
			insmod "$bench_ko" "addr=$(dev_addr "$dev")"
			measure "$r" "$cm" "$dev" "$run" "seq $seq_n"
			measure "$r" "$cm" "$dev" "$run" "storm $storm_n"
			if [ "$dev" = rxe ] && [ "$idle_n" -gt 0 ]; then
				measure "$r" "$cm" "$dev" "$run" "idle $idle_n"
			fi
			# The floor, the IB CM alone, in every turn: the
			# rdma_cm loaded only resolves its route, untimed.
			if [ "$dev" = rxe ]; then
				measure "$r" floor "$dev" "$run" "floor $seq_n"
			fi
			rmmod cm_bench
		done
	done
done
cm_use ours
echo "== done" >> "$raw"
