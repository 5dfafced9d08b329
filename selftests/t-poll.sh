#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-poll.sh: the polling CPU (module parameter poll_cpu; poll.c,
# performance.rst). Off by default; a CPU that does not exist, or not a
# number, is refused and leaves it off. Set at run time or at load time,
# one kernel thread polls, bound to that CPU. With it on, and this
# script's programs kept on CPU 0 (as a user keeps applications off the
# polling CPU), the loopback traffic of streaming QPs is received there
# (loop_handoffs grows) and stays correct: the integrity test's streaming
# case checks every byte; ib_write_bw on 8 QPs completes while poll_cpu
# moves and goes off and on under it, with no ACK timer expiring, and
# while CPU 1 goes offline and back (that turns polling off; setting
# poll_cpu again restarts it); no WQE runs out of retries and no object is
# left behind. Then the module
# unloads with the thread running; loads with poll_cpu=1 while CPU 1 is
# offline (polling stays off); and loads again with it, and without.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
param=/sys/module/sroce/parameters/poll_cpu
ktap_require root cmd:rdma cmd:ib_write_bw cmd:taskset module:sroce \
	module:veth
if [ "$(nproc)" -lt 2 ] || [ ! -x "$bin/integrity" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP needs 2 CPUs and $bin/integrity"
	exit 4
fi

ktap_plan 18

modprobe sroce
hosts_create 2
sroce_add 1
ip1=$(host_ip 1)
resources_mark 1
# Everything from here on runs on CPU 0; CPU 1 polls.
taskset -cp 0 $$ >/dev/null

# pollers: the polling threads, "NAME CPUS" each
pollers() {
	local p
	for p in $(pgrep '^sroce_poll/'); do
		echo "$(cat "/proc/$p/comm") $(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$p/status")"
	done
}

# set_poll VALUE: write VALUE to the parameter, as `echo VALUE >` does
set_poll() { echo "$1" >"$param"; }

# off: polling is off, and no thread runs
off() {
	local v
	v=$(cat "$param")
	echo "poll_cpu $v, threads: [$(pollers)]"
	[ "$v" = -1 ] && [ -z "$(pollers)" ]
}

# on_cpu N: the parameter says N, and one thread polls, bound to N
on_cpu() {
	local v
	v=$(cat "$param")
	echo "poll_cpu $v, threads: [$(pollers)]"
	[ "$v" = "$1" ] && [ "$(pollers)" = "sroce_poll/$1 $1" ]
}

ktap_check "off by default" off
refused() {
	local v
	for v in 4096 -2 one; do
		if set_poll "$v" 2>/dev/null; then
			echo "poll_cpu=$v was taken"
			return 1
		fi
	done
	off
}
ktap_check "a CPU that does not exist, -2 and a word are refused" refused

ktap_check "poll_cpu=1 at run time: one thread, bound to CPU 1" \
	eval 'set_poll 1 && on_cpu 1'

# grew NAME BEFORE: sroce_h1's counter NAME is above BEFORE
grew() {
	local now
	now=$(counter 1 "$1")
	echo "$1: $2 before, ${now:-?} now"
	[ -n "$now" ] && [ "$now" -gt "$2" ]
}

h0=$(counter 1 loop_handoffs)
ktap_check "ib_write_bw, 2 bytes, 8 QPs, loopback on one device" \
	perftest ib_write_bw 1 sroce_h1 1 sroce_h1 4 "$ip1" -s 2 -q 8 -n 2000
ktap_check "... its QPs streamed to the polling CPU" grew loop_handoffs "$h0"

h0=$(counter 1 loop_handoffs)
ktap_check "integrity, streaming RC loopback: every byte checked" \
	timeout 240 "$bin/integrity" ${INTEGRITY_SEED:+-s "$INTEGRITY_SEED"} \
	-o xfer.rc_loopback_stream
ktap_check "... its QPs streamed to the polling CPU" grew loop_handoffs "$h0"

# ib_write_bw while poll_cpu goes 0 (no hand-off from CPU 0 to itself),
# -1, 1, -1, 1: 8 QPs stream 2-byte WRITEs faster than CPU 1 receives
# them
moves() {
	local out rc v
	out=$(mktemp)
	perftest ib_write_bw 1 sroce_h1 1 sroce_h1 4 "$ip1" -s 2 -q 8 \
		-n 20000 >"$out" 2>&1 &
	sleep 1
	for v in 0 -1 1 -1 1; do
		set_poll "$v" || echo "poll_cpu=$v refused"
		sleep 0.3
	done
	wait $!
	rc=$?
	cat "$out"
	rm -f "$out"
	rdma statistic show link sroce_h1/1
	return "$rc"
}
t0=$(counter 1 rc_ack_timeouts)
ktap_check "ib_write_bw while poll_cpu moves and goes off and on" moves
# Nothing is lost on a loopback: an ACK timer that expires means a queue
# waited 67 ms for its turn. Before the queues took turns (loop.c), a
# saturated polling CPU starved some, until a WQE ran out of retries.
ktap_check "... and no ACK timer expired" eval \
	'[ "$(counter 1 rc_ack_timeouts)" = "$t0" ] || { echo "rc_ack_timeouts: $t0 -> $(counter 1 rc_ack_timeouts)"; false; }'
ktap_check "... and then one thread polls, on CPU 1" on_cpu 1

cpu1=/sys/devices/system/cpu/cpu1/online
# ib_write_bw while CPU 1, the polling CPU, goes offline and back
hotplug() {
	local out rc=0
	out=$(mktemp)
	perftest ib_write_bw 1 sroce_h1 1 sroce_h1 4 "$ip1" -s 2 -q 8 \
		-n 20000 >"$out" 2>&1 &
	sleep 1
	echo 0 >"$cpu1" || rc=1
	sleep 0.5
	echo 1 >"$cpu1" || rc=1
	wait $! || rc=1
	cat "$out"
	rm -f "$out"
	return "$rc"
}
ktap_check "ib_write_bw while CPU 1 goes offline and back" hotplug
ktap_check "... which turned polling off; poll_cpu=1 again: one thread on CPU 1" \
	eval 'off && set_poll 1 && on_cpu 1'
ktap_check "no WQE ran out of retries" eval \
	'[ "$(counter 1 rc_retry_exceeded)" = 0 ]'
ktap_check "no PD, CQ, QP or MR left behind" resources_back 1

unload() {
	hosts_cleanup
	modprobe -r sroce && ! grep -q '^sroce ' /proc/modules &&
		[ -z "$(pollers)" ]
}
ktap_check "modprobe -r with the thread polling: it stops" unload
offline_load() {
	local rc
	echo 0 >"$cpu1" || return 1
	modprobe sroce poll_cpu=1
	rc=$?
	echo 1 >"$cpu1"
	[ "$rc" -eq 0 ] && off && modprobe -r sroce
}
ktap_check "modprobe sroce poll_cpu=1 with CPU 1 offline: loads, polling off" \
	offline_load
ktap_check "modprobe sroce poll_cpu=1: the thread starts at load" \
	eval 'modprobe sroce poll_cpu=1 && on_cpu 1'
ktap_check "modprobe -r, modprobe sroce: off again" \
	eval 'modprobe -r sroce && modprobe sroce && off'

ktap_finish
