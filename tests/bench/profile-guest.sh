#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the time of a storm goes: one storm of N connections over rxe
# with the IB CM's tracepoints (ib_cma), the rdma_cm's event delivery
# tracepoints and the workqueue's on, once on our rdma_cm and once on
# the in-box one; the traces go to $CM_OUT/trace-ours.txt and
# $CM_OUT/trace-inbox.txt, the reports to $CM_OUT/profile-*.txt.
# On the stock kernel (CM_STOCK=1), which has the function_graph tracer,
# two more storms per CM time the CM's entry points (graph_functions
# below): alone, into $CM_OUT/entry-ours.txt and entry-inbox.txt, and
# with what each calls, into graph-ours.txt and graph-inbox.txt, for
# tests/bench/graph-summary. The tracer's own cost is paid on every
# function it records, so an entry point's figure is fair between the
# CMs only alone: at depth 2 the CM that calls more functions pays more.
# Run by scripts/bench [--stock] --profile N.
. "$CM_TOP/tests/e2e/lib/common.sh"

n=${1:?usage: profile-guest.sh N}
tr=/sys/kernel/debug/tracing
run=/sys/kernel/debug/cm_bench/run
[ ! -e /sys/module/rdma_ucm ] || fail "rdma_ucm is loaded: it pins rdma_cm"

# Both CMs have these, under the same names: the API and the IB CM's
# callbacks.
graph_functions="rdma_create_id rdma_resolve_addr rdma_resolve_route
rdma_create_qp rdma_connect rdma_accept rdma_disconnect rdma_destroy_id
cma_ib_req_handler cma_ib_handler"

# graph_storm CM DEPTH FILE: one more storm, its entry points timed to
# DEPTH, the trace into $CM_OUT/FILE.
graph_storm() {
	echo 0 > "$tr/tracing_on"
	echo > "$tr/trace"
	echo 65536 > "$tr/buffer_size_kb"
	local f
	for f in $graph_functions; do
		# A static function the compiler inlined has no entry.
		echo "$f" >> "$tr/set_graph_function" 2> /dev/null ||
			echo "$1: $f is not traceable" >&2
	done
	echo "$2" > "$tr/max_graph_depth"
	echo 1 > "$tr/options/funcgraph-tail"
	echo function_graph > "$tr/current_tracer"
	echo 1 > "$tr/tracing_on"
	echo "storm $n" > "$run"
	echo 0 > "$tr/tracing_on"
	cat "$tr/trace" > "$CM_OUT/$3"
	echo nop > "$tr/current_tracer"
	echo > "$tr/set_graph_function"
	echo > "$tr/trace"
}

for cm in ours inbox; do
	if [ -e /sys/module/rdma_cm ]; then
		rmmod rdma_cm
	fi
	if [ "$cm" = ours ]; then insmod "$CM_KO"; else modprobe rdma_cm; fi
	insmod tests/bench/cm_bench.ko "addr=$CM_RXE_ADDR4"
	if [ "$CM_STOCK" = 1 ]; then
		graph_storm "$cm" 1 "entry-$cm.txt"
		graph_storm "$cm" 2 "graph-$cm.txt"
	fi
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
