# xt_cgroup2: top-level build.  "make" builds everything; "make check" and
# "make demo" first install what is missing (scripts/install-deps).
KDIR ?= $(shell scripts/kdir)
PREFIX ?= /usr/local
DESTDIR ?=
SUBDIRS := iptables-ext nft-support tests/tools tests/unit tests/fuzz

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

demo:
	scripts/install-deps
	$(MAKE) all
	tests/vm/run -- bash /tests/demo/demo.sh

# Per-packet cost against the in-tree match (VM), and nft-cgroupd latency.
bench:
	scripts/install-deps
	$(MAKE) all
	tests/vm/run -- bash /tests/bench/match_cost.sh
	tests/vm/run -- bash /tests/bench/first_packet.sh
	$(MAKE) -C nft-support bench

checkpatch:
	scripts/checkpatch kmod/xt_cgroup2_main.c kmod/xt_cgroup2_compat.h \
		kmod/xt_CGROUP2LOG.c kmod/xt_cgroup2_log.h include/uapi/xt_CGROUP2LOG.h \
		kmod/xt_cgroup2_sock.c kmod/xt_cgroup2_sock.h \
		lib/cgroup2_pattern.c lib/cgroup2_pattern.h include/uapi/xt_cgroup2.h

# DESTDIR-aware, for packaging: the module goes below $(DESTDIR)/lib/modules.
# Distribution headers carry no signing key: sign only where one exists.
SIGN := $(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates \
		$(SIGN) modules_install
	$(if $(DESTDIR),,depmod -a $(notdir $(patsubst %/build,%,$(KDIR))))
	$(MAKE) -C iptables-ext install DESTDIR=$(DESTDIR)
	$(MAKE) -C nft-support install DESTDIR=$(DESTDIR) prefix=$(PREFIX)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	@for d in $(SUBDIRS); do $(MAKE) -C $$d clean; done

.PHONY: all modules userspace deps check demo bench checkpatch install clean
