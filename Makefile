# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# sroce: soft RoCEv2 NIC. `make` builds the module and the provider,
# `make check` runs every test, `make check-debug` the VM tests again on a
# debug kernel (KASAN, lockdep, KMEMLEAK), `make demo` shows it working in a VM,
# `make fuzz` fuzzes the protocol core (FUZZ_TIME seconds per target),
# `make fuzz-rings` fuzzes the rings from userspace in a VM (debug kernel),
# `make cc-demo` plots a congested link with DCQCN off and on.
#
# KDIR     kernel build tree (default: /lib/modules/`uname -r`/build when it
#          exists, else Debian bookworm's own kernel headers, fetched once
#          into $(SROCE_CACHE))
# KERNEL   which Debian kernel to fetch when KDIR is not set: 6.1, 6.12, or
#          debug (Debian's 6.12 source built with the kernel's bug finders)
# DESTDIR  staging root for `make install`

SROCE_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/sroce
export SROCE_CACHE KERNEL DESTDIR C W

top := $(CURDIR)

.PHONY: all module provider install install-module install-provider \
	unit fuzz fuzz-rings check check-debug check-ulp demo cc-demo bench style clean help

all: module provider

# The module is built in build/<kernel release>/, a tree of links to the
# sources, so that builds for several kernels can sit side by side.
module:
	@$(top)/scripts/build-module "$(KDIR)"

provider:
	@$(top)/provider/build

install: install-module install-provider

install-module:
	@$(top)/scripts/build-module "$(KDIR)" install

install-provider:
	@$(top)/provider/build install

unit:
	@$(MAKE) -s -C selftests/unit run

# libFuzzer on kernel/core/, the targets side by side; `check` runs the
# same for 15 s each. New crashes land in build/fuzz/crashes/<target>/.
FUZZ_TIME ?= 600
FUZZ_TARGETS ?=
fuzz:
	@$(top)/selftests/fuzz/run --time $(FUZZ_TIME) $(FUZZ_TARGETS)

# The ring fuzzer: processes that write anything into their rings and race
# modify_qp, destroy_qp, dereg_mr and device deletion against traffic, in a
# VM on the debug kernel for FUZZ_RINGS_TIME seconds (selftests/fuzz-rings;
# FUZZ_RINGS_KERNEL=6.1 for Debian's own, FUZZ_RINGS_SEED=0x... replays).
FUZZ_RINGS_TIME ?= 1800
fuzz-rings:
	@FUZZ_RINGS_TIME=$(FUZZ_RINGS_TIME) $(top)/selftests/fuzz-rings

check:
	@$(top)/selftests/check

# Builds the debug kernel once (about 10 minutes on 2 cores), then runs
# every VM test on it; not part of `check` (an hour and more).
check-debug:
	@$(top)/selftests/check --debug

# The kernel's NFS over RDMA, iSER and SRP on sroce (selftests/t-nfs.sh,
# t-iser.sh, t-srp.sh), each in a VM of its own on 6.1 and 6.12; not part of
# `check` (NVMe over Fabrics is).
check-ulp:
	@$(top)/selftests/check --ulp

demo:
	@$(top)/selftests/demo

# A congested link (3 senders, htb + RED/ECN bottleneck) with DCQCN off and
# on in one VM boot: data and a PNG in build/cc-demo/ (gnuplot on the host).
cc-demo:
	@$(top)/selftests/cc-demo

# perftest and iperf3 on sroce and rdma_rxe in one VM boot; not in `check`.
bench:
	@$(top)/selftests/bench/run

style:
	@$(top)/scripts/style

clean:
	rm -rf build
	@$(MAKE) -s -C selftests/unit clean

help:
	@sed -n 's/^# \{0,1\}//p' Makefile | sed -n '1,15p'
