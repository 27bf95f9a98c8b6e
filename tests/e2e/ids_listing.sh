#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The listing of ids, /sys/kernel/debug/rdma_cm/ids: cm_e2e's scenario
# hold keeps ids in known states (listening, connected both ends, bound,
# idle) on rxe0 over IPv4 and IPv6 and on siw0, and each must show with
# its state, addresses, device, QP and owner; the time in a state grows.
# Then the listing is read over and over while connections come and go.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

CM_IDS_HEADER="# id state src dst ps qp_type qpn dev port owner pid age_ms tos"
CM_IDS_KEYS=(id state src dst ps qp_type qpn dev port owner pid age_ms tos)
P=$CM_E2E_PORT

[ -r "$CM_IDS" ] || fail "$CM_IDS is missing"

ids_lines=()
declare -A f=()
ids_hits=()

# ids_read: the listing, into ids_lines; the header and the shape of
# every line are checked.
ids_read() {
	local line
	local -a fields

	mapfile -t ids_lines < "$CM_IDS"
	[ "${ids_lines[0]-}" = "$CM_IDS_HEADER" ] ||
		fail "header is '${ids_lines[0]-}'"
	for line in "${ids_lines[@]:1}"; do
		read -ra fields <<< "$line"
		[ ${#fields[@]} = ${#CM_IDS_KEYS[@]} ] ||
			fail "not ${#CM_IDS_KEYS[@]} fields: $line"
		ids_parse "$line"
	done
}

# ids_parse LINE: its fields into f, keys in the header's order.
ids_parse() {
	local kv i=0
	local -a fields

	f=()
	read -ra fields <<< "$1"
	for kv in "${fields[@]}"; do
		[ "${kv%%=*}" = "${CM_IDS_KEYS[i]}" ] ||
			fail "field $i is not ${CM_IDS_KEYS[i]}: $1"
		f[${kv%%=*}]=${kv#*=}
		i=$((i + 1))
	done
}

# ids_find KEY=VALUE...: the lines of cm_e2e's ids with all these, into
# ids_hits.
ids_find() {
	local line kv ok

	ids_hits=()
	for line in "${ids_lines[@]:1}"; do
		ids_parse "$line"
		[ "${f[owner]}" = cm_e2e ] || continue
		ok=1
		for kv in "$@"; do
			[ "${f[${kv%%=*}]}" = "${kv#*=}" ] || ok=0
		done
		[ "$ok" = 0 ] || ids_hits+=("$line")
	done
}

# expect_ids N KEY=VALUE...: exactly N such lines.
expect_ids() {
	local n=$1

	shift
	ids_find "$@"
	[ ${#ids_hits[@]} = "$n" ] ||
		fail "want $n ids with $*, have ${#ids_hits[@]}: $(printf '\n  %s' "${ids_lines[@]}")"
	echo "ok: $n x $*"
}

# What each parameter set holds: ADDR as the listing writes it, ANY the
# zero address of its family (the destination of listeners and bound ids).
expect_held() {
	local addr=$1 dev=$2 any=$3 line

	expect_ids 1 state=LISTEN "src=$addr:$P" "dst=$any:0" "dev=$dev" port=1 \
		ps=TCP qp_type=RC qpn=0 pid=0
	expect_ids 1 state=CONNECT "dst=$addr:$P" "dev=$dev" port=1
	ids_parse "${ids_hits[0]}"
	[ "${f[qpn]}" -gt 0 ] || fail "client has no QP: ${ids_hits[0]}"
	[[ ${f[src]} == "$addr":* ]] || fail "client src: ${ids_hits[0]}"
	line=${ids_hits[0]}
	expect_ids 1 state=CONNECT "src=$addr:$P" "dev=$dev" port=1
	ids_parse "${ids_hits[0]}"
	[ "${f[qpn]}" -gt 0 ] || fail "server has no QP: ${ids_hits[0]}"
	# Each end's destination is the other's source.
	[[ $line == *" src=${f[dst]} "* ]] ||
		fail "ends do not mirror: $line / ${ids_hits[0]}"
	expect_ids 1 state=ADDR_BOUND "src=$addr:$((P + 1))" "dst=$any:0" \
		"dev=$dev"
}

cm_e2e_start hold "addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6,$CM_SIW_ADDR4" \
	"port=$P" wait=60
cm_e2e_wait_state holding || { cm_e2e_finish; fail "cm_e2e did not hold"; }

ids_read
expect_held "$CM_RXE_ADDR4" rxe0 0.0.0.0
expect_held "[$CM_RXE_ADDR6]" rxe0 "[::]"
expect_held "$CM_SIW_ADDR4" siw0 0.0.0.0
expect_ids 3 state=IDLE src=- dst=- dev=- port=0 qpn=0
expect_ids 15

# The time in a state grows while the state holds.
ids_find state=LISTEN "src=$CM_RXE_ADDR4:$P"
ids_parse "${ids_hits[0]}"
age=${f[age_ms]} id=${f[id]}
nap 1
ids_read
expect_ids 1 "id=$id" state=LISTEN
ids_parse "${ids_hits[0]}"
[ "${f[age_ms]}" -ge $((age + 900)) ] ||
	fail "age_ms went from $age to ${f[age_ms]} in a second"
echo "ok: age_ms $age -> ${f[age_ms]}"

# The CM cannot be unloaded under live ids: their user pins it.
if rmmod rdma_cm 2> /dev/null; then
	fail "rdma_cm unloaded while ids exist"
fi
echo "ok: rmmod rdma_cm refused while ids exist"

echo 1 > "$CM_E2E_PARAMS/release"
cm_e2e_finish
ids_read
expect_ids 0

# Read while ids are created, connected and destroyed: every read must
# be well formed, and the kernel must stay quiet (KASAN, lockdep).
reads=0
cm_e2e_start sequential,concurrent "addr=$CM_RXE_ADDR4" "port=$P" count=8
while kill -0 "$cm_e2e_pid" 2> /dev/null; do
	ids_read
	reads=$((reads + 1))
done
cm_e2e_finish
[ "$reads" -gt 0 ] || fail "no read while connections ran"
echo "ok: $reads reads while connections came and went"
cm_e2e_done
