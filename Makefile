# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ppwatch: libbpf CO-RE tool for page_pool inflight state.
# Layout and idioms follow libbpf-bootstrap: OUTPUT dir, V=1, pattern rules
# .bpf.c -> .bpf.o -> .skel.h, dependency files. The BPF side builds against
# the checked-in vmlinux/<arch>/vmlinux.h, never the build host's kernel.
#
# Flags: CFLAGS and LDFLAGS are yours (default -g -O2); EXTRA_CFLAGS and
# EXTRA_LDFLAGS add to them; the project's own flags (-std=gnu11,
# -D_GNU_SOURCE, warnings) are always applied. WERROR=0 keeps warnings
# warnings.

OUTPUT ?= .output
prefix ?= /usr/local
DESTDIR ?=
sysconfdir ?= /etc
systemdunitdir ?= $(prefix)/lib/systemd/system
sysusersdir ?= $(prefix)/lib/sysusers.d
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
CC ?= cc
WERROR ?= 1

# The checked-in vmlinux.h is x86_64's; another architecture needs its own
# (make vmlinux on such a machine writes vmlinux/<arch>/vmlinux.h).
ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX := vmlinux/$(ARCH)/vmlinux.h
ifeq ($(filter vmlinux clean help,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(VMLINUX)),)
$(error no $(VMLINUX): ppwatch ships vmlinux/x86/vmlinux.h only; run 'make vmlinux' on a $(ARCH) machine with BTF to generate one)
endif
endif

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
PPW_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers $(if $(filter 1,$(WERROR)),-Werror) \
	-DPPWATCH_VERSION='"$(VERSION)"'
