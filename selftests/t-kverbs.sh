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

ktap_require root cmd:rdma cmd:dmesg module:sroce module:veth
hosts_create 2
sroce_add 1
kmod_test sroce_kvtest sroce_h1
