#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A network namespace whose processes are gone while ids live in it: the
# ids' references keep it, and it goes once they are destroyed. A veth
# pair shows which: its end in the namespace dies with the namespace,
# taking the other end, in init_net, with it.  That a namespace was not
# dismantled is shown against a second one without ids, let go after the
# first: once the kernel's clean-up has taken the second, it has had its
# chance at the first (namespaces are dismantled in the order their last
# reference went, by one work item).
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

# in_other_netns PID: PID is in a network namespace of its own.
in_other_netns() {
	! [ "/proc/$1/ns/net" -ef /proc/self/ns/net ]
}

# netns_with_veth VETH: a process in a new namespace with the veth VETH,
# whose peer VETH0 is in init_net; its pid in $ns_pid.
netns_with_veth() {
	unshare --net sleep 600 &
	ns_pid=$!
	wait_for "pid $ns_pid in a new network namespace" in_other_netns "$ns_pid"
	nsenter -t "$ns_pid" -n ip link add "$1" type veth peer name "${1}0" netns 1
	ip link show "${1}0" > /dev/null || fail "no veth end in init_net"
}

# link_gone LINK: init_net has no LINK.
link_gone() {
	! ip link show "$1" > /dev/null 2>&1
}

netns_with_veth vgone
held_pid=$ns_pid
netns_with_veth vctl
ctl_pid=$ns_pid
ns_pid=$held_pid

cm_e2e_start netns_hold "netns_pid=$held_pid" "port=$CM_E2E_PORT" wait=60
cm_e2e_wait_state holding || { cm_e2e_finish; fail "cm_e2e did not hold"; }

# end PID: PID, the last process of its namespace, is gone (reaped: it
# has let go of its namespace).
end() {
	local rc=0
	kill "$1"
	wait "$1" || rc=$?
	[ "$rc" = 143 ] || fail "pid $1 ended with $rc, not the SIGTERM sent"
}

# The held namespace's last process goes, then the other's; once the
# other namespace is dismantled, the ids' must still be there.
end "$held_pid"
end "$ctl_pid"
wait_for "the namespace without ids to go" link_gone vctl0
link_gone vgone0 && fail "the namespace went while ids held it"
if cm_is_ours; then
	mapfile -t ids < "$CM_IDS"
	n=0
	for line in "${ids[@]}"; do
		[[ $line != *" owner=cm_e2e "* ]] || n=$((n + 1))
	done
	[ "$n" = 3 ] || fail "$n ids of cm_e2e listed, expected 3"
fi
echo "ok: the ids keep their namespace after its last process"

echo 1 > "$CM_E2E_PARAMS/release"
cm_e2e_finish
# The kernel dismantles a namespace in a work item: give it 30 s.
for ((i = 0; i < 300; i++)); do
	! link_gone vgone0 || break
	nap 0.1
done
link_gone vgone0 || fail "the namespace stayed after its ids were destroyed"
echo "ok: the namespace went once its ids were destroyed"
cm_e2e_done
