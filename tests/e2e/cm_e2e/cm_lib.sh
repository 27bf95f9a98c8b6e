# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests/e2e/cm_*.sh scripts, which run inside the guest
# after tests/e2e/lib/common.sh: run cm_e2e.ko scenarios and keep score.
# shellcheck shell=bash

CM_E2E_KO=tests/e2e/cm_e2e/cm_e2e.ko
# shellcheck disable=SC2034 # used by the scripts that source this
CM_E2E_PORT=7471
cm_e2e_failed=()
cm_e2e_runs=0

[ -e "$CM_E2E_KO" ] ||
	fail "$CM_E2E_KO is missing: build it (make, or make -C KDIR M=\$PWD/tests/e2e/cm_e2e modules)"

# Our rdma_cm has a debugfs device listing; the kernel's does not.  The
# checks the in-box CM is known to fail run only against ours.
if [ -e "$CM_DEVICES" ]; then
	CM_E2E_STRICT=1
	echo "our rdma_cm: strict checks on"
else
	CM_E2E_STRICT=0
	echo "in-box rdma_cm: strict checks off"
fi

# The RDMA resources (restrack) the module made and did not destroy:
# ids, QPs, CQs, PDs, MRs whose owner is cm_e2e.
cm_e2e_leftovers() {
	printf 'resource show %s\n' cm_id qp cq pd mr |
		rdma -f -b - 2> /dev/null | grep -w cm_e2e || true
}

# The CM may still be destroying an id whose handler returned non-zero.
cm_e2e_nothing_left() {
	local tries=50
	while [ -n "$(cm_e2e_leftovers)" ]; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# cm_e2e SCENARIO [PARAM=VALUE...]: insmod cm_e2e.ko for one scenario,
# show its kernel messages, rmmod it.  The scenario passed when insmod
# succeeded; a failure is recorded and the script goes on.
cm_e2e() {
	local name=$1 mark rc=0
	shift
	cm_e2e_runs=$((cm_e2e_runs + 1))
	mark="cm_e2e-run-$$-$cm_e2e_runs"
	echo "== $name $*"
	echo "$mark: $name $*" > /dev/kmsg
	insmod "$CM_E2E_KO" "scenario=$name" "strict=$CM_E2E_STRICT" "$@" ||
		rc=$?
	dmesg | sed -n "/$mark/,\$p" | grep -E 'cm_e2e|FAIL|WARNING|BUG' |
		grep -v "$mark" || true
	if grep -q '^cm_e2e ' /proc/modules; then
		rmmod cm_e2e || rc=1
	fi
	if ! cm_e2e_nothing_left; then
		echo "FAIL: $name left these behind:" >&2
		cm_e2e_leftovers >&2
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok: $name $*"
	else
		echo "FAIL: $name $* (insmod exit $rc)" >&2
		cm_e2e_failed+=("$name $*")
	fi
}

# cm_e2e_done: the script's verdict.
cm_e2e_done() {
	if [ ${#cm_e2e_failed[@]} -gt 0 ]; then
		printf 'failed: %s\n' "${cm_e2e_failed[@]}" >&2
		fail "${#cm_e2e_failed[@]} of $cm_e2e_runs scenario runs failed"
	fi
	echo "all $cm_e2e_runs scenario runs passed"
}
