#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Random failures in every call our CM makes out (IB CM, iw_cm, verbs,
# address resolution) and every allocation on its connection paths,
# asynchronous ones included (drivers/infiniband/core/cma_fault.c):
# cm_e2e's kernel stress and tests/ucma/cm_stress run over rxe and siw
# while calls fail at random. Their cycles may fail; what must hold is
# what the harness and this script check: no splat, no hang, no leak,
# no id left behind, and, faults off again, connections that work.
# CM_FAULT_PROBABILITY (percent, default 3) and CM_FAULT_CYCLES (per
# CPU and device, default 100) tune it.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

knobs=/sys/kernel/debug/rdma_cm/fail_calls
if ! cm_is_ours; then
	skip "the in-box CM has no fault injection of its own"
fi
[ -d "$knobs" ] || fail "our CM has no $knobs"

faults_on() {
	echo 0 > "$knobs/verbose"
	echo 1 > "$knobs/interval"
	echo -1 > "$knobs/times"
	echo "${CM_FAULT_PROBABILITY:-3}" > "$knobs/probability"
}

faults_off() {
	echo 0 > "$knobs/probability"
}
# A failure must not leave the CM failing calls for the scripts after.
trap faults_off EXIT

faults_on
cm_e2e stress "addr=$CM_RXE_ADDR4,$CM_SIW_ADDR4" "port=$CM_E2E_PORT" \
	"count=${CM_FAULT_CYCLES:-100}" seed=3 keep_going=1 timeout_ms=3000
stress_workers

# Through rdma_ucm too.  cm_stress's cycles may fail here (exit 1), and
# its set-up may (exit 2: its listen failed), so it gets three starts,
# of which at least one must get past the set-up; a hang (124), ids
# created and destroyed in different numbers (3) or a crash fail.
modprobe rdma_ucm
for a in "$CM_RXE_ADDR4" "$CM_SIW_ADDR4"; do
	ran=0
	for try in 1 2 3; do
		rc=0
		timeout 300 tests/ucma/cm_stress "$a" 7499 2 50 "$try" || rc=$?
		echo "cm_stress over $a under faults, start $try: exit $rc"
		case $rc in
		0 | 1) ran=$((ran + 1)) ;;
		2) ;;
		124) fail "cm_stress over $a hung under faults" ;;
		*) fail "cm_stress over $a under faults: exit $rc" ;;
		esac
	done
	[ "$ran" -gt 0 ] || fail "cm_stress over $a never got past its set-up"
done
rmmod rdma_ucm
faults_off
echo "injected failures: $(< "$knobs/injected")"
[ "$(< "$knobs/injected")" -gt 0 ] || fail "no failure was injected"

# Every id created under faults was destroyed.
expect_no_ids "the faults"

# Faults off, the CM works as before.
cm_e2e connect "addr=$CM_RXE_ADDR4,$CM_SIW_ADDR4" "port=$CM_E2E_PORT"
cm_e2e_done
