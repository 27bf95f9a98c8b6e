#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A module built with <rdma/rdma_cm_ext.h> refuses to load on the in-box
# CM, naming the reason, and loads on ours.
. "$CM_TOP/tests/e2e/lib/common.sh"

user=tests/harness/cm_ext_user.ko
marker=rdma_cm_ext_requires_out_of_tree_rdma_cm

rmmod rdma_cm
modprobe rdma_cm
if insmod "$user" 2> "$CM_OUT/ext_user.err"; then
	rmmod cm_ext_user
	rmmod rdma_cm
	insmod "$CM_KO"
	fail "$user loaded on the in-box rdma_cm"
fi
dmesg | grep -q "cm_ext_user: Unknown symbol $marker" ||
	fail "no 'Unknown symbol $marker' in the kernel log"
echo "ok: refused on the in-box CM: Unknown symbol $marker"

rmmod rdma_cm
insmod "$CM_KO"
insmod "$user" || fail "$user does not load on our rdma_cm"
rmmod cm_ext_user
echo "ok: loads on ours"
