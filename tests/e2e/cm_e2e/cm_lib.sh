# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests/e2e/cm_*.sh scripts, which run inside the guest
# after tests/e2e/lib/common.sh: run batches of cm_e2e.ko scenarios and
# keep score.
# shellcheck shell=bash

CM_E2E_KO=tests/e2e/cm_e2e/cm_e2e.ko
CM_E2E_PARAMS=/sys/module/cm_e2e/parameters
# shellcheck disable=SC2034 # used by the scripts that source this
CM_E2E_PORT=7471
cm_e2e_failed=()
cm_e2e_verdicts=()
cm_e2e_runs=0
cm_e2e_batches=0
cm_e2e_pid=
cm_e2e_args=
cm_e2e_mark=

[ -e "$CM_E2E_KO" ] ||
	fail "$CM_E2E_KO is missing: build it (make, or make -C KDIR M=\$PWD/tests/e2e/cm_e2e modules)"

# The checks the in-box CM is known to fail run only against ours, which
# must then have its debugfs device listing.
if cm_is_ours; then
	[ -r "$CM_DEVICES" ] || fail "our rdma_cm has no $CM_DEVICES"
	CM_E2E_STRICT=1
	echo "our rdma_cm: strict checks on"
else
	CM_E2E_STRICT=0
	echo "in-box rdma_cm: strict checks off"
fi

# The CM may still be destroying an id whose handler returned non-zero.
cm_e2e_nothing_left() {
	local tries=50

	while ! restrack_none_of cm_e2e; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		nap 0.1
	done
}

# stress_workers: the kernel stress's per-worker lines, which show that
# it ran; there must be some.
stress_workers() {
	local line n=0

	while IFS= read -r line; do
		[[ $line == *"stress worker "[0-9]:* ]] || continue
		echo "${line#*cm_e2e: }"
		n=$((n + 1))
	done <<< "$(dmesg)"
	[ "$n" -gt 0 ] || fail "no stress worker reported"
}

# cm_e2e_wait_state STATE: wait up to 60 s for the batch started with
# cm_e2e_start to say STATE; false if it did not (it ended, or time ran
# out).
cm_e2e_wait_state() {
	local i state

	for ((i = 0; i < 600; i++)); do
		# The parameters appear once insmod has the module in memory.
		if [ -r "$CM_E2E_PARAMS/state" ]; then
			read -r state < "$CM_E2E_PARAMS/state"
			[ "$state" != "$1" ] || return 0
		fi
		kill -0 "$cm_e2e_pid" 2> /dev/null || return 1
		nap 0.1
	done
	return 1
}

# The module's kernel messages since MARK: what a failed batch said.
cm_e2e_messages() {
	local mark=$1 log line seen=0

	log=$(dmesg)
	while IFS= read -r line; do
		if [ "$seen" = 0 ]; then
			[[ $line != *"$mark"* ]] || seen=1
			continue
		fi
		[[ ! $line =~ cm_e2e|FAIL|WARNING|BUG ]] || printf '%s\n' "$line"
	done <<< "$log"
}

# cm_e2e_start SCENARIOS [PARAM=VALUE...]: start one insmod of cm_e2e.ko
# in the background, to run a batch: SCENARIOS is a comma-separated list
# of NAME (once per parameter set: the n-th addr, addr2 and laddr) or
# NAME@N (set N only).  While it runs, $CM_E2E_PARAMS/state says how far
# it got.
cm_e2e_start() {
	cm_e2e_args="$*"
	cm_e2e_batches=$((cm_e2e_batches + 1))
	cm_e2e_mark="cm_e2e-batch-$$-$cm_e2e_batches"
	echo "== $cm_e2e_args"
	echo "$cm_e2e_mark: $cm_e2e_args" > /dev/kmsg
	insmod "$CM_E2E_KO" "scenario=$1" "strict=$CM_E2E_STRICT" "${@:2}" &
	cm_e2e_pid=$!
}

# cm_e2e_finish: wait for the batch; print each run's verdict, and the
# kernel messages if one failed; then rmmod, and nothing the module made
# may be left.  A failure is recorded and the script goes on.
cm_e2e_finish() {
	local rc=0 line verdict name addr ms failed=0
	local -a results=()

	wait "$cm_e2e_pid" || rc=$?
	if [ "$rc" = 0 ]; then
		mapfile -t results < "$CM_E2E_PARAMS/results"
		if ! rmmod cm_e2e; then
			echo "FAIL: rmmod cm_e2e" >&2
			cm_e2e_failed+=("rmmod after $cm_e2e_args")
		fi
	else
		# Init failed, the module is gone: its messages tell.
		echo "-- kernel messages of the batch:"
		while IFS= read -r line; do
			echo "    $line"
			if [[ $line =~ scenario\ ([a-z_]+)\ ([^ ]+):\ (PASS|FAIL) ]]
			then
				results+=("${BASH_REMATCH[3]} ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ?")
			fi
		done <<< "$(cm_e2e_messages "$cm_e2e_mark")"
	fi
	for line in "${results[@]}"; do
		read -r verdict name addr ms <<< "$line"
		cm_e2e_runs=$((cm_e2e_runs + 1))
		cm_e2e_verdicts+=("$line")
		if [ "$verdict" = PASS ]; then
			echo "ok: $name $addr ($ms ms)"
		else
			echo "FAIL: $name $addr" >&2
			cm_e2e_failed+=("$name $addr")
			failed=1
		fi
	done
	if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
		echo "FAIL: $cm_e2e_args (insmod exit $rc)" >&2
		cm_e2e_failed+=("$cm_e2e_args")
	fi
	if ! cm_e2e_nothing_left; then
		echo "FAIL: $cm_e2e_args left these behind:" >&2
		printf '  %s\n' "${restrack_left[@]}" >&2
		cm_e2e_failed+=("$cm_e2e_args: leftovers")
	fi
}

# cm_e2e SCENARIOS [PARAM=VALUE...]: cm_e2e_start, then cm_e2e_finish.
cm_e2e() {
	cm_e2e_start "$@"
	cm_e2e_finish
}

# cm_e2e_done: the script's verdict.
cm_e2e_done() {
	if [ ${#cm_e2e_failed[@]} -gt 0 ]; then
		printf 'failed: %s\n' "${cm_e2e_failed[@]}" >&2
		fail "${#cm_e2e_failed[@]} failures in $cm_e2e_runs scenario runs"
	fi
	echo "all $cm_e2e_runs scenario runs passed"
}
