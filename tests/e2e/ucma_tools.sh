#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's and perftest's tools through the in-box rdma_ucm loaded on
# top of our CM: rping (validated), ucmatose, rdma_server/rdma_client,
# cmtime, ib_send_lat/ib_send_bw -R, udaddy and mckey, over RoCE and
# iWARP.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/lib/ucma.sh
. "$CM_TOP/tests/e2e/lib/ucma.sh"

modprobe rdma_ucm || fail "rdma_ucm does not load on our rdma_cm"
[ -e /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"

# 100 validated pings on each device, fewer over IPv6 to keep it short.
rping_pair "$CM_RXE_ADDR4" 100
rping_pair "$CM_SIW_ADDR4" 100
rping_pair "$CM_RXE_ADDR6" 20
rping_pair "$CM_SIW_ADDR6" 20
for a in "$CM_RXE_ADDR4" "$CM_RXE_ADDR6" "$CM_SIW_ADDR4" "$CM_SIW_ADDR6"; do
	ucmatose_pair "$a" 10
done
# The IB port space for RC, with a type of service and an ACK timeout.
server_client ucmatose-ib ucmatose -P ib -b "$CM_RXE_ADDR4" -c 2 -- \
	ucmatose -P ib -s "$CM_RXE_ADDR4" -c 2 -t 32 -a 16

# UD over SIDR: datagrams both ways after the CM's resolution, then a
# request refused and one accepted (tests/ucma/ud_reject).
server_client udaddy-4 udaddy -b "$CM_RXE_ADDR4" -c 4 -- \
	udaddy -s "$CM_RXE_ADDR4" -c 4
server_client udaddy-6 udaddy -b "$CM_RXE_ADDR6" -c 2 -- \
	udaddy -s "$CM_RXE_ADDR6" -c 2
# The IPoIB port space is InfiniBand's alone: on RoCE the in-box CM
# refuses the bind with EINVAL, and so does ours.
if out=$(timeout 20 udaddy -P ipoib -b "$CM_RXE_ADDR4" -c 1 2>&1); then
	fail "udaddy -P ipoib bound on RoCE: $out"
fi
grep -q 'bind address failed: Invalid argument' <<< "$out" ||
	fail "udaddy -P ipoib on RoCE: $out"
echo "ok: udaddy -P ipoib refused on RoCE"
tests/ucma/ud_reject "$CM_RXE_ADDR4" 7480
tests/ucma/ud_reject "$CM_RXE_ADDR6" 7481

rdma_server_client "$CM_RXE_ADDR4" rxe
rdma_server_client "$CM_SIW_ADDR4" siw
cmtime_pair "$CM_RXE_ADDR4" 10
send_lat_pair "$CM_RXE_ADDR4" rxe0
send_bw_pair "$CM_RXE_ADDR4" rxe0

# mckey's server joins instead of listening: it is ready once it says it
# receives (line-buffered, so the line shows while it runs).
ready='receiving data transfers'
CM_PAIR_READY=$ready server_client mckey \
	stdbuf -oL mckey -m 239.1.2.3 -b "$CM_RXE_ADDR4" -c 5 -- \
	mckey -m 239.1.2.3 -b "$CM_RXE_ADDR4" -s -c 5

# IPv6 groups on RoCEv2 join with MLD here; the in-box CM says -ENOTSUPP.
if cm_is_ours; then
	CM_PAIR_READY=$ready server_client mckey6 \
		stdbuf -oL mckey -m ff0e::1:2:3 -b "$CM_RXE_ADDR6" -c 5 -- \
		mckey -m ff0e::1:2:3 -b "$CM_RXE_ADDR6" -s -c 5
fi

# Leave the CM free to unload for the scripts after this one.
rmmod rdma_ucm
