# xt_cgroup2: top-level build.  "make" builds everything; "make check" and
# "make demo" first install what is missing (scripts/install-deps).
KDIR ?= $(shell scripts/kdir)
PREFIX ?= /usr/local
DESTDIR ?=
SUBDIRS := iptables-ext nft-support tests/tools tests/unit tests/fuzz tests/debug-kernel/kfuzz

all: modules userspace

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

userspace:
	@for d in $(SUBDIRS); do $(MAKE) -C $$d || exit 1; done

deps:
	scripts/install-deps

check:
	scripts/install-deps
	$(MAKE) all
	tests/check

# The kernel suite on the debug kernel (KASAN, lockdep, kmemleak; built and
# cached by scripts/debug-kernel), each test followed by an unload and a
# kmemleak scan.  See tests/README.md.
check-debug:
	scripts/install-deps
	$(MAKE) userspace
	HOST_SUITES=0 KERNELS=debug tests/check

# The libFuzzer targets (engine, extension, nft-cgroupd's parser), each for
# FUZZ_SECONDS (default 60); see tests/README.md.
fuzz:
	scripts/install-deps
	$(MAKE) -C tests/fuzz fuzz

demo:
	scripts/install-deps
	$(MAKE) all
	tests/demo/run

# Per-packet cost against the in-tree match, first packets, many cgroups
# (one VM boot, tests/bench/README.md), results in bench-results/; then
# nft-cgroupd latency.
bench:
	scripts/install-deps
	$(MAKE) all
	$(MAKE) -C tests/bench/kbench KDIR=$(KDIR)
	$(MAKE) -C tests/bench/bpf
	mkdir -p bench-results
	rc=0; tests/vm/run --timeout 2400 --project-modules tests/bench/kbench/modules \
		-- bash /tests/bench/run.sh \
		>bench-results/vm.log || rc=$$?; \
	tests/bench/report bench-results/vm.log bench-results; \
	grep -E '^(BENCH|FAIL)' bench-results/vm.log; exit $$rc
	$(MAKE) -C nft-support bench BENCH_OUT=$(CURDIR)/bench-results/nft-cgroupd

checkpatch:
	scripts/checkpatch kmod/xt_cgroup2_main.c kmod/xt_cgroup2_compat.h \
		kmod/xt_CGROUP2LOG.c kmod/xt_cgroup2_log.h include/uapi/xt_CGROUP2LOG.h \
		kmod/xt_cgroup2_sock.c kmod/xt_cgroup2_sock.h \
		kmod/xt_cgroup2_cache.c kmod/xt_cgroup2_cache.h \
		kmod/xt_cgroup2_share.c kmod/xt_cgroup2_share.h \
		lib/cgroup2_pattern.c lib/cgroup2_pattern.h include/uapi/xt_cgroup2.h \
		tests/bench/kbench/xt_cg2bench.c

# DESTDIR-aware, for packaging: the module goes below $(DESTDIR)/lib/modules.
# Distribution headers carry no signing key: sign only where one exists.
SIGN := $(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
KVER = $(notdir $(patsubst %/build,%,$(KDIR)))
# The unit goes where this systemd looks for packaged units.
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
INSTALL_DIRS = DESTDIR=$(DESTDIR) prefix=$(PREFIX) unitdir=$(UNITDIR)
install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates \
		$(SIGN) DEPMOD=true modules_install
	$(if $(DESTDIR),,depmod -a $(KVER))
	$(MAKE) -C iptables-ext install $(INSTALL_DIRS)
	$(MAKE) -C nft-support install $(INSTALL_DIRS)

# Removes what install put there, except nft-cgroupd.conf (the admin's).
uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/kmod/xt_cgroup2.ko
	$(if $(DESTDIR),,depmod -a $(KVER))
	$(MAKE) -C iptables-ext uninstall $(INSTALL_DIRS)
	$(MAKE) -C nft-support uninstall $(INSTALL_DIRS)

# The module's source as DKMS wants it, in /usr/src/xt_cgroup2-VERSION
# (also what the xt-cgroup2-dkms package ships).
VERSION := $(shell cat VERSION)
DKMS_DIR = $(DESTDIR)/usr/src/xt_cgroup2-$(VERSION)
DKMS_FILES = Kbuild dkms.conf VERSION kmod/Kbuild \
	$(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h kmod/probes/*.c)) \
	lib/cgroup2_pattern.c lib/cgroup2_pattern.h $(wildcard include/uapi/*.h)
install-dkms-source:
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DKMS_DIR)/$$f || exit 1; done

# Debian packages of the committed tree (HEAD) in build/deb.
deb:
	scripts/make-deb

# The packages on a real Debian 12 host booted in qemu (tests/packages/run.sh:
# install, boot ruleset, restarts, reboot, nft-cgroupd.service, purge).
check-packages:
	scripts/install-deps
	tests/packages/run.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	@for d in $(SUBDIRS); do $(MAKE) -C $$d clean; done
	$(MAKE) -C tests/bench/kbench KDIR=$(KDIR) clean || true
	$(MAKE) -C tests/bench/bpf clean

.PHONY: all modules userspace deps check check-debug fuzz demo bench checkpatch install clean \
	uninstall install-dkms-source deb check-packages
