#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many connections over RoCE (rxe0): 100 one after another (IPv4), then
# 16 set up at once (IPv4, then IPv6); each carries a SEND each way.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e sequential@0,concurrent "addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" \
	"port=$CM_E2E_PORT"
cm_e2e_done
