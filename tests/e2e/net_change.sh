#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The network changes under ids, through rdma_ucm (tests/ucma/net_change):
# a bonding failover changes the hardware address of the netdev an id is
# bound to (ADDR_CHANGE), and a connecting RoCE id's peer changes its MAC
# in the neighbour table (UNREACHABLE).
. "$CM_TOP/tests/e2e/lib/common.sh"

prog=tests/ucma/net_change

slave_up() {
	local state=
	read -r state < "/sys/class/net/$1/bonding_slave/mii_status" || return 1
	[ "$state" = up ]
}
modprobe rdma_ucm
modprobe bonding max_bonds=0

# rxe on an active-backup bond whose MAC follows the active slave.
ip -batch - <<-EOF
	link add cmbond type bond mode active-backup fail_over_mac active miimon 100
	link add cmba type veth peer name cmba_p
	link add cmbb type veth peer name cmbb_p
	link set cmba master cmbond
	link set cmbb master cmbond
	link set cmba_p up
	link set cmbb_p up
	addr add 10.2.0.1/24 dev cmbond
	link set cmbond up
EOF
rdma link add rxeb type rxe netdev cmbond
wait_for "rxeb active" port_active rxeb
wait_for "rxeb's GID of 10.2.0.1" has_gids rxeb 10.2.0.1
# The bond fails over only to a slave it has seen come up.
wait_for "cmbb up in the bond" slave_up cmbb

start_ready "$CM_OUT/addr_change.out" "$prog" addr 10.2.0.1
echo cmbb > /sys/class/net/cmbond/bonding/active_slave
end_ready "$CM_OUT/addr_change.out"

rdma link delete rxeb
ip -batch - <<-EOF
	link delete cmbond
	link delete cmba
	link delete cmbb
EOF

# Netdevs gone: ib_core redoes the GID tables; let rxe0's settle.
wait_for "rxe0's GIDs" rxe0_gids_whole

# A peer that does not answer, at a MAC we choose; then it moves.
dead_peer 02:00:00:00:00:09
start_ready "$CM_OUT/neigh_change.out" "$prog" neigh "$DEAD_PEER" 7490
dead_peer 02:00:00:00:00:0a
end_ready "$CM_OUT/neigh_change.out"
dead_peer_gone

rmmod rdma_ucm
