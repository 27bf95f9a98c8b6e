#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The differential harness (tests/diff): the same scenarios, and the
# fuzzer's same seed, through rdma_ucm on the in-box rdma_cm and then on
# ours, in this one boot; tests/diff/compare fails on any difference
# tests/diff/accepted.txt does not explain. The records are kept in
# $CM_OUT/diff/. The guest is left as it was found: ours loaded, rdma_ucm
# not. CM_DIFF_ONLY=PREFIX runs only the scenarios whose names start so;
# CM_DIFF_FUZZ_OPS sets the fuzzer's steps (default 10000, 0: none).
. "$CM_TOP/tests/e2e/lib/common.sh"

runner=tests/diff/cm_diff
fuzz=tests/fuzz/ucma_fuzz
out=$CM_OUT/diff
fuzz_ops=${CM_DIFF_FUZZ_OPS:-10000}
[ -x "$runner" ] || fail "$runner not built: make -C tests/diff"
[ -x "$fuzz" ] || fail "$fuzz not built: make -C tests/fuzz"
[ ! -e /sys/module/rdma_ucm ] || rmmod rdma_ucm ||
	fail "rdma_ucm is in use"
mkdir -p "$out"

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

# use_cm inbox|ours: that rdma_cm under rdma_ucm.
use_cm() {
	[ ! -e /sys/module/rdma_ucm ] || rmmod rdma_ucm ||
		fail "rdma_ucm is in use"
	[ "$(cm_now)" = none ] || rmmod rdma_cm || fail "rdma_cm is in use"
	if [ "$1" = ours ]; then
		insmod "$CM_KO" || fail "our rdma_cm does not load"
	else
		modprobe rdma_cm || fail "the in-box rdma_cm does not load"
	fi
	[ "$(cm_now)" = "$1" ] || fail "could not load the $1 rdma_cm"
	modprobe rdma_ucm || fail "rdma_ucm does not load on the $1 rdma_cm"
}

# record CM: run the scenarios and the fuzzer on CM into $out/CM.txt.
record() {
	local -a only=()

	[ -z "${CM_DIFF_ONLY:-}" ] || only=(--only "$CM_DIFF_ONLY")
	use_cm "$1"
	echo "== $1: scenarios"
	"$runner" "${only[@]}" "$CM_RXE_ADDR4" "$CM_RXE_ADDR6" \
		"$CM_SIW_ADDR4" "$CM_SIW_ADDR6" > "$out/$1.txt" ||
		fail "$runner on the $1 rdma_cm: exit $?"
	if [ "$fuzz_ops" != 0 ]; then
		echo "== $1: fuzzer, $fuzz_ops steps"
		timeout 1200 "$fuzz" --diff --seed 7 --ops "$fuzz_ops" \
			>> "$out/$1.txt" ||
			fail "$fuzz --diff on the $1 rdma_cm: exit $?"
	fi
	rmmod rdma_ucm || fail "rdma_ucm still in use after the $1 run"
}

record inbox
record ours
# Ours again, as found; it must let go cleanly of what the run left.
expect_no_ids "the differential harness"

tests/diff/compare "$out/inbox.txt" "$out/ours.txt" ||
	fail "the in-box rdma_cm and ours differ (records in $out)"
echo "ok: no unexplained difference"
