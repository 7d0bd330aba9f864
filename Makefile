# SPDX-License-Identifier: GPL-2.0
# meminspect: top-level build. See README.md; `make help` lists the targets.
#
#   make                 module against KDIR (default: the running kernel's build tree, from
#                        linux-headers-RELEASE) + reader; stops at once without it
#   make KERNEL=6.1      module and helper against a matrix kernel (5.10 6.1 6.12 7.3 6.12-rt
#                        6.1-arm64 6.12-arm64 7.3-arm64, cross-built),
#                        fetched into the cache on demand; output in build/KERNEL/
#   make run             set up, build, boot the default kernel in a VM, print the full report
#   make check           lint + the whole selftest suite on every kernel, PREEMPT_RT, arm64 and the debug kernel
#                        (KASAN, lockdep, kmemleak); KERNELS="6.1" for a subset

TOP := $(CURDIR)
KERNELS ?= 5.10 6.1 6.12 7.3 6.12-rt 6.12-arm64 6.1-arm64 7.3-arm64 debug
RUN_KERNEL ?= 6.1
KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=

MODULE_SRC := $(wildcard module/*.c module/*.h) module/Kbuild $(wildcard module/*.sh)
# The root Kbuild (obj-m += module/): make -C KDIR M=$(TOP) builds module/meminspect.ko
HELPER_SRC := $(wildcard selftests/helper/*.c selftests/helper/*.h) selftests/helper/Kbuild
# The KUnit module: its own files and the module's pure sources ("# pure:" in its Kbuild)
KUNIT_SRC := $(wildcard module/kunit/*.c module/kunit/*.h) module/kunit/Kbuild \
	$(addprefix module/,$(shell sed -n 's/^# pure: //p' module/kunit/Kbuild))

.PHONY: all module userspace userspace-static selftests-progs cross-progs build-kernel run check lint \
	install uninstall dkms-install dkms-uninstall bundle deb clean help

ifdef KERNEL
all: build-kernel userspace
module: build-kernel
else
all: module userspace
module:
	$(MAKE) -C "$(KDIR)" M=$(TOP) modules
# A lab machine: make, make install and make dkms-install build for the running kernel (or
# KDIR's) and need its headers. Without them they stop here, before anything is built: a
# matrix kernel (fetched, built in a build root, booted in a VM) is asked for with KERNEL=
# only, as make check, make run, make lint and the scripts do, and the other targets do not
# read KDIR. $(wildcard .../Makefile): Debian's linux-image ships the build symlink, which
# dangles until the headers are installed.
KDIR_GOALS := all module install dkms-install
ifneq ($(filter $(KDIR_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(KDIR)/Makefile),)
ifeq ($(origin KDIR),file)
$(error meminspect: no headers for the running kernel $(shell uname -r) (no $(KDIR)): \
	install them with 'apt-get install linux-headers-$(shell uname -r)' and run make again \
	(or KDIR=DIR for another kernel's build tree, KERNEL=6.1 for a matrix kernel in a VM))
else
$(error meminspect: no kernel build tree at KDIR=$(KDIR)$(if $(filter /lib/modules/%/build,$(KDIR)),: \
	install it with 'apt-get install linux-headers-$(patsubst /lib/modules/%/build,%,$(KDIR))'))
endif
endif
endif
endif

userspace userspace-static:
	$(MAKE) -s -C userspace

selftests-progs:
	$(MAKE) -s -C selftests

# The static reader and test programs for an arm64 matrix kernel (KERNEL=6.12-arm64 & co.),
# cross-built in bookworm-cross (scripts/build-roots; for every arm64 kernel: static programs
# do not depend on the kernel) from the same Makefiles
# into build/KERNEL/userspace/ and build/KERNEL/selftests/progs/: the host's x86 binaries in
# userspace/ and selftests/progs/ are untouched.
CROSS_MAKE = scripts/in-root bookworm-cross -- make -s CC=aarch64-linux-gnu-gcc
cross-progs:
	@case "$(KERNEL)" in *-arm64) ;; *) echo "cross-progs needs KERNEL=...-arm64" >&2; exit 2 ;; esac
	@mkdir -p build/$(KERNEL)/userspace build/$(KERNEL)/selftests/progs
	$(CROSS_MAKE) -C $(TOP)/build/$(KERNEL)/userspace -f $(TOP)/userspace/Makefile \
		--eval 'vpath %.c $(TOP)/userspace' --eval 'vpath %.h $(TOP)/userspace' meminspect
	$(CROSS_MAKE) -C $(TOP)/build/$(KERNEL)/selftests -f $(TOP)/selftests/Makefile \
		--eval 'vpath %.c $(TOP)/selftests' --eval 'vpath %.h $(TOP)/selftests' all

# The module and the selftests' helper module for one matrix kernel, built in build/KERNEL/
# from symlinks to the sources so several kernels' objects never mix.
# Rebuilt when the kernel is: a module built against another build of the same release is
# refused at insmod (its BTF is split BTF over the old vmlinux's: "failed to validate module
# BTF"); the cache entry's ready file is made anew whenever the kernel is fetched or built.
# KBUILD_CHECK=C=1 (scripts/lint): sparse on every file compiled; lint empties the directory
# first, so that is every file, and the lanes of make check then find the modules built.
# Where lint built the same inputs clean before, the products are unpacked instead of built
# (scripts/build-replay: the inputs it hashes; nothing is replayed with MI_NO_CCACHE=1).
MI_CACHE ?= $(or $(MEMINSPECT_CACHE),/var/cache/meminspect)
KERNEL_BUILT := $(wildcard $(MI_CACHE)/kernels/$(KERNEL)/ready)
build-kernel: build/$(KERNEL)/module/meminspect.ko build/$(KERNEL)/helper/meminspect_test.ko \
	build/$(KERNEL)/kunit/.built

build/$(KERNEL)/module/meminspect.ko: $(MODULE_SRC) $(KERNEL_BUILT)
	@test -n "$(KERNEL)" || { echo "build-kernel needs KERNEL=5.10|6.1|6.12|7.3|6.12-rt|6.1-arm64|6.12-arm64|7.3-arm64|debug" >&2; exit 2; }
	@mkdir -p $(@D) && for f in $(MODULE_SRC); do ln -sf $(TOP)/$$f $(@D)/; done
	scripts/build-replay restore $(KERNEL) $(notdir $(@D)) $(@D) || \
		scripts/kbuild $(KERNEL) $(@D) W=1 $(KBUILD_CHECK) modules

build/$(KERNEL)/helper/meminspect_test.ko: $(HELPER_SRC) $(KERNEL_BUILT)
	@mkdir -p $(@D) && for f in $(HELPER_SRC); do ln -sf $(TOP)/$$f $(@D)/; done
	scripts/build-replay restore $(KERNEL) $(notdir $(@D)) $(@D) || \
		scripts/kbuild $(KERNEL) $(@D) W=1 $(KBUILD_CHECK) modules

# meminspect_kunit.ko only where the kernel has CONFIG_KUNIT (module/kunit/Kbuild decides);
# the stamp stands for "built, or nothing to build" on kernels without it.
build/$(KERNEL)/kunit/.built: $(KUNIT_SRC) $(KERNEL_BUILT)
	@mkdir -p $(@D) && for f in $(KUNIT_SRC); do ln -sf $(TOP)/$$f $(@D)/; done
	scripts/build-replay restore $(KERNEL) $(notdir $(@D)) $(@D) || \
		scripts/kbuild $(KERNEL) $(@D) W=1 $(KBUILD_CHECK) modules
	@touch $@

# One tarball with everything a VM running that kernel needs (docs/bundle.md):
# make bundle KERNEL=7.3, or KDIR=/path/to/kernel/build.
bundle:
	scripts/bundle $(if $(KERNEL),--kernel $(KERNEL),--kdir $(KDIR))

# Debian packages meminspect-dkms and meminspect in build/deb/ (docs/deb.md).
deb:
	scripts/deb

run:
	scripts/setup
	scripts/vm-run --kernel $(RUN_KERNEL) --out build/vm/run -- meminspect report

check:
	scripts/setup
	scripts/check $(KERNELS)

lint:
	scripts/setup
	scripts/lint $(KERNELS)

# For a lab machine running the kernel it is installed on (KDIR=/lib/modules/RELEASE/build for
# another one; DESTDIR stages everything, module included, for packaging).
KVER = $(shell basename $$(dirname "$(KDIR)"))
VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
install: module userspace
	@# not modules_install: from the root Kbuild it would keep the subdirectory (extra/module/)
	install -D -m 0644 module/meminspect.ko $(DESTDIR)/lib/modules/$(KVER)/extra/meminspect.ko
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	install -D -m 0755 userspace/meminspect $(DESTDIR)$(PREFIX)/sbin/meminspect
	install -D -m 0644 userspace/meminspect.8 $(DESTDIR)$(PREFIX)/share/man/man8/meminspect.8

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/meminspect.ko
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	rm -f $(DESTDIR)$(PREFIX)/sbin/meminspect $(DESTDIR)$(PREFIX)/share/man/man8/meminspect.8

# DKMS: the module's sources and dkms.conf in /usr/src/meminspect-VERSION, then add, build and
# install for the running kernel (DKMS rebuilds it for every kernel installed later), signed
# with DKMS's key, made first if need be (scripts/dkms-mok key); under Secure Boot with that key
# not enrolled, the command that enrolls it (scripts/dkms-mok hint).
dkms-install: userspace
	rm -rf /usr/src/meminspect-$(VERSION)
	install -d /usr/src/meminspect-$(VERSION)/module
	install -m 0644 dkms.conf Kbuild /usr/src/meminspect-$(VERSION)/
	install -m 0644 $(MODULE_SRC) /usr/src/meminspect-$(VERSION)/module/
	dkms add -m meminspect -v $(VERSION)
	scripts/dkms-mok key
	dkms build -m meminspect -v $(VERSION)
	dkms install -m meminspect -v $(VERSION)
	install -D -m 0755 userspace/meminspect $(DESTDIR)$(PREFIX)/sbin/meminspect
	install -D -m 0644 userspace/meminspect.8 $(DESTDIR)$(PREFIX)/share/man/man8/meminspect.8
	@scripts/dkms-mok hint

dkms-uninstall:
	-dkms remove -m meminspect -v $(VERSION) --all
	rm -rf /usr/src/meminspect-$(VERSION)
	rm -f $(DESTDIR)$(PREFIX)/sbin/meminspect $(DESTDIR)$(PREFIX)/share/man/man8/meminspect.8

clean:
	rm -rf build
	-$(MAKE) -s -C userspace clean
	-$(MAKE) -s -C selftests clean
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c module/.*.cmd \
		module/modules.order module/Module.symvers .*.cmd modules.order Module.symvers

help:
	@sed -n '2,11s/^# \{0,1\}//p' Makefile
