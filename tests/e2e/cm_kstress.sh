#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-side stress (cm_e2e's scenario "stress"): on both CPUs at once,
# cycles of create, resolve, connect, data, disconnect and destroy, each
# cut short at a seeded random point, among them a handler returning 1
# and a destroy while the handler sleeps; over RoCE (rxe) and iWARP
# (siw). Afterwards the CM must hold no id at all (every id created was
# destroyed, and the ids' slab cache is empty) and restrack nothing of
# cm_e2e's. CM_KSTRESS_CYCLES (per
# CPU and device, default 250) and CM_KSTRESS_SEED make it longer or
# another run.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/cm_e2e/cm_lib.sh
. "$CM_TOP/tests/e2e/cm_e2e/cm_lib.sh"

cm_e2e stress "addr=$CM_RXE_ADDR4,$CM_SIW_ADDR4" "port=$CM_E2E_PORT" \
	"count=${CM_KSTRESS_CYCLES:-250}" "seed=${CM_KSTRESS_SEED:-1}"
stress_workers

expect_no_ids "the stress"
cm_e2e_done
