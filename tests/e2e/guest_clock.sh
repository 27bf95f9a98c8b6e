#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's clock resolves microseconds (scripts/vm boots it with the
# TSC declared reliable), and xrping says what its clock steps by: on
# the jiffies a guest under TCG otherwise falls back to, every timed
# figure reads in whole 4 ms ticks, and xrping refuses to print them.
# A run's latency and setup figures are there, and no whole ticks.
. "$CM_TOP/tests/e2e/lib/common.sh"
# shellcheck source=tests/e2e/xrdma/xrdma_lib.sh
. "$CM_TOP/tests/e2e/xrdma/xrdma_lib.sh"

port=18541
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource

read -r clock < "$cs"
echo "clock source: $clock"
case "$clock" in
jiffies|refined-jiffies) fail "the guest's clock source is $clock" ;;
esac

xrdma_load || fail "cannot load xrdma.ko and xrping.ko"
trap 'xrdma_cleanup clk' EXIT
xrdma_server_start clk "$CM_RXE_ADDR4" "$port" ||
	fail "cannot start the xrping server"
xrdma_test clk "$CM_RXE_ADDR4" "$port" size=64 count=200 ||
	fail "the xrping run failed: ${xrdma_results[*]}"
for line in "${xrdma_results[@]}"; do
	case "$line" in
	clock*|lat_*|setup_*|timing*) echo "  $line" ;;
	esac
done

step=${xrdma_r[clock_step_ns]:-}
[ -n "$step" ] || fail "xrping printed no clock_step_ns"
[ -z "${xrdma_r[timing]:-}" ] || fail "xrping refused: ${xrdma_r[timing]}"
median=${xrdma_r[lat_median_ns]:-}
[ -n "$median" ] || fail "no latency figures"
# A tick is 4 ms (HZ=250): a figure of whole ticks is the clock's.
[ $((median % 4000000)) != 0 ] ||
	fail "the median, $median ns, is a whole number of ticks"
[ -n "${xrdma_r[setup_established_ns]:-}" ] || fail "no setup figures"
echo "ok: the clock steps by $step ns; median $median ns"
