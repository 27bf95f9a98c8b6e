#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The type of service and the ACK timeout on the wire: a REQ sent through
# rdma_ucm (tests/ucma/req_out) with tos 0x68 and ACK timeout 20, set
# before the route, is captured with tcpdump as it leaves on a RoCEv2
# device.  Its IP header must carry the tos, its CM REQ the same
# primary traffic class and a local ACK timeout of 20 (the route's
# packet life time is the timeout less one; the IB CM adds it back, as
# rxe's ACK delay of 15 is smaller).  rxe0's own peers are local, and rxe
# loops their packets back before any netdev, so the REQ goes to a
# namespace at the end of a veth pair, where no RDMA device answers.
. "$CM_TOP/tests/e2e/lib/common.sh"

TOS=0x68
ACK_TIMEOUT=20
PEER=10.3.0.2
pcap=$CM_OUT/roce_wire.pcap

command -v tcpdump > /dev/null ||
	fail "no tcpdump: scripts/install-deps installs it on the host"

ns_pid=
cleanup() {
	rdma link delete rxew 2> /dev/null || :
	[ -z "$ns_pid" ] || kill "$ns_pid" 2> /dev/null || :
	ip link delete vw0 2> /dev/null || :
}
trap cleanup EXIT

in_other_netns() {
	! [ "/proc/$1/ns/net" -ef /proc/self/ns/net ]
}

unshare --net sleep 600 &
ns_pid=$!
wait_for "pid $ns_pid in a new network namespace" in_other_netns "$ns_pid"
ip link add vw0 type veth peer name vw1 netns "$ns_pid"
ip addr add 10.3.0.1/24 dev vw0
ip link set vw0 up
nsenter -t "$ns_pid" -n ip addr add "$PEER/24" dev vw1
nsenter -t "$ns_pid" -n ip link set vw1 up
rdma link add rxew type rxe netdev vw0
wait_for "rxew port ACTIVE" port_active rxew
wait_for "rxew's GID of 10.3.0.1" has_gids rxew 10.3.0.1

modprobe rdma_ucm

# tcpdump says it listens (on stderr, unbuffered) before it captures.
capture_ready() {
	local line
	while IFS= read -r line; do
		[[ $line != *"listening on vw0"* ]] || return 0
	done < "$CM_OUT/roce_wire.tcpdump"
	return 1
}
timeout 60 tcpdump -Z root -i vw0 -n -c 1 -w "$pcap" udp dst port 4791 \
	2> "$CM_OUT/roce_wire.tcpdump" &
td_pid=$!
wait_for "tcpdump to listen" capture_ready

start_ready "$CM_OUT/req_out.out" tests/ucma/req_out "$PEER" 7482 \
	"$TOS" "$ACK_TIMEOUT"
rc=0
wait "$td_pid" || rc=$?
kill "$ready_pid"
rc2=0
wait "$ready_pid" || rc2=$?
show_output "$CM_OUT/req_out.out"
[ "$rc" = 0 ] || fail "tcpdump: exit $rc (124: no REQ captured)"
[ "$rc2" = 143 ] || fail "req_out: exit $rc2, not the SIGTERM sent"
rmmod rdma_ucm

# The packet from its IP header on, one byte a word.
bytes=()
while read -r off rest; do
	[[ $off == 0x* ]] || continue
	for w in $rest; do
		bytes+=("${w:0:2}")
		[ ${#w} -lt 4 ] || bytes+=("${w:2:2}")
	done
done <<< "$(tcpdump -r "$pcap" -n -x 2> /dev/null)"
# IP 20, UDP 8, BTH 12, DETH 8: the MAD begins at 48; the REQ's fields
# at 24 into it: primary traffic class at 92, local ACK timeout in the
# top five bits of 95.
[ "${#bytes[@]}" -ge 168 ] || fail "captured ${#bytes[@]} bytes, not a REQ"
mad=48
class=$((16#${bytes[mad + 1]}))
attr=$((16#${bytes[mad + 16]}${bytes[mad + 17]}))
[ "$class" = 7 ] && [ "$attr" = 16 ] ||
	fail "not a CM REQ: class $class, attribute $attr"
ip_tos=$((16#${bytes[1]}))
req_tclass=$((16#${bytes[mad + 24 + 92]}))
req_ack=$((16#${bytes[mad + 24 + 95]} >> 3))
echo "REQ: IP tos $ip_tos, primary traffic class $req_tclass," \
	"local ACK timeout $req_ack"
[ "$ip_tos" = $((TOS)) ] || fail "IP tos $ip_tos, not $((TOS))"
[ "$req_tclass" = $((TOS)) ] ||
	fail "REQ traffic class $req_tclass, not $((TOS))"
[ "$req_ack" = "$ACK_TIMEOUT" ] ||
	fail "REQ local ACK timeout $req_ack, not $ACK_TIMEOUT"
echo "ok: the REQ on the wire carries tos $TOS and ACK timeout $ACK_TIMEOUT"
