# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end scripts, which run inside the guest.  Every
# program started costs up to half a second there (TCG, KASAN, lockdep):
# these use builtins where they can.
# shellcheck shell=bash

set -euo pipefail
cd "$CM_TOP"

CM_KO=drivers/infiniband/core/rdma_cm.ko
CM_DEVICES=/sys/kernel/debug/rdma_cm/devices
# Ours only: the listing of ids, and the slab cache ids live in.
CM_IDS=/sys/kernel/debug/rdma_cm/ids
CM_ID_SLAB=/sys/kernel/slab/rdma_cm_id

# cm_is_ours: the rdma_cm loaded is this tree's, not the kernel's: an
# out-of-tree module taints the kernel with O.  Asked of the module, not
# of our debugfs files, so that a file gone missing cannot pass for the
# in-box CM.
cm_is_ours() {
	local taint=

	read -r taint < /sys/module/rdma_cm/taint || fail "rdma_cm is not loaded"
	[[ $taint == *O* ]]
}

# expect_no_ids WHAT: fail unless no id outlived WHAT: none in the
# listing, and none in the slab cache, whose count is exact once the
# cache is shrunk (which also empties KASAN's quarantine of it).  The
# in-box CM has neither: there it says so and checks nothing; on ours a
# missing file is a failure.
expect_no_ids() {
	local left objects

	if ! cm_is_ours; then
		echo "in-box CM: no listing of ids, no check after $1"
		return 0
	fi
	[ -r "$CM_IDS" ] || fail "our CM has no $CM_IDS"
	[ -d "$CM_ID_SLAB" ] || fail "no slab cache $CM_ID_SLAB"
	mapfile -t left < "$CM_IDS"
	if [ "${#left[@]}" -gt 1 ]; then
		printf '  %s\n' "${left[@]}"
		fail "$((${#left[@]} - 1)) ids outlived $1"
	fi
	echo 1 > "$CM_ID_SLAB/shrink"
	read -r objects _ < "$CM_ID_SLAB/objects"
	[ "$objects" = 0 ] ||
		fail "$objects ids' memory outlived $1 (slab cache rdma_cm_id)"
	echo "ok: no id left after $1, in the listing or the slab cache"
}

