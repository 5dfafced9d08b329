#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-faults.sh: RC over a faulty link. Two hosts, netem on both ends of the
# veth pair (so requests, responses and ACKs of both directions suffer),
# and c/integrity.c's random RC workload (every opcode, several QP pairs
# sending both ways, every byte and every completion checked) through
# each fault:
#
#   loss 1%, loss 10%, duplicate 5%, reorder (delay 10ms reorder 25% 50%),
#   delay 20ms 10ms distribution normal (jitter), corrupt 1%: every
#     transfer completes with the right data; the retransmission counters
#     (rc_ack_timeouts, rc_seq_naks_*, rc_duplicate_requests) show the
#     recovery, and under corruption rx_icrc_errors shows the drops
#   link down for 3 s during traffic (ip link set veth1 down; up): with a
#     retry budget that outlasts the outage (timeout 19, retry_cnt 7) every
#     transfer completes with the right data; with a short one (timeout 14,
#     retry_cnt 1) each pair in flight completes with
#     IBV_WC_RETRY_EXC_ERR and flushes the rest, and the program exits
#
# The counters observed are printed for each case; afterwards no QP, CQ,
# MR or PD is left on the devices.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma cmd:tc module:sroce module:veth module:sch_netem
if [ ! -x "$bin/integrity" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP no $bin/integrity: make -C selftests all"
	exit 4
fi

hosts_create 2
sroce_add 1
sroce_add 2
modprobe sch_netem
tmp=$(mktemp -d)
cleanup() {
	[ -n "${bg:-}" ] && kill -9 "$bg" 2>/dev/null
	rm -rf "$tmp"
	hosts_cleanup
}
trap cleanup EXIT

# The workload of one case: 4 RC pairs (2 each way), messages up to
# 64 KiB, some rounds; "-o xfer.rc_ipv4" runs that case of integrity only.
WORK=(-o xfer.rc_ipv4 -p 4 -l 65536)
# On the debug kernel a stall of the guest outlasts the default ACK
# timeout (67 ms) seven times over, and a transfer through a fault ran out
# of retries: there the fault rounds' QPs wait 1 s (-t 18), and a run may
# take four times as long. A READ whose responses netem's jitter reorders
# advances only to the first one out of order per timeout (late responses
# are dropped, as rxe does, and the timer resends): about two packets per
# timeout. So with 1 s timeouts a 64 KiB READ may complete nothing for
# longer than integrity's 30 s: a pair is hung there after 120 s (-w). At
# path MTU 256 such a READ is 256 packets, some 150 timeouts: there the
# jitter case's messages are 16 KiB at most (64 packets, some 40 s).
SLOW=() JITTER=() LIMIT=150
if debug_kernel; then
	SLOW=(-t 18 -w 120)
	JITTER=(-l 16384)
	LIMIT=600
fi
EXTRA=()	# more arguments for integrity, for one case

resources_mark 1 2

# Modify to RTR resolves the peer's MAC through ib_core, which gives ARP one
# second (rdma_resolve_ip with 1000 ms), the same for every RoCE device: one
# lost ARP on a lossy link fails the connect with ETIMEDOUT. The faults are
# for the RoCE traffic, so the hosts know each other's MAC for good.
pin_neighbours() {
	local i j mac
	for i in 1 2; do
		j=$((3 - i))
		mac=$(host_exec "$j" cat "/sys/class/net/veth$j/address") || return 1
		host_exec "$i" ip neigh replace "$(host_ip "$j")" lladdr "$mac" \
			dev "veth$i" nud permanent || return 1
	done
}

# counters: "NAME VALUE" lines, both devices' counters added up
counters() {
	local d
	for d in 1 2; do
		rdma statistic show link "sroce_h$d/1"
	done | awk '{ for (i = 3; i < NF; i += 2) sum[$i] += $(i + 1) }
		END { for (n in sum) print n, sum[n] }'
}
# delta NAME: how much counter NAME rose since the last snapshot
snapshot() { counters >"$tmp/c0"; }
delta() {
	awk -v n="$1" 'FNR == NR { a[$1] = $2; next }
		$1 == n { print $2 - a[$1]; exit }' "$tmp/c0" <(counters)
}
SHOWN="tx_packets rc_ack_timeouts rc_seq_naks_sent rc_seq_naks_rcvd rc_duplicate_requests rc_retry_exceeded rx_icrc_errors"
show() {
	local n line="$1:"
	for n in $SHOWN; do
		line+=" $n +$(delta "$n")"
	done
	echo "# $line"
}

netem() {
	local i
	for i in 1 2; do
		host_exec "$i" tc qdisc replace dev "veth$i" root netem "$@" ||
			return 1
	done
}
netem_off() {
	local i
	for i in 1 2; do
		host_exec "$i" tc qdisc del dev "veth$i" root 2>/dev/null
	done
	return 0
}

# integrity ARGS...: the workload, its output in $tmp/out
integrity() {
	timeout "$LIMIT" "$bin/integrity" ${INTEGRITY_SEED:+-s "$INTEGRITY_SEED"} \
		"${WORK[@]}" "$@" >"$tmp/out" 2>&1
}
# what the program said it did
said() {
	grep -E 'moved and checked|ran out of retries' "$tmp/out" | ktap_diag
}
# the program's verdict, with its output when it failed
passed() {
	local rc=$1
	[ "$rc" -eq 0 ] && return 0
	echo "integrity exited $rc:"
	cat "$tmp/out"
	return 1
}

ktap_plan 19

ktap_check "the hosts' neighbour entries are pinned" pin_neighbours

# fault NAME COUNTER-CHECK NETEM-ARGS...: the workload through the fault;
# then COUNTER-CHECK, an arithmetic expression over the counters' deltas
# (names as variables), must hold.
fault() {
	local name=$1 want=$2 rc n expr
	shift 2
	snapshot
	if ! netem "$@"; then
		ktap_fail "$name: tc qdisc add netem $*"
		ktap_fail "$name: counters"
		return
	fi
	integrity -r 3 "${SLOW[@]}" "${EXTRA[@]}"
	rc=$?
	netem_off
	show "$name (netem $*)"
	said
	ktap_check "$name: every RC transfer completed, data checked" \
		passed "$rc"
	[ -n "$want" ] || return 0
	expr=$want
	for n in $SHOWN; do
		expr=${expr//$n/$(delta "$n")}
	done
	ktap_check "$name: counters: $want" test $((expr)) -ne 0
}

fault "loss 1%" "rc_ack_timeouts + rc_seq_naks_rcvd > 0" loss 1%
fault "loss 10%" "rc_ack_timeouts > 0 && rc_seq_naks_sent > 0 && rc_seq_naks_rcvd > 0" loss 10%
fault "duplicate 5%" "rc_duplicate_requests > 0" duplicate 5%
fault "reorder" "rc_seq_naks_sent > 0" delay 10ms reorder 25% 50%
EXTRA=("${JITTER[@]}")
fault "delay with jitter" "" delay 20ms 10ms distribution normal
EXTRA=()
fault "corrupt 1%" "rx_icrc_errors > 0" corrupt 1%

traffic_flows() { [ "$(delta tx_packets)" -gt 500 ]; }

# outage ARGS...: integrity with ARGS in the background, running rounds
# until told to stop; veth1 goes down for 3 s once traffic flows, and comes
# back up; then the program is told to stop. Sets $rc and $alive (whether
# the program was still running when the link came back).
outage() {
	local t0 dt
	snapshot
	rm -f "$tmp/stop"
	integrity -u "$tmp/stop" "$@" &
	bg=$!
	# QP set-up takes a while under TCG: wait for traffic
	wait_for 30 traffic_flows
	sleep 0.5
	ip -n h1 link set veth1 down
	# 3 s by the clock: a slow kernel's sleeps run long
	t0=${EPOCHREALTIME/./}
	while kill -0 "$bg" 2>/dev/null; do
		dt=$((${EPOCHREALTIME/./} - t0))
		[ "$dt" -lt 3000000 ] || break
		sleep 0.1
	done
	kill -0 "$bg" 2>/dev/null && alive=1 || alive=0
	[ "$alive" = 0 ] &&
		echo "# the program ended $(((${EPOCHREALTIME/./} - t0) / 1000)) ms after the link went down"
	ip -n h1 link set veth1 up
	touch "$tmp/stop"
	wait "$bg"
	rc=$?
	bg=
	said
}

outage -r 1 -t 19 -c 7
show "link down 3 s, timeout 19 retry_cnt 7"
ktap_check "link down 3 s during traffic: the transfer was still running" \
	test "$alive" = 1
ktap_check "link down 3 s, long retry budget: every transfer completed, data checked" \
	passed "$rc"
ktap_check "link down 3 s, long retry budget: resent after ACK timeouts" \
	test "$(delta rc_ack_timeouts)" -gt 0
wait_for 10 ip netns exec h1 ping -c1 -W1 "$(host_ip 2)"

outage -r 1 -t 14 -c 1 -x
show "link down 3 s, timeout 14 retry_cnt 1"
ktap_check "link down 3 s, short retry budget: failed with RETRY_EXC_ERR, later WRs flushed" \
	passed "$rc"
ktap_check "link down 3 s, short retry budget: the program ended before the link came back" \
	test "$alive" = 0
ktap_check "link down 3 s, short retry budget: rc_retry_exceeded counted" \
	test "$(delta rc_retry_exceeded)" -gt 0

ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2

ktap_finish
