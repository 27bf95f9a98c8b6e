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

# xrdma_test_start NAME ADDR PORT [ATTR=VALUE...]: make the test object
# and start its run in the background.
xrdma_test_start() {
	local dir="$XRPING_CFS/tests/$1" kv

	xrdma_pids[$1]=
	mkdir "$dir" || return 1
	xrdma_put "$dir/addr" "$2" || return 1
	xrdma_put "$dir/port" "$3" || return 1
	for kv in "${@:4}"; do
		xrdma_put "$dir/${kv%%=*}" "${kv#*=}" || return 1
	done
	xrdma_put "$dir/run" 1 &
	xrdma_pids[$1]=$!
}

# xrdma_test_finish NAME: wait for the run, leave its results in the
# array xrdma_results (lines "key value") and the assoc array xrdma_r,
# and remove the object.  Fails if the run did.
xrdma_test_finish() {
	local dir="$XRPING_CFS/tests/$1" rc=0 line

	if [ -n "${xrdma_pids[$1]:-}" ]; then
		wait "${xrdma_pids[$1]}" || rc=1
	else
		rc=1
	fi
	xrdma_results=()
	[ ! -r "$dir/results" ] || mapfile -t xrdma_results < "$dir/results"
	xrdma_r=()
	for line in "${xrdma_results[@]}"; do
		# shellcheck disable=SC2034 # read by the callers
		xrdma_r[${line%% *}]=${line#* }
	done
	[ ! -d "$dir" ] || rmdir "$dir" || rc=1
	return "$rc"
}

# xrdma_test NAME ADDR PORT [ATTR=VALUE...]: start and finish one run.
xrdma_test() {
	xrdma_test_start "$@" || true
	xrdma_test_finish "$1"
}

# xrdma_nothing_left: no RDMA resource (restrack) belongs to xrdma.
xrdma_nothing_left() {
	local out line show

	show=$'resource show cm_id\nresource show qp\nresource show cq'
	show+=$'\nresource show pd'
	out=$(rdma -f -b - 2> /dev/null <<< "$show") || true
	while IFS= read -r line; do
		if [[ $line == *xrdma* ]]; then
			echo "left: $line" >&2
			return 1
		fi
	done <<< "$out"
}