# restrack_none_of OWNER: no RDMA resource (restrack's ids, QPs, CQs, PDs,
# MRs) has OWNER in its line; those that do are left in restrack_left.
# One rdma, no grep; rdma's own failure ends the script.
restrack_left=()
restrack_none_of() {
	local out line show rc=0

	show=$'resource show cm_id\nresource show qp\nresource show cq'
	show+=$'\nresource show pd\nresource show mr'
	out=$(rdma -f -b - <<< "$show") || rc=$?
	[ "$rc" = 0 ] || fail "rdma resource show: exit $rc"
	restrack_left=()
	while IFS= read -r line; do
		[[ $line != *"$1"* ]] || restrack_left+=("$line")
	done <<< "$out"
	[ "${#restrack_left[@]}" = 0 ]
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# skip WHY: the script does not apply here (the in-box CM lacks what it
# tests).  Exit status 77, which is not a pass.
skip() {
	echo "SKIP ${0##*/}: $*"
	exit 77
}

# retried WHAT: say that something was tried again, for the summary to
# count as a warning: a retry hides a failure, it must not hide it
# silently.
retried() {
	echo "RETRY ${0##*/} $*"
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

# The CM's device listing has exactly the ports given ("device port
# transport"), in any order; the count after them is not compared.
devices_are() {
	local -a have=()
	local want got found

	[ -r "$CM_DEVICES" ] || return 1
	mapfile -t have < "$CM_DEVICES"
	[ "${#have[@]}" = $# ] || return 1
	for want in "$@"; do
		found=0
		for got in "${have[@]}"; do
			[ "${got% unroutable_reqs=*}" != "$want" ] || found=1
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
# A program whose set-up failed (exit 2, before "ready") gets a second
# start once rxe0's GID table is whole again (see rxe0_gids_whole).
start_ready() {
	local out=$1 try rc
	shift
	for try in 1 2; do
		# Emptied here, not by the background shell: an old "ready"
		# must not be read before that shell gets to it.
		: > "$out"
		"$@" > "$out" 2>&1 &
		ready_pid=$!
		ready_wait "$out" && return 0
		kill -0 "$ready_pid" 2> /dev/null && break
		rc=0
		wait "$ready_pid" || rc=$?
		if [ "$rc" != 2 ] || [ "$try" = 2 ]; then
			show_output "$out"
			fail "$1 never got ready (exit $rc)"
		fi
		echo "  ${out##*/}: set-up failed, starting again"
		wait_for "rxe0's GIDs" rxe0_gids_whole
		retried "${out##*/} (set-up failed)"
	done
	kill "$ready_pid" 2> /dev/null || true
	end_ready "$out"
	fail "$1 never got ready"
}

# ready_wait OUT: the "ready" line, or false once the program is gone
# or 60 s have passed.
ready_wait() {
	local i line
	for ((i = 0; i < 600; i++)); do
		while IFS= read -r line; do
			[[ $line != ready* ]] || return 0
		done < "$1"
		kill -0 "$ready_pid" 2> /dev/null || return 1
		nap 0.1
	done
	return 1
}

# end_ready OUT: wait for the command start_ready started, show its
# output; it must exit 0.
end_ready() {
	local rc=0
	wait "$ready_pid" || rc=$?
	show_output "$1"
	[ "$rc" = 0 ] || fail "${1##*/}: exit $rc"
}

show_output() {
	local line
	while IFS= read -r line; do echo "  $line"; done < "$1"
}

# gid_of IP: the GID sysfs shows for an IPv4 address, or for an IPv6
# one of the guest set-up (fd00::x) or of rxe1 (fd00:1::x).
gid_of() {
	local a b c d
	case "$1" in
	*.*.*.*)
		IFS=. read -r a b c d <<< "$1"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' \
			"$a" "$b" "$c" "$d"
		;;
	fd00::*) printf 'fd00:0000:0000:0000:0000:0000:0000:%04x\n' "0x${1##*:}" ;;
	fd00:1::*) printf 'fd00:0001:0000:0000:0000:0000:0000:%04x\n' "0x${1##*:}" ;;
	esac
}

# has_gids DEVICE IP...: port 1 of DEVICE has the GIDs of all the IPs.
# ib_core fills a GID table in a work item after the port is up, and
# redoes it when netdevs come and go: until then, binding fails.
has_gids() {
	local dev=$1 ip want g line found
	shift
	for ip in "$@"; do
		want=$(gid_of "$ip")
		found=0
		for g in "/sys/class/infiniband/$dev/ports/1/gids/"*; do
			read -r line < "$g" 2> /dev/null || continue
			[ "$line" != "$want" ] || found=1
		done
		[ "$found" = 1 ] || return 1
	done
}

# rxe0_gids_whole: rxe0's GID table holds its IPv4 and IPv6 addresses.
rxe0_gids_whole() {
	has_gids rxe0 "$CM_RXE_ADDR4" "$CM_RXE_ADDR6"
}

# A peer that never answers, reached through veth0 (rxe0) only: 10.0.0.0/24
# is on both veth0 and veth1 (siw0), and which of the two routes a lookup
# takes is not fixed, so the dead peer gets a route of its own.
DEAD_PEER=10.9.0.9

# dead_peer MAC: (re)place the dead peer's neighbour entry on veth0.
dead_peer() {
	ip route replace "$DEAD_PEER/32" dev veth0
	ip neigh replace "$DEAD_PEER" lladdr "$1" dev veth0 nud permanent
}

dead_peer_gone() {
	ip neigh delete "$DEAD_PEER" dev veth0 2> /dev/null || true
	ip route delete "$DEAD_PEER/32" dev veth0 2> /dev/null || true
}

# remove_rxe0 WHY: delete rxe0, which must unregister within 60 s.
remove_rxe0() {
	timeout 60 rdma link delete rxe0 || fail "rxe0 did not unregister $1"
}

# restore_rxe0: rxe0 back on veth0, for the scripts after this one.
restore_rxe0() {
	rdma link add rxe0 type rxe netdev veth0
	wait_for "rxe0 port ACTIVE" port_active rxe0
	wait_for "rxe0's GIDs" rxe0_gids_whole
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

