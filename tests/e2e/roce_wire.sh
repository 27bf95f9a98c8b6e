#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The type of service and the ACK timeout on the wire: a REQ sent through
# rdma_ucm (tests/ucma/req_out) with tos 0x68 and ACK timeout 20, set
# before the route, leaves a RoCEv2 device for a namespace at the end of
# a veth pair, where no RDMA device answers but a plain UDP socket on
# RoCEv2's port 4791 takes the packet with its IP tos (IP_RECVTOS; the
# test kernel has no packet sockets for tcpdump).  The tos must be the
# id's, and the CM REQ inside must carry it as its primary traffic class
# and a local ACK timeout of 20 (the route's packet life time is the
# timeout less one; the IB CM adds it back, as rxe's ACK delay of 15 is
# smaller).  rxe0's own peers are local, and rxe loops their packets
# back before any netdev.
. "$CM_TOP/tests/e2e/lib/common.sh"

TOS=0x68
ACK_TIMEOUT=20
PEER=10.3.0.2

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

# catch: in the namespace, one datagram to port 4791, printed as "tos N"
# and "payload HEX"; "ready" once the socket is bound.
catch() {
	nsenter -t "$ns_pid" -n python3 -u -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 13, 1)  # IP_RECVTOS
s.bind(("0.0.0.0", 4791))
s.settimeout(60)
print("ready: bound to port 4791")
data, anc, _, _ = s.recvmsg(4096, 64)
for level, kind, val in anc:
    if level == socket.IPPROTO_IP and kind == 1:  # IP_TOS
        print("tos", val[0])
print("payload", data.hex())
'
}
start_ready "$CM_OUT/roce_wire.caught" catch
catch_pid=$ready_pid

start_ready "$CM_OUT/req_out.out" tests/ucma/req_out "$PEER" 7482 \
	"$TOS" "$ACK_TIMEOUT"
rc=0
wait "$catch_pid" || rc=$?
kill "$ready_pid"
rc2=0
wait "$ready_pid" || rc2=$?
show_output "$CM_OUT/req_out.out"
show_output "$CM_OUT/roce_wire.caught"
[ "$rc" = 0 ] || fail "catcher: exit $rc"
[ "$rc2" = 143 ] || fail "req_out: exit $rc2, not the SIGTERM sent"
rmmod rdma_ucm

ip_tos='' hex=''
while read -r key val; do
	case $key in
	tos) ip_tos=$val ;;
	payload) hex=$val ;;
	esac
done < "$CM_OUT/roce_wire.caught"
[ -n "$ip_tos" ] || fail "no IP tos came with the datagram"
# The datagram's bytes: BTH 12, DETH 8, then the MAD; the REQ's fields
# at 24 into it: primary traffic class at 92, local ACK timeout in the
# top five bits of 95.
byte() {
	echo $((16#${hex:$((2 * $1)):2}))
}
mad=20
[ "${#hex}" -ge $((2 * (mad + 24 + 96))) ] ||
	fail "caught ${#hex} hex digits, not a REQ"
class=$(byte $((mad + 1)))
attr=$(($(byte $((mad + 16))) * 256 + $(byte $((mad + 17)))))
if [ "$class" != 7 ] || [ "$attr" != 16 ]; then
	fail "not a CM REQ: class $class, attribute $attr"
fi
req_tclass=$(byte $((mad + 24 + 92)))
req_ack=$(($(byte $((mad + 24 + 95))) >> 3))
echo "REQ: IP tos $ip_tos, primary traffic class $req_tclass," \
	"local ACK timeout $req_ack"
[ "$ip_tos" = $((TOS)) ] || fail "IP tos $ip_tos, not $((TOS))"
[ "$req_tclass" = $((TOS)) ] ||
	fail "REQ traffic class $req_tclass, not $((TOS))"
[ "$req_ack" = "$ACK_TIMEOUT" ] ||
	fail "REQ local ACK timeout $req_ack, not $ACK_TIMEOUT"
echo "ok: the REQ on the wire carries tos $TOS and ACK timeout $ACK_TIMEOUT"
