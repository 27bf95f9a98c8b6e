# SPDX-License-Identifier: GPL-2.0
# Helpers for driving xrping (net/xrdma/tool) through configfs, for
# scripts/xrdma and tests/e2e/xrdma.sh.  Builtins only where it can:
# every program started costs up to half a second in the guest.
# shellcheck shell=bash

XRDMA_KO=net/xrdma/xrdma.ko
XRPING_KO=net/xrdma/tool/xrping.ko
XRPING_CFS=/sys/kernel/config/xrping
xrdma_loaded_here=0
# shellcheck disable=SC2034 # xrdma_r is for the scripts that source this
declare -A xrdma_pids=() xrdma_r=()
xrdma_results=()

# xrdma_load: insmod both modules unless they are loaded already.
xrdma_load() {
	if [ ! -d /sys/module/xrdma ]; then
		insmod "$XRDMA_KO" || return 1
		xrdma_loaded_here=1
	fi
	if [ ! -d /sys/module/xrping ]; then
		insmod "$XRPING_KO" || return 1
		xrdma_loaded_here=1
	fi
}

# xrdma_unload: rmmod what xrdma_load loaded.
xrdma_unload() {
	[ "$xrdma_loaded_here" = 1 ] || return 0
	rmmod xrping && rmmod xrdma
}

# xrdma_put FILE VALUE: write one attribute; the kernel's error shows.
xrdma_put() {
	echo "$2" > "$1"
}

# xrdma_server_start NAME ADDR PORT [ATTR=VALUE...]
xrdma_server_start() {
	local dir="$XRPING_CFS/servers/$1" kv

	mkdir "$dir" || return 1
	xrdma_put "$dir/addr" "$2" || return 1
	xrdma_put "$dir/port" "$3" || return 1
	for kv in "${@:4}"; do
		xrdma_put "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
	xrdma_put "$dir/enable" 1
}

# xrdma_server_stop NAME
xrdma_server_stop() {
	local dir="$XRPING_CFS/servers/$1"

	[ -d "$dir" ] || return 0
	xrdma_put "$dir/enable" 0
	rmdir "$dir"
}

# A test object keeps its attributes between runs: every run sets them
# all, from these defaults and its own ATTR=VALUE words.
XRDMA_TEST_DEFAULTS=(size=64 count=1000 conns=1 window=1 chain=1 depth=16
	inline_size=4096 timeout_ms=5000 reconnect_ms=0 op=send mode=pingpong)

# xrdma_test_setup NAME ADDR PORT [ATTR=VALUE...]: make the test object
# (once; mkdir costs a process) and set its attributes.
xrdma_test_setup() {
	local dir="$XRPING_CFS/tests/$1" kv

	[ -d "$dir" ] || mkdir "$dir" || return 1
	xrdma_put "$dir/addr" "$2" || return 1
	xrdma_put "$dir/port" "$3" || return 1
	for kv in "${XRDMA_TEST_DEFAULTS[@]}" "${@:4}"; do
		xrdma_put "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
}

# xrdma_test_read NAME: the results into the array xrdma_results (lines
# "key value") and the assoc array xrdma_r.
xrdma_test_read() {
	local dir="$XRPING_CFS/tests/$1" line

	xrdma_results=()
	[ ! -r "$dir/results" ] || mapfile -t xrdma_results < "$dir/results"
	xrdma_r=()
	for line in "${xrdma_results[@]}"; do
		# shellcheck disable=SC2034 # read by the callers
		xrdma_r[${line%% *}]=${line#* }
	done
}

# xrdma_forget: no results in hand, so that a run that never started
# cannot be judged by the previous one's.
xrdma_forget() {
	xrdma_results=()
	xrdma_r=()
}

# xrdma_test_start NAME ADDR PORT [ATTR=VALUE...]: set up and start a
# run in the background.
xrdma_test_start() {
	xrdma_forget
	xrdma_pids[$1]=
	xrdma_test_setup "$@" || return 1
	xrdma_put "$XRPING_CFS/tests/$1/run" 1 &
	xrdma_pids[$1]=$!
}

# xrdma_test_finish NAME: wait for the run started in the background
# and read its results.  Fails if the run did.
xrdma_test_finish() {
	local rc=0

	if [ -n "${xrdma_pids[$1]:-}" ]; then
		wait "${xrdma_pids[$1]}" || rc=1
	else
		rc=1
	fi
	xrdma_test_read "$1"
	return "$rc"
}

# xrdma_test NAME ADDR PORT [ATTR=VALUE...]: one run, in the foreground.
xrdma_test() {
	local rc=0

	xrdma_forget
	xrdma_test_setup "$@" || rc=1
	if [ "$rc" = 0 ]; then
		xrdma_put "$XRPING_CFS/tests/$1/run" 1 || rc=1
	fi
	xrdma_test_read "$1"
	return "$rc"
}

# xrdma_test_remove NAME...: remove test objects.
xrdma_test_remove() {
	local name

	for name in "$@"; do
		[ ! -d "$XRPING_CFS/tests/$name" ] ||
			rmdir "$XRPING_CFS/tests/$name" || return 1
	done
}

# xrdma_server_stat NAME KEY: one figure of a server's stats.
xrdma_server_stat() {
	local line

	while IFS= read -r line; do
		if [ "${line%% *}" = "$2" ]; then
			echo "${line#* }"
			return 0
		fi
	done < "$XRPING_CFS/servers/$1/stats"
	return 1
}

# xrdma_nothing_left: no RDMA resource (restrack) belongs to xrdma
# (tests/e2e/lib/common.sh's restrack_none_of; scripts only).
xrdma_nothing_left() {
	restrack_none_of xrdma && return 0
	printf 'left: %s\n' "${restrack_left[@]}" >&2
	return 1
}

# xrdma_cleanup TEST...: remove the test objects and every server, wait
# until no RDMA resource of the module's is left (an endpoint may wait a
# moment for its DISCONNECTED), and unload: rmmod finds no endpoint left.
# Fails if a test or server would not go; a resource left or a failed
# unload ends the script.
xrdma_cleanup() {
	local rc=0 dir

	xrdma_test_remove "$@" || rc=1
	for dir in "$XRPING_CFS"/servers/*; do
		[ ! -d "$dir" ] || xrdma_server_stop "${dir##*/}" || rc=1
	done
	wait_for "no xrdma resources left" xrdma_nothing_left
	xrdma_unload || fail "cannot unload xrping and xrdma"
	return "$rc"
}
