#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-integrity.sh: the C tests of RC and UC between two hosts: integrity
# (random payloads with every opcode, many QPs at once, every byte checked
# at the receiver; seed from INTEGRITY_SEED, else random and printed) and
# negative (each error's exact status or errno, memory around the MRs
# untouched, later QPs unharmed). Each kselftest-harness case is one case
# here, plus each program's exit status; then no QP, CQ, MR or PD is left
# behind on the sroce devices and no packet failed its ICRC.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma module:sroce module:veth bin:integrity \
	bin:negative

two_hosts

# The debug kernel (KASAN, lockdep) receives several times slower than
# Debian's: a receive backlog as many times deeper, and an ACK timeout of
# 1 s instead of 67 ms, keep its drops and spurious resends what this
# traffic meets on Debian's kernel (UC cannot lose a packet here).
opts=()
backlog=$(sysctl -n net.core.netdev_max_backlog)
if debug_kernel; then
	sysctl -qw net.core.netdev_max_backlog=8000
	opts=(-t 18)
fi
timeout 240 "$bin/integrity" ${INTEGRITY_SEED:+-s "$INTEGRITY_SEED"} \
	${opts[@]+"${opts[@]}"} >"$tmp/integrity" 2>&1
rc_integrity=$?
sysctl -qw net.core.netdev_max_backlog="$backlog"
timeout 240 "$bin/negative" >"$tmp/negative" 2>&1
rc_negative=$?

n_int=$(ktap_planned_in "$tmp/integrity")
n_neg=$(ktap_planned_in "$tmp/negative")
ktap_plan $((${n_int:-0} + ${n_neg:-0} + 4))

# UC loses, and RC resends, what the receiving host's backlog drops
drops() {
	local i
	for i in 1 2; do
		ip -n "h$i" -s -j link show "veth$i" |
			sed -n "s/.*\"tx\":{[^}]*\"dropped\":\([0-9]*\).*/# veth$i: \1 packets dropped on transmit (the peer's backlog was full)/p"
	done
}
drops
ktap_relay integrity "$tmp/integrity"
# a case count below the plan (a crash) fails in ktap_finish
ktap_check "integrity exited 0 (it said: $rc_integrity)" test "$rc_integrity" = 0
ktap_relay negative "$tmp/negative"
ktap_check "negative exited 0 (it said: $rc_negative)" test "$rc_negative" = 0

ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2

no_icrc_errors() {
	local d out=
	for d in 1 2; do
		out+=$(rdma statistic show link "sroce_h$d/1" |
			awk '{ for (i = 3; i < NF; i += 2) if ($i == "rx_icrc_errors" && $(i + 1) != 0) print $1, $2, $i, $(i + 1) }')
	done
	[ -z "$out" ] || { echo "$out"; return 1; }
}
ktap_check "no packet failed its ICRC on either host" no_icrc_errors

ktap_finish
