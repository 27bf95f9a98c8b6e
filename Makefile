# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of the RDMA connection manager and its companions.
#
##  make                build rdma_cm.ko, xrdma.ko and xrping.ko against KDIR
##                      (TESTS=1: the test modules too, KUnit, cm_e2e ...)
##  make check          install what is missing (scripts/install-deps), then
##                      the whole test suite (scripts/check)
##  make demo           the same first, then boot the test kernel with rxe
##                      and siw and show the module at work (scripts/demo)
##  make interop        our rdma_cm and the in-box one on two guests joined
##                      by a virtual wire, both directions, then in the same
##                      boot xrdma's reconnect across its peer's module
##                      reload (the interop step of make check)
##  make diff           every scenario of tests/diff and the fuzzer's seed
##                      on the in-box rdma_cm and on ours in one guest,
##                      compared (differences: tests/diff/accepted.txt)
##  make mutate         the mutation check: forty deliberate bugs in
##                      rdma_cm and xrdma, each built and tested in one
##                      guest, and the kill rate (tests/mutation/run;
##                      MUTATE_ARGS="--only ID,ID" and so on); not part
##                      of make check
##  make bench          connection setup, teardown, accept rate and memory,
##                      ours against the in-box rdma_cm and the IB CM floor
##                      (BENCH_ARGS="--seq 1000" and so on)
##  make test-kernel    build (or find) the cached test kernel
##  make install        check that the modules make built carry the CRCs of
##                      KDIR's kernel (its Module.symvers), put them in its
##                      updates/, where depmod prefers them to the in-box
##                      ones, and run depmod (INSTALL_MOD_PATH=DIR stages
##                      them under DIR)
##  make uninstall      take them out again and run depmod
##  make dkms-source    copy the source DKMS builds from to
##                      DESTDIR/usr/src/rdma-cm-VERSION
##  make deb            build the rdma-cm-dkms package in DEBDIR (deb/)
##  make version        print VERSION, from git describe
##  make clean
##  make help           this list
#
# KDIR defaults to the running kernel's build tree and falls back to the
# newest installed Debian headers (linux-headers-amd64). Nothing here is
# looked up until a target needs it, so "make check" on a machine with
# no headers yet gets as far as installing them.

# The kernel build tree. Recursive, as every variable below: a target that
# does not build needs none of it.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

CM_CACHE ?= /var/cache/rdma-cm

# The kernel source of KDIR's kernel, for ib_core's private headers: the
# exported symbols must see them to carry the in-box CRCs (see
# drivers/infiniband/core/abi/exports.c). A full build tree links its
# source as "source"; for Debian's headers it is linux-source-6.1 as
# scripts/test-kernel --source extracts it, or, failing that, the
# headers taken from the linux-source-6.1 tarball into .ksrc/. A source
# of another release than KDIR's may give other CRCs: make install and
# DKMS's build check them (check-built).
core_priv = drivers/infiniband/core/core_priv.h
KSRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
ksrc_trees = $(KDIR)/source $(KDIR) $(sort $(wildcard $(CM_CACHE)/linux-source-*))
KSRC ?= $(patsubst %/$(core_priv),%,$(firstword $(wildcard \
	$(addsuffix /$(core_priv),$(ksrc_trees))) \
	$(if $(wildcard $(KSRC_TARBALL)),$(CURDIR)/.ksrc/$(core_priv))))

need_kdir = $(if $(KDIR),,$(error no kernel build tree: install \
	linux-headers-amd64 (apt-get install linux-headers-amd64) or set KDIR))
need_ksrc = $(if $(KSRC),,$(error no kernel source for $(KDIR): without \
	ib_core's private headers the exported symbols would not carry the \
	in-box CRCs and the kernel's own rdma_ucm, nvme-rdma ... would refuse \
	to load on this rdma_cm. Install linux-source-6.1 (apt-get install \
	linux-source-6.1) or set KSRC to the kernel source))

# The test modules (Kbuild): only for the tests, never installed.
TESTS ?=

modules: $(if $(filter $(CURDIR)/.ksrc,$(KSRC)),$(CURDIR)/.ksrc/$(core_priv))
	$(need_kdir)
	$(need_ksrc)
	$(MAKE) -C $(KDIR) M=$(CURDIR) KSRC=$(KSRC) TESTS=$(TESTS) modules

# Only the private headers, out of the whole tarball.
$(CURDIR)/.ksrc/$(core_priv):
	@echo "  taking ib_core's private headers from $(KSRC_TARBALL)"
	rm -rf $(CURDIR)/.ksrc && mkdir -p $(CURDIR)/.ksrc
	tar -C $(CURDIR)/.ksrc --strip-components=1 -xJf $(KSRC_TARBALL) \
		--wildcards '*/drivers/infiniband/core/*.h'

# The kernel release KDIR builds for (Debian's headers say 6.1.192 in
# kernel.release but 6.1.0-N-amd64, the true one, in utsrelease.h).
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)
# What make install and DKMS install: never a test module.
kos = drivers/infiniband/core/rdma_cm.ko net/xrdma/xrdma.ko \
	net/xrdma/tool/xrping.ko
updates = $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates
depmod = depmod -b $(or $(INSTALL_MOD_PATH),/) $(KVER)
# The CRCs of the kernel the modules go into.
TARGET_SYMVERS ?= $(KDIR)/Module.symvers

