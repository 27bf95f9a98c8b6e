# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The host side of the pair of guests on one wire (tests/interop/run):
# the guests' sessions, waiting for what a guest writes to its output
# folder, handing a file to a guest, and the build.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$top/scripts/lib.sh"
cd "$top" || exit 1

# A port nobody else is likely to use on this host's loopback.
port=$((20000 + $$ % 20000))
a_pid='' b_pid=''

# Each guest is a session of its own; stop what is left of it on the way
# out (an interrupt, a failed handshake).
stop_guests() {
	local pid
	for pid in $a_pid $b_pid; do
		kill -0 "$pid" 2> /dev/null && kill -- "-$pid" 2> /dev/null
	done
	return 0
}
trap stop_guests EXIT
trap 'exit 130' INT TERM

# wait_file FILE PID SECONDS: until FILE exists; fails if PID ends first.
wait_file() {
	local file=$1 pid=$2 i
	for ((i = 0; i < $3; i++)); do
		[ ! -e "$file" ] || return 0
		kill -0 "$pid" 2> /dev/null || break
		sleep 1
	done
	[ -e "$file" ]
}

# give FILE: an empty FILE, its folder made first, for a guest to see.
give() {
	mkdir -p "$(dirname "$1")" && : > "$1"
}

# interop_build OUT: the modules against the test kernel, once for both
# guests. W=1 as make check's build-test-kernel step has it: other flags
# would make Kbuild build every object again: minutes on a loaded host.
interop_build() {
	local kdir

	kdir=$(scripts/test-kernel --dir) || die "no test kernel: make test-kernel"
	log "building the modules against $kdir/build"
	make KDIR="$kdir/build" TESTS=1 W=1 > "$1/build.log" 2>&1 ||
		die "build failed: $1/build.log"
}

# interop_out DIR: DIR, made and absolute, or a fresh temporary one.
interop_out() {
	local out=$1

	[ -n "$out" ] || out=$(mktemp -d /tmp/cm-interop.XXXXXX)
	mkdir -p "$out"
	(cd "$out" && pwd)
}
