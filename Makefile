# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch: libbpf CO-RE tool for page_pool inflight state.
# Layout and idioms follow libbpf-bootstrap: OUTPUT dir, V=1, pattern rules
# .bpf.c -> .bpf.o -> .skel.h, dependency files. The BPF side builds against
# the checked-in vmlinux/<arch>/vmlinux.h, never the build host's kernel.

OUTPUT ?= .output
prefix ?= /usr/local
DESTDIR ?=
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
CC ?= cc
PKG_CONFIG ?= pkg-config

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error ppwatch has a vmlinux.h for x86 and arm64 only, not '$(ARCH)')
endif
VMLINUX := vmlinux/$(ARCH)/vmlinux.h

VERSION := $(shell cat VERSION)

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s%s\n' "$(1)" "$(patsubst $(abspath $(OUTPUT))/%,%,$(2))" "$(if $(3), $(3))";
	MAKEFLAGS += --no-print-directory
endif

# clang's own system include dirs, so <asm/...> resolves on every distro
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

BPFCFLAGS := -g -O2 -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	-I$(dir $(VMLINUX)) -Ibpf $(CLANG_BPF_SYS_INCLUDES)
CFLAGS ?= -g -O2
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror -D_GNU_SOURCE -DPPWATCH_VERSION='"$(VERSION)"'
CPPFLAGS += -I$(OUTPUT) -Ibpf -Icli
LDLIBS += -lbpf -lelf -lz -lmnl -lyaml -lm

# ledger.bpf.c defines the shared maps: the linker wants it first
BPF_FAMILIES := ledger lifecycle discover holders items
BPF_OBJS := $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_FAMILIES))
SKEL := $(OUTPUT)/ppwatch.skel.h

# cli/ splits into the pure model (unit-tested without root) and the rest
MODEL_SRCS := cli/model.c cli/output.c cli/json.c cli/util.c cli/render.c \
	cli/rules.c cli/rules_eval.c cli/verdict.c cli/report_fmt.c cli/attrib.c cli/render_scan.c cli/prom.c cli/http.c \
	cli/lifecycle.c cli/render_life.c cli/jsonp.c cli/postmortem.c
CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(patsubst cli/%.c,$(OUTPUT)/cli/%.o,$(CLI_SRCS))
MODEL_OBJS := $(patsubst cli/%.c,$(OUTPUT)/cli/%.o,$(MODEL_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

LAB_BINS := $(OUTPUT)/lab/ppgen $(OUTPUT)/lab/xdp_pass.bpf.o

MAN_SRCS := $(wildcard docs/*.rst)
MAN_PAGES := $(patsubst docs/%.rst,$(OUTPUT)/man/%.8,$(filter-out docs/common_options.rst,$(MAN_SRCS)))

.PHONY: all
all: $(OUTPUT)/ppwatch $(LAB_BINS)

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/cli $(OUTPUT)/tests $(OUTPUT)/lab $(OUTPUT)/man $(OUTPUT)/bench:
	$(call msg,MKDIR,$@)
	$(Q)mkdir -p $@

# --- BPF ---------------------------------------------------------------------
$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $(@:.bpf.o=.tmp.bpf.o)
	$(Q)$(LLVM_STRIP) -g $(@:.bpf.o=.tmp.bpf.o)
	$(Q)cp $(@:.bpf.o=.tmp.bpf.o) $@

# one skeleton for every hook family, linked like retsnoop does
$(OUTPUT)/ppwatch.bpf.o: $(BPF_OBJS)
	$(call msg,LINK-BPF,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUTPUT)/ppwatch.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ppwatch_bpf > $@

# --- user space --------------------------------------------------------------
$(OUTPUT)/cli/%.o: cli/%.c $(SKEL) | $(OUTPUT)/cli
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(OUTPUT)/ppwatch: $(CLI_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# --- lab (tests/lab) ----------------------------------------------------------
$(OUTPUT)/lab/ppgen: tests/lab/ppgen.c | $(OUTPUT)/lab
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/lab/xdp_pass.bpf.o: tests/lab/xdp_pass.bpf.c | $(OUTPUT)/lab
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@

# --- tests -------------------------------------------------------------------
$(OUTPUT)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/fixtures.h $(MODEL_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit $< $(MODEL_OBJS) -lyaml -lm -o $@

.PHONY: unit
unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(OUTPUT)/tests

.PHONY: test
test: deps all $(UNIT_BINS)
	$(Q)OUTPUT=$(abspath $(OUTPUT)) tests/run.sh

.PHONY: demo
demo: deps all
	$(Q)OUTPUT=$(abspath $(OUTPUT)) tests/lab/demo.sh

# --- bench -----------------------------------------------------------------
$(OUTPUT)/bench/count.bpf.o: bench/count.bpf.c $(VMLINUX) | $(OUTPUT)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(OUTPUT)/bench/count.skel.h: $(OUTPUT)/bench/count.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name count_bpf > $@

$(OUTPUT)/bench/ppbench: bench/ppbench.c $(OUTPUT)/bench/count.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) -I$(OUTPUT)/bench $< -lbpf -lelf -lz -o $@

.PHONY: bench
bench: all $(OUTPUT)/bench/ppbench
	$(Q)OUTPUT=$(abspath $(OUTPUT)) bench/run.sh $(BENCH_ARGS)

# --- docs --------------------------------------------------------------------
$(OUTPUT)/man/%.8: docs/%.rst docs/common_options.rst | $(OUTPUT)/man
	$(call msg,MAN,$@)
	$(Q)rst2man --halt=warning $< > $@

.PHONY: man
man: $(MAN_PAGES)

# --- set-up and install ----------------------------------------------------------
.PHONY: deps
deps:
	$(Q)scripts/deps.sh

.PHONY: install
install: all man
	$(call msg,INSTALL,$(DESTDIR)$(prefix))
	$(Q)install -D -m 0755 $(OUTPUT)/ppwatch $(DESTDIR)$(prefix)/sbin/ppwatch
	$(Q)install -d $(DESTDIR)$(prefix)/share/man/man8
	$(Q)install -m 0644 $(MAN_PAGES) $(DESTDIR)$(prefix)/share/man/man8/

.PHONY: vmlinux
vmlinux:
	$(Q)scripts/gen-vmlinux.sh $(VMLINUX)

.PHONY: clean
clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT)

.PHONY: help
help:
	@echo 'ppwatch $(VERSION): see README.md'
	@echo
	@echo '  make            build ppwatch and the lab tools into $(OUTPUT)/'
	@echo '  make deps       install every Debian package the build and tests need (root)'
	@echo '  make demo       run the self-contained lab and ppwatch top on it (root)'
	@echo '  make test       run the whole test suite: unit, BPF, lab integration (root)'
	@echo '  make unit       run the unit tests only (no root)'
	@echo '  make man        build the man pages into $(OUTPUT)/man'
	@echo '  make bench      per-event cost of the hooks vs a counting-only program (root)'
	@echo '  make install    install ppwatch and man pages (DESTDIR=, prefix=$(prefix))'
	@echo '  make vmlinux    regenerate $(VMLINUX) from /sys/kernel/btf/vmlinux'
	@echo '  make clean      remove $(OUTPUT)'
	@echo
	@echo '  V=1             show the full commands'

.DELETE_ON_ERROR:
.SECONDARY:

-include $(wildcard $(OUTPUT)/cli/*.d)

# the kernel series' build-and-boot rig (issue: patches/ and the VM tests)
-include kernel/kernel.mk
