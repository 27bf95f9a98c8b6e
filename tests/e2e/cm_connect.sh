#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections over RoCE (rxe0, loopback), IPv4 and IPv6: connect with
# private data both ways and a SEND each way, then the client or the
# server disconnects; and the server rejects with private data.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e connect,server_disconnect,reject \
	"addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" "port=$CM_E2E_PORT"
cm_e2e_done
