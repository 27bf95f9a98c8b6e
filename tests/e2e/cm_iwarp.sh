#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections over iWARP (siw0, loopback through iw_cm), IPv4 and IPv6:
# connect with private data and a SEND each way, disconnect from either
# side, 20 sequential and 8 concurrent connections. iWARP's own rules
# (private data as sent, ird/ord, no IB CM fields) are what is checked.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e connect,server_disconnect,sequential,concurrent \
	"addr=$CM_SIW_ADDR4,$CM_SIW_ADDR6" "port=$CM_E2E_PORT" count=8
cm_e2e_done
