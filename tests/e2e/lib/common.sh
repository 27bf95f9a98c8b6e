# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end scripts, which run inside the guest.
# shellcheck shell=bash

set -euo pipefail
cd "$CM_TOP"

CM_KO=drivers/infiniband/core/rdma_cm.ko
CM_DEVICES=/sys/kernel/debug/rdma_cm/devices

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# wait_for DESCRIPTION COMMAND...: retry COMMAND for up to 10 s.
wait_for() {
	local what=$1 i
	shift
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	fail "timed out waiting for $what"
}

# The CM's device listing has exactly the lines given, in any order.
devices_are() {
	[ "$(sort "$CM_DEVICES" 2>/dev/null)" = "$(printf '%s\n' "$@" | sort)" ]
}

expect_devices() {
	wait_for "devices: $*" devices_are "$@"
	echo "ok: devices are: $*"
}
