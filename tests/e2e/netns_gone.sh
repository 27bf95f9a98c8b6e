#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A network namespace whose processes are gone while ids live in it: the
# ids' references keep it, and it goes once they are destroyed. A veth
# pair shows which: its end in the namespace dies with the namespace,
# taking the other end, in init_net, with it.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

unshare --net sleep 600 &
ns_pid=$!
in_other_netns() {
	! [ "/proc/$ns_pid/ns/net" -ef /proc/self/ns/net ]
}
wait_for "pid $ns_pid in a new network namespace" in_other_netns
nsenter -t "$ns_pid" -n ip link add vgone type veth peer name vgone0 netns 1
ip link show vgone0 > /dev/null || fail "no veth end in init_net"

cm_e2e_start netns_hold "netns_pid=$ns_pid" "port=$CM_E2E_PORT" wait=60
holding() {
	local state=
	{ read -r state < "$CM_E2E_PARAMS/state"; } 2> /dev/null || true
	[ "$state" = holding ]
}
wait_for "cm_e2e to hold its ids" holding

# The namespace's last process goes; the ids keep the namespace.
kill "$ns_pid"
wait "$ns_pid" 2> /dev/null || true
nap 1
ip link show vgone0 > /dev/null 2>&1 ||
	fail "the namespace went while ids held it"
if [ -r /sys/kernel/debug/rdma_cm/ids ]; then
	n=$(grep -c "owner=cm_e2e" /sys/kernel/debug/rdma_cm/ids || true)
	[ "$n" = 3 ] || fail "$n ids of cm_e2e listed, expected 3"
fi
echo "ok: the ids keep their namespace after its last process"

echo 1 > "$CM_E2E_PARAMS/release"
cm_e2e_finish
# The kernel dismantles a namespace in a work item: give it 30 s.
for ((i = 0; i < 300; i++)); do
	ip link show vgone0 > /dev/null 2>&1 || break
	nap 0.1
done
! ip link show vgone0 > /dev/null 2>&1 ||
	fail "the namespace stayed after its ids were destroyed"
echo "ok: the namespace went once its ids were destroyed"
cm_e2e_done
