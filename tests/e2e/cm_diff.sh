#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's run of the differential harness (tests/diff, whose
# guest script this runs): the scenarios tests/diff/ci.txt names, over
# rxe and siw, IPv4 and IPv6, and 10,000 steps of the fuzzer's seed, on
# the in-box rdma_cm and then on ours, in this boot. It passes only on
# compare's last line "N scenarios, 0 unexplained differences", with N at
# least 150, and every section of the fuzzer's steps compared.
# make diff runs every scenario. CM_DIFF_FUZZ_OPS (a multiple of 250)
# changes the fuzzer's steps.
. "$CM_TOP/tests/e2e/lib/common.sh"

ops=${CM_DIFF_FUZZ_OPS:-10000}
min_scenarios=150
log=$CM_OUT/diff.log
start=$SECONDS

rc=0
CM_DIFF_LIST=tests/diff/ci.txt CM_DIFF_FUZZ_OPS=$ops tests/diff/guest \
	> "$log" 2>&1 || rc=$?
mapfile -t lines < "$log"
printf '%s\n' "${lines[@]}"
echo "the harness took $((SECONDS - start)) s"
[ "$rc" = 0 ] || fail "tests/diff/guest: exit $rc"

# compare's verdict and its count of the fuzzer's sections, each once.
verdict=()
sections=()
for line in "${lines[@]}"; do
	[[ $line =~ ^([0-9]+)\ scenarios,\ ([0-9]+)\ unexplained\ differences$ ]] &&
		verdict+=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
	[[ $line =~ ^([0-9]+)\ fuzzer\ sections\ compared$ ]] &&
		sections+=("${BASH_REMATCH[1]}")
done
[ "${#verdict[@]}" = 2 ] || fail "no single verdict from tests/diff/compare"
[ "${verdict[1]}" = 0 ] || fail "${verdict[1]} unexplained differences"
[ "${verdict[0]}" -ge "$min_scenarios" ] ||
	fail "${verdict[0]} scenarios compared, fewer than $min_scenarios"
[ "$ops" = 0 ] || [ "${sections[*]}" = "$((ops / 250))" ] ||
	fail "${sections[*]:-no} fuzzer sections compared, not $((ops / 250))"
echo "ok: ${verdict[0]} scenarios and $ops fuzzer steps alike"
