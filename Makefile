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

# The kernel source of KDIR's kernel, for ib_core's private headers: the
# exported symbols must see them to carry the in-box CRCs (see
# drivers/infiniband/core/abi/exports.c). A full build tree links its
# source as "source"; for Debian's headers it is linux-source-6.1 as
# scripts/test-kernel --source extracts it.
core_priv = drivers/infiniband/core/core_priv.h
KSRC ?= $(patsubst %/$(core_priv),%,$(firstword $(wildcard \
	$(addsuffix /$(core_priv),$(KDIR)/source $(KDIR) \
	$(sort $(wildcard /var/cache/rdma-cm/linux-source-*))))))

ifeq ($(KSRC),)
$(warning no kernel source for KDIR: the exported symbols will not carry \
	the in-box CRCs, so MODVERSIONS consumers such as rdma_ucm will not \
	load on this rdma_cm; run scripts/test-kernel --source or set KSRC)
endif

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) KSRC=$(KSRC) modules

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
