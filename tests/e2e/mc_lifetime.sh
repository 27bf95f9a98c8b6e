#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast lifetimes through rdma_ucm (tests/ucma/mc_race): joins left
# or destroyed before their event arrives, over IPv4 and IPv6; then a
# device removed under a joined group, whose unregistration must finish
# (a GID table reference kept by the group would hold it forever).
. "$CM_TOP/tests/e2e/lib/common.sh"

modprobe rdma_ucm

tests/ucma/mc_race "$CM_RXE_ADDR4" 239.1.2.4 20
tests/ucma/mc_race "$CM_RXE_ADDR6" ff0e::1:2:4 10

out=$CM_OUT/mc_removal.out
start_ready "$out" tests/ucma/mc_removal "$CM_RXE_ADDR4" 239.1.2.5
remove_rxe0 "with a group joined on it"
end_ready "$out"
restore_rxe0
rmmod rdma_ucm
