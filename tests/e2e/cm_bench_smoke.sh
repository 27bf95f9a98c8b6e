#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A short run of the benchmark module (tests/bench/cm_bench.ko), not a
# measurement: a few connections of each kind, over RoCE (rxe0) and
# iWARP (siw0), each report checked for every step of every connection,
# then nothing of the module may be left.  scripts/bench is the real run.
. "$CM_TOP/tests/e2e/lib/common.sh"

BENCH_KO=tests/bench/cm_bench.ko
BENCH_RUN=/sys/kernel/debug/cm_bench/run
[ -e "$BENCH_KO" ] || fail "$BENCH_KO is missing: run make first"

declare -A rep

# bench COMMAND: run one measurement, its report into rep[KEY]; a step
# line "step NAME COUNT ..." becomes rep[step:NAME]=COUNT.
bench() {
	local key value count rest

	echo "$1" > "$BENCH_RUN" || fail "'$1' failed"
	rep=()
	while read -r key value count rest; do
		if [ "$key" = step ]; then
			rep[step:$value]=$count
		else
			rep[$key]=$value
		fi
	done < "$BENCH_RUN"
}

# expect_steps N STEP...: each step done by N connections.
expect_steps() {
	local n=$1 s

	shift
	for s in "$@"; do
		[ "${rep[step:$s]:-}" = "$n" ] ||
			fail "step $s: ${rep[step:$s]:-none} connections, expected $n"
	done
}

# expect_positive KEY...: each a number above 0.
expect_positive() {
	local k

	for k in "$@"; do
		if ! [[ ${rep[$k]:-} =~ ^[0-9]+$ ]] || [ "${rep[$k]}" = 0 ]; then
			fail "$k is '${rep[$k]:-}', expected a positive number"
		fi
	done
}

all_steps=(create_id resolve_addr resolve_route create_qp connect
	established data disconnect destroy)

for dev in rxe siw; do
	if [ "$dev" = rxe ]; then addr=$CM_RXE_ADDR4; else addr=$CM_SIW_ADDR4; fi
	insmod "$BENCH_KO" "addr=$addr" timeout=20
	bench "seq 3"
	expect_steps 3 "${all_steps[@]}"
	expect_positive total_us
	echo "ok: $dev: 3 sequential connections (${rep[total_us]} us)"
	bench "storm 6"
	expect_steps 6 "${all_steps[@]}"
	# The slab figure is machine-wide: with 6 connections, noise only.
	expect_positive setup_us accept_us teardown_us
	[[ ${rep[established_slab_bytes_per_conn]:-} =~ ^-?[0-9]+$ ]] ||
		fail "no slab figure in the storm's report"
	echo "ok: $dev: a storm of 6 (setup ${rep[setup_us]} us, teardown ${rep[teardown_us]} us)"
	if [ "$dev" = rxe ]; then
		bench "floor 3"
		expect_steps 3 create_id create_qp connect established data \
			disconnect destroy
		expect_steps 0 resolve_addr resolve_route
		echo "ok: $dev: 3 connections on the IB CM alone (${rep[total_us]} us)"
		bench "idle 200"
		expect_positive idle_req_bytes_per_id
		echo "ok: 200 idle ids, ${rep[idle_req_bytes_per_id]} bytes each requested"
	else
		# iWARP has no IB CM: the floor refuses, and says so.
		! echo "floor 3" 2> /dev/null > "$BENCH_RUN" ||
			fail "floor over iWARP did not fail"
		echo "ok: $dev: no floor over iWARP"
	fi
	rmmod cm_bench
done
restrack_none_of cm_bench ||
	fail "cm_bench left resources behind: $(printf '\n  %s' "${restrack_left[@]}")"
echo "ok: nothing of cm_bench left"
