# RAMster: pooled RAM for a cluster of Linux VMs.  See README.md.
#
#   make            packages, guest kernel (cached), modules, image, tools
#   make demo       the main job: the default cluster up through libvirt
#   make test       make, make image-stock, then every test; ends "N passed, N failed"
#   make bench      swap, file scan, frame security and backend benches into bench/results/
#   make check      checkpatch --strict and sparse on the project's code
#   make dkms       memory-server modules for Debian's stock kernel, build/stock/
#   make image-stock  dkms, Debian's kernel and a memory-server image, build/stock/
#   make clean

KDIR = $(shell kernel/build.sh --print-dir)
FAST_KDIR = $(shell kernel/build.sh --fast --print-dir)
BUILD = build
# The fast kernel's modules and image (tests that move many pages).
FAST = $(BUILD)/fast
CLUSTER ?= libvirt-xml/default.cluster
TOOL = tools/ramster-cluster/ramster-cluster
GUEST_BINS = $(BUILD)/swapcheck $(BUILD)/r2inject $(BUILD)/tcpping \
	$(BUILD)/fcheck
MODULES = tests/probe/tmem_probe.ko r2net/r2net.ko tests/r2echo/r2echo.ko \
	tests/tmemclient/tmemclient.ko backend-node/ramster_backend.ko \
	frontend/ramster_frontend.ko tests/zbench/zbench.ko
MODULE_DIRS = tests/probe r2net tests/r2echo tests/tmemclient backend-node \
	frontend tests/zbench
GUEST_CFLAGS = -static -O2 -Wall -Wextra -Werror

.PHONY: all deps kernel modules image kernel-fast modules-fast image-fast tools demo down test check clean help bench bench-r2net bench-backend bench-swap bench-security dkms image-stock

all: image image-fast tools

help:
	@sed -n '3,10p' Makefile

deps:
	@scripts/deps.sh

kernel: deps
	@kernel/build.sh >/dev/null
	@mkdir -p $(BUILD)
	@ln -sfn $(KDIR) $(BUILD)/linux

modules: kernel
	for m in $(MODULE_DIRS); do \
		$(MAKE) -C $(KDIR) M=$(CURDIR)/$$m W=1 modules || exit 1; \
	done

# The fast kernel's modules, built in a copy of their sources: Kbuild
# keeps its objects beside them.  tar keeps the times, so make only
# rebuilds what changed.
kernel-fast: deps
	@kernel/build.sh --fast >/dev/null

modules-fast: kernel-fast
	@mkdir -p $(FAST)/src
	@tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*' --exclude=Module.symvers \
		--exclude=modules.order shared-abi $(MODULE_DIRS) | \
		tar -x -C $(FAST)/src
	for m in $(MODULE_DIRS); do \
		$(MAKE) -C $(FAST_KDIR) M=$(CURDIR)/$(FAST)/src/$$m W=1 modules || exit 1; \
	done

image-fast: modules-fast $(GUEST_BINS) tools
	guest/mkinitramfs.sh $(FAST)/initramfs.cpio.gz \
		$(addprefix $(FAST)/src/,$(MODULES)) -- $(GUEST_BINS) \
		tools/ramsterctl/ramsterctl
	@ln -sfn $(FAST_KDIR)/arch/x86/boot/bzImage $(FAST)/bzImage

$(BUILD)/swapcheck $(BUILD)/fcheck: tests/guest-bin/pagepat.h
$(BUILD)/r2inject: GUEST_CFLAGS += -Ishared-abi -Itests/r2echo
$(BUILD)/r2inject: shared-abi/r2net_wire.h shared-abi/abi_types.h \
	tests/guest-bin/blake2s.h tests/guest-bin/poly1305.h tests/r2echo/r2echo.h

$(BUILD)/%: tests/guest-bin/%.c | deps
	@mkdir -p $(BUILD)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

image: modules $(GUEST_BINS) tools
	guest/mkinitramfs.sh $(BUILD)/initramfs.cpio.gz $(MODULES) -- $(GUEST_BINS) \
		tools/ramsterctl/ramsterctl
	@ln -sf linux/arch/x86/boot/bzImage $(BUILD)/bzImage

tools: deps
	@$(MAKE) -s -C tools/ramster-cluster
	@$(MAKE) -s -C tools/ramsterctl

demo: all
	scripts/demo.sh $(CLUSTER)

down: tools
	scripts/demo.sh --down $(CLUSTER)

test: all image-stock
	tests/run

bench: all
	bench/swap.sh
	bench/security.sh
	bench/backend.sh

bench-r2net: all
	bench/r2net.sh

bench-backend: all
	bench/backend.sh

bench-swap: all
	bench/swap.sh

bench-security: all
	bench/security.sh

# A memory server's modules, r2net.ko and ramster_backend.ko, built with
# DKMS (package ramster-server) against Debian's linux-headers-amd64, not
# the project's kernel: build/stock/*.ko, the kernel in build/stock/version.
dkms: deps
	dkms/build.sh

# A memory server on Debian's own kernel: its vmlinuz (linux-image-VERSION
# fetched and unpacked once into /var/cache/ramster/stock-VERSION/, never
# installed) and an initramfs with its virtio and configfs modules and
# make dkms's r2net.ko and ramster_backend.ko: build/stock/vmlinuz and
# build/stock/initramfs.cpio.gz, for nodes with "image = stock".
image-stock: dkms $(GUEST_BINS) tools
	guest/mkstock.sh $(BUILD)/stock $(GUEST_BINS) tools/ramsterctl/ramsterctl

check: kernel
	tests/host/50-kernel-style.sh

clean:
	-for m in $(MODULE_DIRS); do $(MAKE) -s -C $(KDIR) M=$(CURDIR)/$$m clean; done
	rm -rf $(BUILD) tests/out
	-$(MAKE) -s -C tools/ramster-cluster clean
	-$(MAKE) -s -C tools/ramsterctl clean
