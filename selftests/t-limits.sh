#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-limits.sh: what a local user can ask of the kernel through its own
# QPs is done a bounded piece at a time: c/limits.c's cases (huge post
# lists on UC, UD and RC return at once, an RC pair beside them keeps
# answering, destroy stops the rest), each one a case here, and its exit
# status; the loopback queues hold loop_backlog packets at most, the rest
# dropped and counted, and RC recovers what they drop; then nothing is
# left on the devices. The VM's kernel-log scan fails the run on a soft
# lockup or an RCU stall.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma cmd:ib_write_bw module:sroce module:veth \
	bin:limits

two_hosts

# The debug kernel takes milliseconds a packet: its doorbells get a longer
# guard, its RC QPs a 1 s ACK timeout instead of 67 ms (one window's ACK
# takes longer than that), and rc_post_list 16 WRITEs of 1 MiB, not 256,
# to finish within its 120 s; the post list stays far above the window.
largs=()
debug_kernel && largs=(-l 8000 -r 16 -t 18)
timeout 600 "$bin/limits" "${largs[@]}" >"$tmp/limits" 2>&1
rc=$?
n=$(ktap_planned_in "$tmp/limits")
ktap_plan $((${n:-0} + 4))
ktap_relay limits "$tmp/limits"
ktap_check "limits exited 0 (it said: $rc)" test "$rc" = 0

# A loopback queue of 16 packets, where ib_write_bw's 8 QPs send windows
# of 64 KiB messages: the queues drop, RC resends, the run completes (200
# messages a QP; 20 on the debug kernel, whose resends outlast perftest's
# 90 s otherwise).
param=/sys/module/sroce/parameters/loop_backlog
loop_bound() {
	local d0 d1 ip1 n=200
	ip1=$(host_ip 1)
	debug_kernel && n=20
	echo 16 >"$param" || return 1
	d0=$(counter 1 loop_drops)
	perftest ib_write_bw 1 sroce_h1 1 sroce_h1 4 "$ip1" -q 8 -s 65536 \
		-n "$n" >"$tmp/bw" 2>&1
	local rc=$?
	d1=$(counter 1 loop_drops)
	echo 1024 >"$param"
	echo "# ib_write_bw exited $rc; loop_drops $d0 -> $d1"
	[ "$rc" = 0 ] || { cat "$tmp/bw"; return 1; }
	[ "$d1" -gt "$d0" ]
}
ktap_check "loop_backlog 16: loopback packets dropped and counted, RC recovers" \
	loop_bound
ktap_expect "loop_backlog refuses 0 and leaves 1024" '^1024$' \
	bash -c "echo 0 >$param 2>/dev/null; cat $param"
ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2
ktap_finish
