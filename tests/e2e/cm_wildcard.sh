#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One listener on the wildcard address (0.0.0.0, then ::) gets
# connections through two RoCE devices: rxe0 and rxe1, made here on a
# second veth pair and removed at the end.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

trap del_rxe1 EXIT
add_rxe1

cm_e2e wildcard laddr=0.0.0.0,:: "addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" \
	"addr2=$RXE1_ADDR4,$RXE1_ADDR6" "port=$CM_E2E_PORT"
cm_e2e_done
