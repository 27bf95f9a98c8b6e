#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The calls our CM adds to the 6.1 API, through cm_ext.ko, with rxe0 (an
# IB_CA device) and siw0 (an RNIC) side by side: rdma_restrict_node_type()
# for bind, address resolution and wildcard listeners.
. "$CM_TOP/tests/e2e/lib/common.sh"

CM_EXT_KO=tests/e2e/cm_ext/cm_ext.ko
[ -e "$CM_EXT_KO" ] || fail "$CM_EXT_KO is missing: build it (make)"

mark="cm_ext-$$"
echo "$mark" > /dev/kmsg
rc=0
insmod "$CM_EXT_KO" "addr_ib=$CM_RXE_ADDR4" "addr_iw=$CM_SIW_ADDR4" \
	port=7480 || rc=$?
seen=0
failed=0
while IFS= read -r line; do
	if [ "$seen" = 0 ]; then
		[[ $line != *"$mark"* ]] || seen=1
		continue
	fi
	if [[ $line =~ cm_ext:\ check\ ([a-z_]+):\ (PASS|FAIL) ]]; then
		if [ "${BASH_REMATCH[2]}" = PASS ]; then
			echo "ok: ${BASH_REMATCH[1]}"
		else
			echo "FAIL: ${BASH_REMATCH[1]}" >&2
			failed=$((failed + 1))
		fi
	elif [[ $line == *cm_ext:* ]]; then
		echo "    ${line#*] }"
	fi
done <<< "$(dmesg)"
if [ "$rc" = 0 ]; then
	rmmod cm_ext
fi
if [ "$rc" != 0 ] || [ "$failed" != 0 ]; then
	fail "cm_ext: insmod exit $rc, $failed checks failed"
fi
echo "all cm_ext checks passed"
