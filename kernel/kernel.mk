# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Kernel series rig (included by the top-level Makefile). See kernel/README.md.
#
#   make kernel-test            build (or fetch) the kernels of kernel/matrix's
#                               set (set=test: the lines 'make test' boots),
#                               boot each under qemu and run tests/vm
#                               (non-zero exit on any failure)
#   make test-matrix            every line of kernel/matrix that its committed
#                               result record (kernel/results) does not show
#                               passed with today's inputs, stale package
#                               lines first, cold builds last, within
#                               MATRIX_BUDGET_S (exit 3: lines left, run
#                               again); then kernel-patches-check if its
#                               record is stale; then the Results and Times
#                               of kernel/README.md from the records
#                               (commit kernel/results and the README)
#   make kernel-report          the Results and Times from the records
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
# overrides KERNEL_SET), KERNEL_MATRIX (default kernel/matrix),
# MATRIX_BUDGET_S (seconds test-matrix may start lines within; empty: no
# limit).
# 'make test' runs kernel-test through tests/run.sh's "kernel" suite.

# empty: the scripts derive the checkout's own (kernel/workdir.sh)
KERNEL_WORK ?=
PREREQ_DIR ?= $(abspath kernel/prereq)
KERNEL_JOBS ?= $(shell nproc)
VM_TIMEOUT ?= 1800
KERNEL_FLAVORS ?=
KERNEL_SET ?= test
KERNEL_MATRIX ?= $(abspath kernel/matrix)
MATRIX_BUDGET_S ?=

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

# every line of the matrix not up to date (its record), then
# kernel-patches-check if stale (both series patch by patch on their bases:
# too long for make test's budget, kernel/README.md Times), then the
# Results and Times of kernel/README.md from the records; a rig that died
# (no matrix.done) leaves the tables as they were
test-matrix: deps $(OUTPUT)/ppwatch $(OUTPUT)/lab/ppkinds
	$(Q)$(KERNEL_RIG_ENV) KERNEL_SET=matrix RIG_RESUME=1 MATRIX_BUDGET_S=$(MATRIX_BUDGET_S) \
		kernel/rig.sh test; rc=$$?; \
	if [ $$rc -ne 3 ]; then $(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh --if-stale || rc=1; fi; \
	if [ -f "$$($(KERNEL_ENV) kernel/rig.sh workdir)/logs/matrix.done" ]; then \
		$(KERNEL_ENV) kernel/report.sh --update kernel/README.md || rc=1; \
	else echo "test-matrix: the rig did not finish: kernel/README.md's tables left as they were" >&2; fi; \
	exit $$rc

kernel-patches-check: kernel-prepare
	$(Q)$(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh

kernel-bisect: kernel-prepare
	$(Q)$(KERNEL_ENV) PREREQ_DIR=$(PREREQ_DIR) KERNEL_JOBS=$(KERNEL_JOBS) \
		kernel/check-patches.sh --bisect

# the Results and Times of kernel/README.md, from the result records
kernel-report:
	$(Q)$(KERNEL_ENV) kernel/report.sh --update kernel/README.md
