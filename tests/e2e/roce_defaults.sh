#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-port defaults in configfs, as in-box: a device's directory is
# made by mkdir, its ports' default_roce_mode and default_roce_tos read
# and written, bad input refused. Then connections (cm_e2e's scenario
# hold) must use them: the path record carries the default tos and the
# mode's GID type, and the listing of ids shows the tos. rxe speaks
# RoCEv2 only, so RoCEv1 is refused there (as in-box); the choice of the
# GID by mode is checked in KUnit (rdma_cm_defaults) on fake ports.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

CFS=/sys/kernel/config/rdma_cm
RXE=$CFS/rxe0/ports/1
SIW=$CFS/siw0/ports/1

[ -d "$CFS" ] || fail "$CFS is missing"

# Whatever happens, leave the defaults and configfs as they were: the
# scripts after this one connect over rxe0, and rdma_cm must unload.
cleanup() {
	if [ -d "$RXE" ]; then
		echo 0 > "$RXE/default_roce_tos" || true
	fi
	rmdir "$CFS/rxe0" "$CFS/siw0" 2> /dev/null || true
}
trap cleanup EXIT

# expect_read FILE VALUE
expect_read() {
	local got=

	read -r got < "$1" || fail "cannot read $1"
	[ "$got" = "$2" ] || fail "$1 reads '$got', not '$2'"
	echo "ok: $1 = $2"
}

# expect_write_fails FILE VALUE ERROR: the write is refused with ERROR
# (as bash words it: "Invalid argument", "Numerical result out of range").
expect_write_fails() {
	local msg

	if msg=$( { printf '%s' "$2" > "$1"; } 2>&1 ); then
		fail "writing '$2' to $1 worked"
	fi
	[[ $msg == *"$3"* ]] || fail "writing '$2' to $1: '$msg', not '$3'"
	echo "ok: '$2' > $1 refused: $3"
}

# Directories exist only for the CM's devices, and only once made.
[ ! -e "$CFS/rxe0" ] || fail "$CFS/rxe0 exists before mkdir"
mkdir "$CFS/rxe0" "$CFS/siw0"
if mkdir "$CFS/nosuchdev0" 2> /dev/null; then
	fail "mkdir of a device the CM does not have worked"
fi
[ -d "$RXE" ] || fail "no ports/1 under rxe0"
[ -d "$SIW" ] || fail "no ports/1 under siw0"
[ ! -e "$CFS/rxe0/ports/2" ] || fail "rxe0 has one port only"

# The defaults: RoCEv2 where the port has it, tos 0.
expect_read "$RXE/default_roce_mode" "RoCE v2"
expect_read "$RXE/default_roce_tos" 0
expect_read "$SIW/default_roce_mode" "IB/RoCE v1"

# Bad input changes nothing.
expect_write_fails "$RXE/default_roce_mode" "RoCE v3" "Invalid argument"
expect_write_fails "$RXE/default_roce_mode" "RoCE v2 " "Invalid argument"
expect_write_fails "$RXE/default_roce_tos" 256 "Numerical result out of range"
expect_write_fails "$RXE/default_roce_tos" abc "Invalid argument"
expect_write_fails "$RXE/default_roce_tos" -1 "Invalid argument"
# A mode the port does not speak: rxe has no RoCEv1, iWARP no RoCEv2.
expect_write_fails "$RXE/default_roce_mode" "IB/RoCE v1" "Invalid argument"
expect_write_fails "$SIW/default_roce_mode" "RoCE v2" "Invalid argument"
expect_read "$RXE/default_roce_mode" "RoCE v2"
expect_read "$RXE/default_roce_tos" 0

# Good input, with or without the newline echo adds.
echo "RoCE v2" > "$RXE/default_roce_mode"
expect_read "$RXE/default_roce_mode" "RoCE v2"
printf 'RoCE v2' > "$RXE/default_roce_mode"
expect_read "$RXE/default_roce_mode" "RoCE v2"
echo 0x60 > "$RXE/default_roce_tos"
expect_read "$RXE/default_roce_tos" 96
echo "IB/RoCE v1" > "$SIW/default_roce_mode"

# paths_has LINE: cm_e2e's parameter paths has this line.
paths_has() {
	local line
	local -a paths

	mapfile -t paths < "$CM_E2E_PARAMS/paths"
	for line in "${paths[@]}"; do
		[ "$line" != "$1" ] || return 0
	done
	fail "paths has no '$1': $(printf '\n  %s' "${paths[@]}")"
}

# hold_and_check MODE_REC_TYPE TOS: connections on rxe0 (IPv4) and siw0
# made with the defaults as they are; their path records and listing.
hold_and_check() {
	local state=held line ok=0
	local -a ids

	cm_e2e_start hold "addr=$CM_RXE_ADDR4,$CM_SIW_ADDR4" \
		"port=$CM_E2E_PORT" wait=60
	cm_e2e_wait_state holding || state=
	if [ "$state" = held ]; then
		paths_has "$CM_RXE_ADDR4 rec_type=$1 traffic_class=$2 sl=0"
		echo "ok: path on rxe0: rec_type=$1 traffic_class=$2"
		paths_has "$CM_SIW_ADDR4 none"
		mapfile -t ids < "$CM_IDS"
		for line in "${ids[@]}"; do
			[[ $line == *" state=CONNECT "*" dev=rxe0 "* ]] || continue
			[[ $line == *" tos=$2" ]] || fail "not tos=$2: $line"
			ok=$((ok + 1))
		done
		[ "$ok" = 2 ] || fail "$ok connected ids on rxe0, not 2"
		echo "ok: both ends on rxe0 show tos=$2"
	fi
	echo 1 > "$CM_E2E_PARAMS/release"
	cm_e2e_finish
	[ "$state" = held ] || fail "cm_e2e did not hold"
}

# RoCEv2 (rec_type 2), tos 96 from the default.
hold_and_check 2 96

rmdir "$CFS/rxe0" "$CFS/siw0"
[ ! -e "$CFS/rxe0" ] || fail "rmdir left $CFS/rxe0"
# A directory made again shows the device's values, which stayed.
mkdir "$CFS/rxe0"
expect_read "$RXE/default_roce_tos" 96
echo 0 > "$RXE/default_roce_tos"
rmdir "$CFS/rxe0"
cm_e2e_done