# Every module built for KDIR's kernel, and every in-box export with the
# CRC that kernel's consumers were built against: a module that fails
# either would not load, or would make rdma_ucm and the like refuse to.
check-built:
	$(need_kdir)
	$(need_ksrc)
	@for ko in $(kos); do \
		modinfo -F vermagic $$ko 2>/dev/null | grep -q '^$(KVER) ' || { \
			echo "$$ko is not built for $(KVER): run make KDIR=$(KDIR) first"; \
			exit 1; }; \
	done
	@$(CURDIR)/scripts/check-symvers $(CURDIR)/Module.symvers \
		$(TARGET_SYMVERS) > $(CURDIR)/.symvers-check || { \
		grep -v '^ok ' $(CURDIR)/.symvers-check; \
		echo "refusing: our rdma_cm.ko does not export what $(KVER)'s"; \
		echo "rdma_cm exports with the same CRCs ($(TARGET_SYMVERS));"; \
		echo "the kernel's own rdma_ucm, nvme-rdma ... would not load on it"; \
		exit 1; }
	@tail -n 1 $(CURDIR)/.symvers-check

# Installs what make built, as modules_install does.
install: check-built
	set -e; for ko in $(kos); do \
		install -D -m 644 $$ko $(updates)/$${ko##*/}; \
		strip --strip-debug $(updates)/$${ko##*/}; \
	done
	$(depmod)

uninstall:
	$(need_kdir)
	rm -f $(addprefix $(updates)/,$(notdir $(kos)))
	$(depmod)

# DKMS's build (dkms.conf): the modules, checked as make install does.
dkms-build: modules
	$(MAKE) -f $(firstword $(MAKEFILE_LIST)) check-built

clean:
	$(need_kdir)
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(CURDIR)/.ksrc $(CURDIR)/.symvers-check

# The version: git describe, made a Debian version (digits first, no
# hyphen): v0.2-5-gabc becomes 0.2+5.gabc; with no tag yet, the number
# of commits, 0+317.gabc. DKMS's copy has no .git: it is written into
# its dkms.conf instead.
VERSION ?= $(shell git -C $(CURDIR) describe --tags --long --dirty \
	--match 'v[0-9]*' 2>/dev/null | \
	sed 's/^v//; s/-\([0-9]*\)-g/+\1.g/; s/-dirty$$/.dirty/' | grep . || \
	git -C $(CURDIR) describe --always --dirty 2>/dev/null | \
	sed "s/^/0+$$(git -C $(CURDIR) rev-list --count HEAD).g/; \
	     s/-dirty$$/.dirty/")
need_version = $(if $(VERSION),,$(error no version: not a git tree? set VERSION))

version:
	$(need_version)
	@echo $(VERSION)

dkms_src = $(DESTDIR)/usr/src/rdma-cm-$(VERSION)
# What DKMS builds from: no tests, no test scripts.
dkms_files = Kbuild Makefile LICENSE README.md dkms.conf drivers include \
	net scripts/check-symvers scripts/lib.sh
# In a git tree its tracked files, in a copy (the package's build) all.
is_git_top = $(filter $(CURDIR),$(shell git -C $(CURDIR) rev-parse \
	--show-toplevel 2>/dev/null))
dkms_list = $(if $(is_git_top),git -C $(CURDIR) ls-files -z -- $(dkms_files), \
	find $(dkms_files) -type f -print0)

dkms-source:
	$(need_version)
	rm -rf $(dkms_src) && mkdir -p $(dkms_src)
	cd $(CURDIR) && $(dkms_list) | tar --null -T - -cf - | \
		tar -C $(dkms_src) -xf -
	sed -i 's/#MODULE_VERSION#/$(VERSION)/' $(dkms_src)/dkms.conf

DEBDIR ?= $(CURDIR)/deb
deb_src = $(DEBDIR)/rdma-cm-$(VERSION)

# A binary-only build of the package, from a copy of the tracked files
# and a changelog that carries the version.
deb:
	$(need_version)
	rm -rf $(deb_src) $(DEBDIR)/rdma-cm[-_]* && mkdir -p $(deb_src)
	git -C $(CURDIR) ls-files -z ':!:.ci' | \
		(cd $(CURDIR) && tar --null -T - -cf -) | tar -C $(deb_src) -xf -
	printf '%s\n' 'rdma-cm ($(VERSION)) unstable; urgency=medium' '' \
		'  * Built from git $(VERSION).' '' \
		" -- rdma-cm maintainers <root@localhost>  $$(date -R)" \
		> $(deb_src)/debian/changelog
	cd $(deb_src) && dpkg-buildpackage -b -us -uc
	@ls $(DEBDIR)/*.deb

check interop demo bench diff mutate: deps
deps:
	$(CURDIR)/scripts/install-deps

check:
	scripts/check

interop:
	tests/interop/run

demo:
	scripts/demo

bench:
	scripts/bench $(BENCH_ARGS)

diff:
	scripts/diff

mutate:
	tests/mutation/run $(MUTATE_ARGS)

test-kernel:
	scripts/test-kernel

help:
	@sed -n "s/^##  //p" $(firstword $(MAKEFILE_LIST))

.PHONY: modules check-built install uninstall dkms-build clean version \
	dkms-source deb deps check interop demo bench diff mutate test-kernel \
	help
