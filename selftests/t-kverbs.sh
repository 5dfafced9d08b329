#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-kverbs.sh: sroce's kernel verbs as a kernel ULP uses them, through the
# test module kmod/sroce_kvtest.c (built on the host by kmod/build, or
# `make -C selftests`): post_send/post_recv/post_srq_recv and their
# refusals, poll_cq, notification, the DMA lkey, ib_drain_qp, in UD
# loopback on one device. The module's KTAP (kernel log) is this test's.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ko=$here/../build/$(uname -r)/kmod/sroce_kvtest.ko
ktap_require root cmd:rdma cmd:dmesg module:sroce module:veth
[ -f "$ko" ] || { echo "KTAP version 1"; echo "1..0 # SKIP $ko not built (selftests/kmod/build)"; exit 4; }

hosts_create 2
sroce_add 1

mark="sroce_kvtest: run $$ $RANDOM"
echo "$mark" >/dev/kmsg
insmod "$ko" dev=sroce_h1
rc=$?
dmesg --notime | sed -n "\|$mark|,\$p" | sed '1d' | sed -n 's/^sroce_kvtest: //p'
if [ "$rc" -eq 0 ]; then
	rmmod sroce_kvtest
	exit 0
fi
echo "# insmod failed: $rc"
exit 1
