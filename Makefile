# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the RDMA connection manager and its companions.
#
#   make                build every module against KDIR
#   make check          the whole test suite (scripts/check)
#   make interop        our rdma_cm and the in-box one on two guests joined
#                       by a virtual wire, both directions (tests/interop/run),
#                       then xrdma's reconnect across its peer's module
#                       reload (tests/interop/xrdma-reload)
#   make demo           boot the test kernel with rxe and siw and show the
#                       module at work (scripts/demo)
#   make bench          connection setup, teardown, accept rate and memory,
#                       ours against the in-box rdma_cm and the IB CM floor
#                       (scripts/bench; BENCH_ARGS="--seq 1000" and so on)
#   make test-kernel    build (or find) the cached test kernel
#   make install        put the rdma_cm.ko make built in KDIR's kernel's
#                       updates/, where depmod prefers it to the in-box
#                       one, and run depmod (INSTALL_MOD_PATH=DIR stages
#                       it under DIR)
#   make uninstall      take it out again and run depmod
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

# The kernel release KDIR builds for (Debian's headers say 6.1.192 in
# kernel.release but 6.1.0-N-amd64, the true one, in utsrelease.h).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)
ko = drivers/infiniband/core/rdma_cm.ko
installed = $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/rdma_cm.ko
depmod = depmod -b $(or $(INSTALL_MOD_PATH),/) $(KVER)

# Installs what make built, as modules_install does, after checking that
# it was built for KDIR's kernel.
install:
	@modinfo -F vermagic $(ko) 2>/dev/null | grep -q '^$(KVER) ' || { \
		echo "$(ko) is not built for $(KVER): run make KDIR=$(KDIR) first"; \
		exit 1; }
	install -D -m 644 $(ko) $(installed)
	strip --strip-debug $(installed)
	$(depmod)

uninstall:
	rm -f $(installed)
	$(depmod)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean

check:
	scripts/check

interop:
	tests/interop/run
	tests/interop/xrdma-reload

demo:
	scripts/demo

bench:
	scripts/bench $(BENCH_ARGS)

test-kernel:
	scripts/test-kernel

.PHONY: modules install uninstall clean check interop demo bench test-kernel
