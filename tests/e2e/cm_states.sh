#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The id state machine over RoCE (rxe0): ids destroyed in every state,
# and every call made where it is illegal (siw0 lends a second device).
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e destroy_states,bad_input "addr=$CM_RXE_ADDR4,$CM_RXE_ADDR6" \
	"addr2=$CM_SIW_ADDR4,$CM_SIW_ADDR6" "port=$CM_E2E_PORT"
cm_e2e_done
