#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-limits.sh: what a local user can ask of the kernel through its own
# QPs is done a bounded piece at a time: c/limits.c's cases (huge post
# lists on UC, UD and RC return at once, an RC pair beside them keeps
# answering, destroy stops the rest), each one a case here, and its exit
# status; then nothing is left on the devices. The VM's kernel-log scan
# fails the run on a soft lockup or an RCU stall.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma module:sroce module:veth
if [ ! -x "$bin/limits" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP no $bin/limits: make -C selftests all"
	exit 4
fi

hosts_create 2
sroce_add 1
sroce_add 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; hosts_cleanup' EXIT
resources_mark 1 2

timeout 600 "$bin/limits" ${LIMITS_MS:+-l "$LIMITS_MS"} >"$tmp/limits" 2>&1
rc=$?
n=$(ktap_planned_in "$tmp/limits")
ktap_plan $((${n:-0} + 2))
ktap_relay limits "$tmp/limits"
ktap_check "limits exited 0 (it said: $rc)" test "$rc" = 0
ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2
ktap_finish
