#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A short, fixed-seed run of the rdma_ucm fuzzer (tests/fuzz/ucma_fuzz,
# built on the host by make -C tests/fuzz) through the in-box rdma_ucm on
# our rdma_cm. The kernel is the judge: any splat fails the run (the
# harness), and so does an id left behind (our module warns on unload
# while ids are alive). UCMA_FUZZ_ARGS overrides the arguments and
# UCMA_FUZZ_TIMEOUT the 120 s limit, for a long run: see
# Documentation/reliability.rst.
. "$CM_TOP/tests/e2e/lib/common.sh"

fuzz=tests/fuzz/ucma_fuzz
[ -x "$fuzz" ] || fail "$fuzz not built: make -C tests/fuzz"

modprobe rdma_ucm || fail "rdma_ucm does not load on our rdma_cm"
[ -e /dev/infiniband/rdma_cm ] || fail "no /dev/infiniband/rdma_cm"

# shellcheck disable=SC2086 # word splitting of the arguments is meant
timeout "${UCMA_FUZZ_TIMEOUT:-120}" "$fuzz" ${UCMA_FUZZ_ARGS:---seed 1 --ops 4000 --threads 4} ||
	fail "ucma_fuzz: exit $?"

# Every id gone: the module refuses to go quietly otherwise.
rmmod rdma_ucm || fail "rdma_ucm still in use"
expect_no_ids "the fuzzer"
rmmod rdma_cm || fail "rdma_cm still in use"
insmod "$CM_KO" || fail "rdma_cm does not load again"
echo "ok: ucma_fuzz, no id left"
