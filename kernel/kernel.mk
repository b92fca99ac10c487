# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Kernel series rig (included by the top-level Makefile). See kernel/README.md.
#
#   make kernel-test            build (or fetch) the kernels of kernel/matrix's
#                               set (set=test: the lines 'make test' boots),
#                               boot each under qemu and run tests/vm
#                               (non-zero exit on any failure)
#   make test-matrix            the same for every line of kernel/matrix, then
#                               the Results of kernel/README.md rewritten
#                               from the run, then kernel-patches-check
#   make kernel-build           prepare the trees, build/fetch the kernels
#   make kernel-patches-check   git am, checkpatch --strict, YNL regen and W=1
#                               checks of patches/ (no VM)
#   make kernel-bisect          build the patched kernel at every patch of the
#                               series (slow: one incremental build per patch)
#
# Knobs: KERNEL_WORK (trees, build dirs, package kernels, logs; default the
# checkout's own, kernel/workdir.sh), PREREQ_DIR (default kernel/prereq),
# KERNEL_JOBS (make -j), VM_TIMEOUT (seconds per VM boot, default 1800;
# VM_SILENCE, environment: seconds without console output, 300),
# KERNEL_SET (test: the set=test lines, default; matrix: every line),
# KERNEL_FLAVORS (names of kernel/matrix lines, 'all' for every one;
# overrides KERNEL_SET), KERNEL_MATRIX (default kernel/matrix).
# 'make test' runs kernel-test through tests/run.sh's "kernel" suite.

# empty: the scripts derive the checkout's own (kernel/workdir.sh)
KERNEL_WORK ?=
PREREQ_DIR ?= $(abspath kernel/prereq)
KERNEL_JOBS ?= $(shell nproc)
VM_TIMEOUT ?= 1800
KERNEL_FLAVORS ?=
KERNEL_SET ?= test
KERNEL_MATRIX ?= $(abspath kernel/matrix)

KERNEL_ENV = $(if $(KERNEL_WORK),KERNEL_WORK=$(KERNEL_WORK)) KERNEL_MATRIX=$(KERNEL_MATRIX)
KERNEL_RIG_ENV = $(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) \
	KERNEL_JOBS=$(KERNEL_JOBS) VM_TIMEOUT=$(VM_TIMEOUT) KERNEL_FLAVORS="$(KERNEL_FLAVORS)" \
	PPWATCH_BIN=$(abspath $(OUTPUT))/ppwatch PPKINDS_BIN=$(abspath $(OUTPUT))/lab/ppkinds
KERNEL_RIG = $(KERNEL_RIG_ENV) KERNEL_SET=$(KERNEL_SET) kernel/rig.sh

.PHONY: kernel-list kernel-prepare kernel-build kernel-initramfs kernel-boot kernel-test \
	kernel-patches-check kernel-bisect kernel-report test-matrix

kernel-list:
	$(Q)$(KERNEL_RIG) list

kernel-prepare: deps
	$(Q)$(KERNEL_RIG) prepare

kernel-build: kernel-prepare
	$(Q)$(KERNEL_RIG) build

kernel-initramfs: kernel-prepare $(OUTPUT)/ppwatch $(OUTPUT)/lab/ppkinds
	$(Q)$(KERNEL_RIG) initramfs

kernel-boot: kernel-initramfs
	$(Q)$(KERNEL_RIG) boot

kernel-test: deps $(OUTPUT)/ppwatch $(OUTPUT)/lab/ppkinds
	$(Q)$(KERNEL_RIG) test

# every line of the matrix, then its Results and Times in kernel/README.md
# (commit them: the tables say the date, the commit and each line's kernel),
# then kernel-patches-check: both series patch by patch on their bases (too
# long for make test's budget, kernel/README.md Times)
test-matrix: deps $(OUTPUT)/ppwatch $(OUTPUT)/lab/ppkinds
	$(Q)$(KERNEL_RIG_ENV) KERNEL_SET=matrix kernel/rig.sh test; rc=$$?; \
	$(KERNEL_ENV) kernel/report.sh --update kernel/README.md || rc=1; \
	$(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh || rc=1; exit $$rc

kernel-patches-check: kernel-prepare
	$(Q)$(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh

kernel-bisect: kernel-prepare
	$(Q)$(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh --bisect

# the Results and Times of kernel/README.md, from the last run's logs
kernel-report:
	$(Q)$(KERNEL_ENV) kernel/report.sh --update kernel/README.md
