# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the RDMA connection manager and its companions.
#
#   make                build every module against KDIR
#   make check          the whole test suite (scripts/check)
#   make interop        our rdma_cm and the in-box one on two guests joined
#                       by a virtual wire, both directions (tests/interop/run)
#   make demo           boot the test kernel with rxe and siw and show the
#                       module at work (scripts/demo)
#   make test-kernel    build (or find) the cached test kernel
#   make clean
#
# KDIR defaults to the running kernel's build tree and falls back to the
# newest installed Debian headers (linux-headers-amd64).

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

ifeq ($(KDIR),)
$(error no kernel build tree: install linux-headers-amd64 or set KDIR)
endif

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

check:
	scripts/check

interop:
	tests/interop/run

demo:
	scripts/demo

test-kernel:
	scripts/test-kernel

.PHONY: modules clean check interop demo test-kernel