ALL_CFLAGS = $(PPW_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(EXTRA_LDFLAGS)
ALL_CPPFLAGS = -I$(OUTPUT) -Ibpf -Icli $(YNL_CPPFLAGS) $(CPPFLAGS)
# The libraries, by pkg-config name: the dynamic link takes their --libs,
# 'make static' their --static --libs (what each .a needs in turn).
LIB_PKGS := libbpf libelf zlib yaml-0.1 jansson libmicrohttpd gnutls libcrypt libseccomp libkdumpfile
ALL_LDLIBS = $(call pkg_libs,) -lm $(LDLIBS)
pkg_libs = $(shell $(PKG_CONFIG) $(1) --libs $(LIB_PKGS))
PKG_CONFIG ?= pkg-config
PYTHON ?= python3
# the libraries the pure folders use (unit tests and fuzz targets link these only)
PURE_LDLIBS := -lyaml -ljansson -lmicrohttpd -lgnutls -lcrypt -lm

# ledger.bpf.c defines the shared maps: the linker wants it first; holders.bpf.c
# the holder scan's, which queues.bpf.c and skbscan.bpf.c share (bpf/scan.bpf.h)
BPF_FAMILIES := ledger lifecycle discover holders queues skbscan items blocks stats
# the tracepoint programs again, counters only, for kernels without BPF
# atomic fetch/cmpxchg or bpf_loop (PPW_COMPAT, bpf/config.bpf.h)
BPF_COMPAT_FAMILIES := ledger lifecycle
BPF_OBJS := $(patsubst %,$(OUTPUT)/bpf/%.bpf.o,$(BPF_FAMILIES)) \
	$(patsubst %,$(OUTPUT)/bpf/%-compat.bpf.o,$(BPF_COMPAT_FAMILIES))
SKEL := $(OUTPUT)/ppwatch.skel.h

# the netlink client's YNL library and generated code (see "netlink" below)
LINUX_SOURCE ?= /usr/src/linux-source-6.12.tar.xz
# YNL= another build's: the tarball's files and the generated code do not
# depend on flags (make deb builds with Debian's flags and shares them)
YNL ?= $(OUTPUT)/ynl
YNL_TREE := $(YNL)/src
YNL_LIB := $(YNL_TREE)/tools/net/ynl/lib
YNL_SPEC := $(YNL_TREE)/Documentation/netlink/specs/netdev.yaml
YNL_GEN_HDRS := $(YNL)/gen/netdev-user.h $(YNL)/include/linux/netdev.h
YNL_OBJS := $(OUTPUT)/ynl-obj/ynl.o $(OUTPUT)/ynl-obj/netdev-user.o
# <linux/netdev.h> is the generated one: Debian 12's uapi headers predate page pools
YNL_CPPFLAGS = -I$(YNL)/include -I$(YNL)/gen -I$(YNL_LIB)
# third-party code: the kernel's warning set, never -Werror
YNL_CFLAGS = -std=gnu11 -D_GNU_SOURCE $(CFLAGS) $(EXTRA_CFLAGS)

# cli/ by role (README "How it works"): the pure folders are unit-tested
# without root and may not reach the kernel (tests/check-layout.sh)
PURE_DIRS := lib model output
IMPURE_DIRS := sources serve cmd
PURE_SRCS := $(foreach d,$(PURE_DIRS),$(wildcard cli/$(d)/*.c))
CLI_SRCS := $(wildcard cli/*.c) $(PURE_SRCS) $(foreach d,$(IMPURE_DIRS),$(wildcard cli/$(d)/*.c))
CLI_OBJS := $(patsubst cli/%.c,$(OUTPUT)/cli/%.o,$(CLI_SRCS))
PURE_OBJS := $(patsubst cli/%.c,$(OUTPUT)/cli/%.o,$(PURE_SRCS))
CLI_DIRS := $(addprefix $(OUTPUT)/cli/,$(PURE_DIRS) $(IMPURE_DIRS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
# the same unit tests under AddressSanitizer + UndefinedBehaviorSanitizer
# float-cast-overflow: not part of gcc's "undefined", and recorded values reach such casts
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
SAN_OUT := $(OUTPUT)/san
SAN_PURE_OBJS := $(patsubst cli/%.c,$(SAN_OUT)/cli/%.o,$(PURE_SRCS))
SAN_UNIT_BINS := $(patsubst tests/unit/%.c,$(SAN_OUT)/tests/%,$(UNIT_SRCS))

# fuzz targets (tests/fuzz): libFuzzer + ASan + UBSan over the pure objects,
# built with clang; libFuzzer is in Debian's libclang-rt-NN-dev
FUZZ_CC ?= clang
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -g -O1 -Wall -Wno-unused-parameter \
	-DPPWATCH_VERSION='"$(VERSION)"' $(FUZZ_SAN)
FUZZ_PURE_OBJS := $(patsubst cli/%.c,$(FUZZ_OUT)/cli/%.o,$(PURE_SRCS))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(wildcard tests/fuzz/fuzz_*.c))
# can this clang link a fuzzer? (evaluated only by the fuzz targets)
FUZZ_PROBE = printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
	$(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null

LAB_BINS := $(OUTPUT)/lab/ppgen $(OUTPUT)/lab/ppkinds $(OUTPUT)/lab/xdp_pass.bpf.o \
	$(OUTPUT)/lab/faultinj.so

MAN_SRCS := $(wildcard docs/*.rst)
MAN_PAGES := $(patsubst docs/%.rst,$(OUTPUT)/man/%.8,$(filter-out docs/common_options.rst,$(MAN_SRCS)))

.PHONY: all
all: $(OUTPUT)/ppwatch $(LAB_BINS)

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests $(OUTPUT)/lab $(OUTPUT)/man $(OUTPUT)/bench $(CLI_DIRS) \
$(SAN_OUT)/tests $(addprefix $(SAN_OUT)/cli/,$(PURE_DIRS)) $(addprefix $(FUZZ_OUT)/cli/,$(PURE_DIRS)):
	$(call msg,MKDIR,$@)
	$(Q)mkdir -p $@

# --- BPF ---------------------------------------------------------------------
# Each object depends on the headers it includes (clang -MMD), not on all of
# bpf/; an object without its .d file (built before it had one) is rebuilt.
# (named, so make does not take them for intermediate files it may skip)
BPF_DEPS := $(BPF_OBJS:.o=.d)
$(BPF_DEPS): ;
$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/bpf/%.bpf.d $(VMLINUX) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -MMD -MP -MT $@ -MF $(@:.bpf.o=.bpf.d) -c $< -o $(@:.bpf.o=.tmp.bpf.o)
	$(Q)$(LLVM_STRIP) -g $(@:.bpf.o=.tmp.bpf.o)
	$(Q)cp $(@:.bpf.o=.tmp.bpf.o) $@

$(OUTPUT)/bpf/%-compat.bpf.o: bpf/%.bpf.c $(OUTPUT)/bpf/%-compat.bpf.d $(VMLINUX) | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -DPPW_COMPAT -MMD -MP -MT $@ -MF $(@:.bpf.o=.bpf.d) -c $< \
		-o $(@:.bpf.o=.tmp.bpf.o)
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
# The skeleton is order-only: it must exist before the first compile, and
# the dependency files (-MMD) make exactly the objects that include it
# rebuild when it changes.
$(OUTPUT)/cli/%.o: cli/%.c | $(CLI_DIRS) $(SKEL)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The same C code at -O0 (make test): gcc's warnings differ by optimisation
# level (format-truncation at -O0), and 'make CFLAGS=-O0' is a debugging
# build people make; objects only, no link.
O0_OBJS := $(patsubst cli/%.c,$(OUTPUT)/O0/cli/%.o,$(CLI_SRCS))
$(OUTPUT)/O0/cli/%.o: cli/%.c | $(SKEL) $(YNL_GEN_HDRS)
	$(call msg,CC-O0,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(PPW_CFLAGS) -g -O0 -MMD -MP -c $< -o $@
-include $(O0_OBJS:.o=.d)

.PHONY: build-O0
build-O0: $(O0_OBJS)

$(OUTPUT)/ppwatch: $(CLI_OBJS) $(YNL_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $^ $(ALL_LDLIBS) -o $@

# --- netlink: the kernel's YNL library ------------------------------------------
# The one netlink client (sources/netlink.c) is the kernel's own YNL C
# library, tools/net/ynl/lib, with the netdev family's code and uapi header
# generated by ynl-gen-c.py from Documentation/netlink/specs/netdev.yaml:
# no hand-kept attribute ids, and nothing to link that Debian has no .a
# for (it ships no libmnl.a). Only those few files are taken out of Debian's
# linux-source-6.12 tarball (make deps installs it). Licences: the library
# is GPL-2.0 OR BSD-3-Clause, the spec and generated code (GPL-2.0 WITH
# Linux-syscall-note) OR BSD-3-Clause.
$(YNL)/.extracted:
	$(call msg,UNTAR,$(YNL_TREE),(YNL from $(LINUX_SOURCE)))
	$(Q)test -f $(LINUX_SOURCE) || { echo "no $(LINUX_SOURCE): run 'make deps' (linux-source-6.12)" >&2; exit 1; }
	$(Q)rm -rf $(YNL_TREE) && mkdir -p $(YNL_TREE)
	$(Q)tar -xJf $(LINUX_SOURCE) -C $(YNL_TREE) --strip-components=1 --wildcards \
		'*/tools/net/ynl/lib/*' '*/tools/net/ynl/ynl-gen-c.py' \
		'*/Documentation/netlink/specs/netdev.yaml' '*/Documentation/netlink/genetlink.yaml'
	$(Q)touch $(YNL_TREE)/MAINTAINERS # ynl-gen-c.py looks for the tree's top by this file
	$(Q)touch $@

$(YNL)/gen/netdev-user.h $(YNL)/gen/netdev-user.c $(YNL)/include/linux/netdev.h: $(YNL)/.extracted
	$(call msg,YNL-GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(PYTHON) $(YNL_TREE)/tools/net/ynl/ynl-gen-c.py --spec $(abspath $(YNL_SPEC)) \
		$(if $(filter %/netdev.h,$@),--mode uapi --header,--mode user \
		$(if $(filter %.h,$@),--header,--source)) -o $@

$(OUTPUT)/ynl-obj/ynl.o: $(YNL)/.extracted $(YNL_GEN_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(YNL_CPPFLAGS) $(CPPFLAGS) $(YNL_CFLAGS) -c $(YNL_LIB)/ynl.c -o $@

$(OUTPUT)/ynl-obj/netdev-user.o: $(YNL)/gen/netdev-user.c $(YNL_GEN_HDRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(YNL_CPPFLAGS) $(CPPFLAGS) $(YNL_CFLAGS) -c $< -o $@

# the netlink client includes the generated header
$(OUTPUT)/cli/sources/netlink.o: | $(YNL_GEN_HDRS)

# --- static: one artifact ----------------------------------------------------------
# make static: ppwatch with every library linked in, for hosts with no
# compiler and no -dev packages, and for initramfs images with no shared
# libraries at all. The dynamic binary's objects, each library's .a and
# what that .a needs in turn (pkg-config --static). The path is stable:
# $(OUTPUT)/static/ppwatch. Debug info is stripped, symbols kept.
# glibc's link warning about getaddrinfo() concerns host names: it would
# need glibc's NSS modules at run time; numeric addresses do not.
STATIC_BIN := $(OUTPUT)/static/ppwatch
STRIP ?= strip
# libmicrohttpd.a is built with HTTPS (GnuTLS), whose static link needs a
# libp11-kit.a Debian does not ship: with libmicrohttpd in LIB_PKGS the
# static link drops GnuTLS and its libraries for stand-ins (cli/static/no_tls.c)
STATIC_TLS_LIBS := -lgnutls -lp11-kit -lidn2 -lunistring -ltasn1 -lnettle -lhogweed -lgmp
STATIC_EXTRA_OBJS := $(if $(filter libmicrohttpd,$(LIB_PKGS)),$(OUTPUT)/static/no_tls.o)
# Debian ships libkdumpfile as a shared library only (no libkdumpfile.a,
# libaddrxlat.a): the static binary has cli/static/no_dump.c for
# sources/dump.c, and 'postmortem --vmcore' refuses in one line
STATIC_DUMP_LIBS := -lkdumpfile -laddrxlat -llzo2 -lsnappy -lzstd
STATIC_OBJS = $(filter-out $(OUTPUT)/cli/sources/dump.o,$(CLI_OBJS)) $(OUTPUT)/static/no_dump.o
STATIC_LDLIBS = $(filter-out $(if $(STATIC_EXTRA_OBJS),$(STATIC_TLS_LIBS)) $(STATIC_DUMP_LIBS),\
	$(call pkg_libs,--static)) -lm $(LDLIBS)

.PHONY: static
static: $(STATIC_BIN)

$(OUTPUT)/static:
	$(Q)mkdir -p $@

$(OUTPUT)/static/no_tls.o: cli/static/no_tls.c | $(OUTPUT)/static
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(OUTPUT)/static/no_dump.o: cli/static/no_dump.c | $(OUTPUT)/static
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(STATIC_BIN): $(STATIC_OBJS) $(YNL_OBJS) $(STATIC_EXTRA_OBJS) | $(OUTPUT)/static
	$(call msg,STATIC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -static $^ $(STATIC_LDLIBS) -o $@
	$(Q)$(STRIP) --strip-debug $@

# --- deb ----------------------------------------------------------------------------
# make deb: a Debian package, lintian-clean (scripts/mkdeb.sh): ppwatch in
# /usr/sbin built again with Debian's flags (dpkg-buildflags, all hardening;
# warnings stay warnings, as in any package build) and linked to the
# shared libraries its Depends names; man pages, bash completion, example
# rules, dashboards. The path is stable: $(DEB).
DEB_ARCH = $(shell dpkg --print-architecture)
DEB = $(OUTPUT)/deb/ppwatch_$(VERSION)_$(DEB_ARCH).deb
DEB_BUILD := $(OUTPUT)/deb/build
DEB_FLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get

.PHONY: deb
deb: man | $(YNL_GEN_HDRS)
	$(Q)$(MAKE) OUTPUT=$(abspath $(DEB_BUILD)) YNL=$(abspath $(YNL)) WERROR=0 \
		CFLAGS="$$($(DEB_FLAGS) CFLAGS)" CPPFLAGS="$$($(DEB_FLAGS) CPPFLAGS)" \
		LDFLAGS="$$($(DEB_FLAGS) LDFLAGS)" $(abspath $(DEB_BUILD))/ppwatch
	$(Q)scripts/mkdeb.sh $(DEB_BUILD)/ppwatch $(OUTPUT)/man $(VERSION) $(DEB)

# --- lab (tests/lab) ----------------------------------------------------------
$(OUTPUT)/lab/ppgen: tests/lab/ppgen.c tests/lab/labutil.h | $(OUTPUT)/lab
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $< -o $@

# transient faults injected from outside for the recorder's tests (LD_PRELOAD)
$(OUTPUT)/lab/faultinj.so: tests/lab/faultinj.c | $(OUTPUT)/lab
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) $< -ldl -o $@

$(OUTPUT)/lab/gate.bpf.o: tests/lab/gate.bpf.c $(VMLINUX) | $(OUTPUT)/lab
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(OUTPUT)/lab/gate.skel.h: $(OUTPUT)/lab/gate.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name gate_bpf > $@

$(OUTPUT)/lab/ppkinds: tests/lab/ppkinds.c tests/lab/labutil.h $(OUTPUT)/lab/gate.skel.h | $(OUTPUT)/lab
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(OUTPUT)/lab $(ALL_LDFLAGS) $< -lbpf -lelf -lz -o $@

$(OUTPUT)/lab/xdp_pass.bpf.o: tests/lab/xdp_pass.bpf.c | $(OUTPUT)/lab
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@

# --- tests -------------------------------------------------------------------
# Unit tests link every pure object: no list to keep.
$(OUTPUT)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/fixtures.h tests/unit/vmcore_fixture.h $(PURE_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -Itests/unit $< $(PURE_OBJS) $(ALL_LDFLAGS) $(PURE_LDLIBS) $(LDLIBS) -o $@

$(SAN_OUT)/cli/%.o: cli/%.c | $(addprefix $(SAN_OUT)/cli/,$(PURE_DIRS))
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@

$(SAN_OUT)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h tests/unit/fixtures.h tests/unit/vmcore_fixture.h $(SAN_PURE_OBJS) | $(SAN_OUT)/tests
	$(call msg,CC-SAN,$@)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(SAN_FLAGS) -Itests/unit $< $(SAN_PURE_OBJS) $(ALL_LDFLAGS) $(PURE_LDLIBS) $(LDLIBS) -o $@

.PHONY: unit unit-san san-objs
# named here so make keeps them (objects only a pattern rule needs are intermediate)
san-objs: $(SAN_PURE_OBJS)

unit: $(UNIT_BINS)
	$(Q)tests/run-unit.sh $(OUTPUT)/tests

unit-san: $(SAN_UNIT_BINS)
	$(Q)tests/run-unit.sh $(SAN_OUT)/tests unit-san

# --- fuzzing -------------------------------------------------------------------
$(FUZZ_OUT)/cli/%.o: cli/%.c | $(addprefix $(FUZZ_OUT)/cli/,$(PURE_DIRS))
	$(call msg,CC-FUZZ,$@)
	$(Q)$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

# the dump's BTF: libbpf parses it, sources/vmcore_btf.c finds the layout in it
$(FUZZ_OUT)/cli/sources/vmcore_btf.o: cli/sources/vmcore_btf.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_OUT)/fuzz_vmcore_btf: tests/fuzz/fuzz_vmcore_btf.c tests/fuzz/fuzz.h $(FUZZ_PURE_OBJS) \
		$(FUZZ_OUT)/cli/sources/vmcore_btf.o
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(ALL_CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -fsanitize=fuzzer \
		$< $(FUZZ_PURE_OBJS) $(FUZZ_OUT)/cli/sources/vmcore_btf.o $(PURE_LDLIBS) -lbpf -lelf -lz -o $@

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/fuzz_report.h tests/unit/fixtures.h tests/unit/vmcore_fixture.h $(FUZZ_PURE_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(ALL_CPPFLAGS) -Itests/fuzz -Itests/unit $(FUZZ_CFLAGS) -fsanitize=fuzzer \
		$< $(FUZZ_PURE_OBJS) $(PURE_LDLIBS) -o $@

# the targets when clang can build them; otherwise the fuzz check skips
.PHONY: fuzz-bins fuzz fuzz-merge fuzz-objs
# named here so make keeps them, as san-objs
fuzz-objs: $(FUZZ_PURE_OBJS)

fuzz-bins:
	$(Q)if $(FUZZ_PROBE); then $(MAKE) $(FUZZ_BINS); \
	else echo "  SKIP     fuzz targets: $(FUZZ_CC) cannot link libFuzzer (libclang-rt-14-dev)"; fi

# each target for FUZZ_SECONDS (60), one after the other
fuzz: fuzz-bins
	$(Q)OUTPUT=$(abspath $(OUTPUT)) tests/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-merge: fuzz-bins
	$(Q)OUTPUT=$(abspath $(OUTPUT)) tests/fuzz/run.sh --merge

.PHONY: test
# static and deb too: tests/integration/test_package.sh runs and installs them.
# The kernel layer's kernels are built meanwhile, in the background
# (kernel/prebuild.sh: tests/run.sh waits for them before the VMs).
TEST_BINS = all static deb build-O0 $(UNIT_BINS) $(SAN_UNIT_BINS) fuzz-bins
test: deps
	$(Q)OUTPUT=$(abspath $(OUTPUT)) kernel/prebuild.sh start
	$(Q)$(MAKE) --no-print-directory $(TEST_BINS) || \
		{ OUTPUT=$(abspath $(OUTPUT)) kernel/prebuild.sh stop; exit 1; }
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

$(OUTPUT)/bench/alt.bpf.o: bench/alt.bpf.c $(VMLINUX) | $(OUTPUT)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(OUTPUT)/bench/alt.skel.h: $(OUTPUT)/bench/alt.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name alt_bpf > $@

# ppbench --fold times the fold ppwatch runs: the model's own source
$(OUTPUT)/bench/ppbench: bench/ppbench.c $(OUTPUT)/bench/count.skel.h $(OUTPUT)/bench/alt.skel.h \
		cli/model/page_ledger.c cli/lib/vec.c
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(OUTPUT)/bench -Icli -Ibpf $< cli/model/page_ledger.c cli/lib/vec.c \
		$(ALL_LDFLAGS) -lbpf -lelf -lz -o $@

.PHONY: bench
bench: all $(OUTPUT)/bench/ppbench
	$(Q)OUTPUT=$(abspath $(OUTPUT)) bench/run.sh $(BENCH_ARGS)

# --- docs --------------------------------------------------------------------
$(OUTPUT)/man/%.8: docs/%.rst docs/common_options.rst | $(OUTPUT)/man
	$(call msg,MAN,$@)
	$(Q)rst2man --halt=warning $< > $@

.PHONY: man
man: $(MAN_PAGES)

# --- checks and editors --------------------------------------------------------
# compile_commands.json for clangd and friends, from the rules above
.PHONY: compdb
compdb: $(SKEL)
	$(call msg,GEN,compile_commands.json)
	$(Q)scripts/compdb.sh '$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS)' $(CLI_SRCS) > compile_commands.json

# the BPF compiler and its flags, for tests/check-bpf.sh
.PHONY: print-bpfcflags print-clang
print-bpfcflags:
	@echo '$(BPFCFLAGS)'
print-clang:
	@echo '$(CLANG)'

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
	$(Q)install -d $(DESTDIR)$(prefix)/share/ppwatch/schema/recording
	$(Q)install -m 0644 docs/schema/*.json docs/schema/README.md $(DESTDIR)$(prefix)/share/ppwatch/schema/
	$(Q)install -m 0644 docs/schema/recording/*.json $(DESTDIR)$(prefix)/share/ppwatch/schema/recording/
	$(Q)install -D -m 0644 bash-completion/ppwatch \
		$(DESTDIR)$(prefix)/share/bash-completion/completions/ppwatch
	$(Q)install -d $(DESTDIR)$(systemdunitdir)
	$(Q)for u in ppwatch-export ppwatch-record; do \
		sed 's|@SBINDIR@|$(prefix)/sbin|g' systemd/$$u.service > $(DESTDIR)$(systemdunitdir)/$$u.service && \
		chmod 0644 $(DESTDIR)$(systemdunitdir)/$$u.service || exit; done
	$(Q)install -m 0644 systemd/ppwatch-export.socket $(DESTDIR)$(systemdunitdir)/
	$(Q)install -D -m 0644 systemd/ppwatch.sysusers $(DESTDIR)$(sysusersdir)/ppwatch.conf
	$(Q)# the options file is the admin's once there: never overwritten
	$(Q)test -e $(DESTDIR)$(sysconfdir)/default/ppwatch || \
		install -D -m 0644 systemd/ppwatch.default $(DESTDIR)$(sysconfdir)/default/ppwatch
	$(Q)install -D -m 0644 examples/web-config.yml \
		$(DESTDIR)$(prefix)/share/doc/ppwatch/examples/web-config.yml
	@echo "  the services: systemd-sysusers (the ppwatch user), systemctl daemon-reload,"
	@echo "  systemctl enable --now ppwatch-export [ppwatch-record]; options in $(sysconfdir)/default/ppwatch"

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
	@echo '  make test       run the whole test suite: unit, BPF, lab integration, the VM set (root)'
	@echo '  make test-matrix  the VM tests on every line of kernel/matrix; rewrites kernel/README.md Results (root)'
	@echo '  make unit       run the unit tests only (no root)'
	@echo '  make unit-san   the unit tests under ASan + UBSan (no root)'
	@echo '  make fuzz       each fuzz target for FUZZ_SECONDS (60) (no root; clang, libFuzzer)'
	@echo '  make fuzz-merge fold the new fuzz inputs into tests/fuzz/corpus, minimized'
	@echo '  make man        build the man pages into $(OUTPUT)/man'
	@echo '  make bench      per-event cost of the hooks vs a counting-only program (root)'
	@echo '  make static     one statically linked ppwatch: $(STATIC_BIN)'
	@echo '  make deb        a Debian package (lintian-clean): $(OUTPUT)/deb/'
	@echo '  make compdb     compile_commands.json for editors (clangd)'
	@echo '  make install    install ppwatch, man pages, bash completion, systemd units (DESTDIR=, prefix=$(prefix))'
	@echo '  make vmlinux    regenerate $(VMLINUX) from /sys/kernel/btf/vmlinux'
	@echo '  make clean      remove $(OUTPUT)'
	@echo
	@echo '  V=1             show the full commands'
	@echo '  CFLAGS=, EXTRA_CFLAGS=, LDFLAGS=, EXTRA_LDFLAGS=   your flags (WERROR=0: no -Werror)'

.DELETE_ON_ERROR:

-include $(wildcard $(OUTPUT)/cli/*/*.d $(OUTPUT)/cli/*.d $(SAN_OUT)/cli/*/*.d $(FUZZ_OUT)/cli/*/*.d \
	$(OUTPUT)/bpf/*.bpf.d)

# the kernel series' build-and-boot rig (issue: patches/ and the VM tests)
-include kernel/kernel.mk
