# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end scripts, which run inside the guest.  Every
# program started costs up to half a second there (TCG, KASAN, lockdep):
# these use builtins where they can.
# shellcheck shell=bash

set -euo pipefail
cd "$CM_TOP"

CM_KO=drivers/infiniband/core/rdma_cm.ko
CM_DEVICES=/sys/kernel/debug/rdma_cm/devices

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# nap SECONDS: sleep without starting sleep(1): wait on a pipe nobody
# writes to (the guest has no /dev/fd, so no process substitution).
coproc CM_NAP { read -r _; }
nap() {
	read -rt "$1" -u "${CM_NAP[0]}" _ || true
}

# wait_for DESCRIPTION COMMAND...: retry COMMAND for up to 10 s.
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 100; i++)); do
		"$@" && return 0
		nap 0.1
	done
	fail "timed out waiting for $what"
}

# The CM's device listing has exactly the lines given, in any order.
devices_are() {
	local -a have=()
	local want got found

	[ -r "$CM_DEVICES" ] || return 1
	mapfile -t have < "$CM_DEVICES"
	[ "${#have[@]}" = $# ] || return 1
	for want in "$@"; do
		found=0
		for got in "${have[@]}"; do
			[ "$got" != "$want" ] || found=1
		done
		[ "$found" = 1 ] || return 1
	done
}

expect_devices() {
	wait_for "devices: $*" devices_are "$@"
	echo "ok: devices are: $*"
}

# port_active DEVICE: port 1 of the RDMA device is ACTIVE.
port_active() {
	local state=

	[ -r "/sys/class/infiniband/$1/ports/1/state" ] || return 1
	read -r state < "/sys/class/infiniband/$1/ports/1/state"
	[[ $state == *ACTIVE ]]
}

# start_ready OUT COMMAND...: start COMMAND in the background, its output
# in OUT, and wait up to 60 s for its "ready" line (setting up hundreds
# of ids takes a while in a loaded guest); its pid is in $ready_pid.
start_ready() {
	local out=$1 i line
	shift
	"$@" > "$out" 2>&1 &
	ready_pid=$!
	for ((i = 0; i < 600; i++)); do
		while IFS= read -r line; do
			[[ $line != ready* ]] || return 0
		done < "$out"
		kill -0 "$ready_pid" 2> /dev/null || break
		nap 0.1
	done
	kill "$ready_pid" 2> /dev/null || true
	end_ready "$out"
	fail "$1 never got ready"
}

# end_ready OUT: wait for the command start_ready started, show its
# output; it must exit 0.
end_ready() {
	local rc=0 line
	wait "$ready_pid" || rc=$?
	while IFS= read -r line; do echo "  $line"; done < "$1"
	[ "$rc" = 0 ] || fail "${1##*/}: exit $rc"
}

# remove_rxe0 WHY: delete rxe0, which must unregister within 60 s.
remove_rxe0() {
	timeout 60 rdma link delete rxe0 || fail "rxe0 did not unregister $1"
}

# restore_rxe0: rxe0 back on veth0, for the scripts after this one.
restore_rxe0() {
	rdma link add rxe0 type rxe netdev veth0
	wait_for "rxe0 port ACTIVE" port_active rxe0
}

# A second RoCE device: rxe1 on veth2 (of a new pair with veth3).
RXE1_ADDR4=10.0.1.1
RXE1_ADDR6=fd00:1::1

add_rxe1() {
	ip -batch - <<-EOF
		link add veth2 type veth peer name veth3
		addr add $RXE1_ADDR4/24 dev veth2
		addr add $RXE1_ADDR6/64 dev veth2 nodad
		link set veth2 up
		link set veth3 up
	EOF
	rdma link add rxe1 type rxe netdev veth2
	wait_for "rxe1 port ACTIVE" port_active rxe1
}

del_rxe1() {
	rdma link delete rxe1 2> /dev/null || true
	ip link delete veth2 2> /dev/null || true
}

