#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the time of a storm goes: one storm of N connections over rxe
# with the IB CM's tracepoints (ib_cma), the rdma_cm's event delivery
# tracepoints and the workqueue's on, once on our rdma_cm and once on
# the in-box one; the traces go to $CM_OUT/trace-ours.txt and
# $CM_OUT/trace-inbox.txt, the reports to $CM_OUT/profile-*.txt.
# Run by scripts/bench --profile N.
. "$CM_TOP/tests/e2e/lib/common.sh"

n=${1:?usage: profile-guest.sh N}
tr=/sys/kernel/debug/tracing
run=/sys/kernel/debug/cm_bench/run
[ ! -e /sys/module/rdma_ucm ] || fail "rdma_ucm is loaded: it pins rdma_cm"

for cm in ours inbox; do
	if [ -e /sys/module/rdma_cm ]; then
		rmmod rdma_cm
	fi
	if [ "$cm" = ours ]; then insmod "$CM_KO"; else modprobe rdma_cm; fi
	insmod tests/bench/cm_bench.ko "addr=$CM_RXE_ADDR4"
	echo 0 > "$tr/tracing_on"
	echo > "$tr/trace"
	echo 16384 > "$tr/buffer_size_kb"
	echo 1 > "$tr/events/ib_cma/enable"
	for sys in rdma_cm rdma_cma; do
		for ev in cm_event_handler cm_event_done; do
			if [ -e "$tr/events/$sys/$ev/enable" ]; then
				echo 1 > "$tr/events/$sys/$ev/enable"
			fi
		done
	done
	echo 1 > "$tr/events/workqueue/workqueue_execute_start/enable"
	echo 1 > "$tr/events/workqueue/workqueue_execute_end/enable"
	echo 1 > "$tr/tracing_on"
	echo "storm $n" > "$run"
	echo 0 > "$tr/tracing_on"
	cat "$run" > "$CM_OUT/profile-$cm.txt"
	cat "$tr/trace" > "$CM_OUT/trace-$cm.txt"
	echo 0 > "$tr/events/enable"
	echo > "$tr/trace"
	rmmod cm_bench
done
rmmod rdma_cm
insmod "$CM_KO"
