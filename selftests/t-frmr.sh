#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-frmr.sh: fast-registration MRs and invalidation as the kernel's storage
# ULPs use them, through the test module kmod/sroce_frtest.c: alloc_mr and
# its limit, ib_map_mr_sg over pages apart, IB_WR_REG_MR, RDMA WRITE and
# READ through the rkey, SEND with invalidate, IB_WR_LOCAL_INV (ordered
# behind a READ into the MR it closes), and the errors, between two RC QPs
# in loopback on one device. The module's KTAP (kernel log) is this test's.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:dmesg module:sroce module:veth
hosts_create 2
sroce_add 1
kmod_test sroce_frtest sroce_h1
