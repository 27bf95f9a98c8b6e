#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the calls that tune a connection do to it, read back where it
# counts (cm_e2e's scen_attrs.c): on RoCE, the type of service, ACK
# timeout and minimum RNR timer in both QPs (ib_query_qp), ECE values
# both ways, rdma_read_gids() on both ends, a path set with
# rdma_set_ib_path() in the QP, and rdma_notify() establishing a
# connection whose RTU never comes; on RoCE and iWARP, a client that
# connects from its own handler with rdma_connect_locked(), and
# rdma_iw_cm_id() (an iw_cm id at both ends and on the listener on
# iWARP, none on RoCE).
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e qp_attrs,set_ib_path,notify,connect_locked,iw_cm_id \
	"addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" "port=$CM_E2E_PORT"
cm_e2e connect_locked,iw_cm_id \
	"addr=$CM_SIW_ADDR4,$CM_SIW_ADDR6" "port=$CM_E2E_PORT"
cm_e2e_done
