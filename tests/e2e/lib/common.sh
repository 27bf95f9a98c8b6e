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
