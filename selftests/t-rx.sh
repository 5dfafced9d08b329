#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-rx.sh: hand-made RoCEv2 packets at a live device: good ones are
# accepted (the ICRC, computed independently by inject.py with zlib,
# matches sroce's, masked fields included), each kind of bad one is
# dropped and counted under its own counter, every packet gets exactly
# one verdict, and the device lives on.
#
#   h1: veth1 ── sroce_h1  <──  raw frames  ──  veth2 :h2 (inject.py)
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 module:sroce module:veth

ktap_plan 17

# Each packet ends in exactly one verdict: rx_packets or one of the
# structural drops (what a good packet then meets at its QP is counted on
# top, under rx_drop_no_qp, rx_drop_unhandled and the like).
verdicts='rx_packets|rx_drop_short|rx_drop_bad_ip|rx_drop_bad_tver|rx_drop_bad_opcode|rx_drop_bad_length|rx_icrc_errors'
total() {	# the sum of the verdict counters
	rdma statistic show link sroce_h1/1 |
		awk -v re="^($verdicts)\$" '{ for (i = 3; i < NF; i += 2) if ($i ~ re) s += $(i + 1) } END { print s + 0 }'
}
# sends KIND FAMILY COUNTER [N]: inject N packets of KIND over IPv4 or
# IPv6; COUNTER must grow by exactly N and nothing else may move.
sends() {
	local kind=$1 fam=$2 name=$3 n=${4:-1} c0 t0 c1 t1 src dst
	if [ "$fam" = 6 ]; then src=$(host_ip6 2) dst=$(host_ip6 1)
	else src=$(host_ip 2) dst=$(host_ip 1); fi
	c0=$(counter 1 "$name")
	t0=$(total)
	host_exec 2 python3 "$here/inject.py" veth2 "$mac1" "$src" "$dst" \
		"$kind" "$n" || return 1
	wait_for 5 bash -c "[ \"\$(rdma statistic show link sroce_h1/1 |
		awk -v n=$name '{ for (i = 1; i < NF; i++) if (\$i == n) print \$(i + 1) }')\" -ge $((c0 + n)) ]"
	sleep 0.2
	c1=$(counter 1 "$name")
	t1=$(total)
	if [ "$((c1 - c0))" -ne "$n" ] || [ "$((t1 - t0))" -ne "$n" ]; then
		echo "$name went $c0 -> $c1, all counters $t0 -> $t1, sent $n"
		rdma statistic show link sroce_h1/1
		return 1
	fi
}

hosts_create 2
sroce_add 1
mac1=$(host_exec 1 cat /sys/class/net/veth1/address)

ktap_expect "the device shows its counters, all zero" \
	'rx_packets 0 .*rx_icrc_errors 0' rdma statistic show link sroce_h1/1
ktap_check "IPv4 good packet: rx_packets" sends good 4 rx_packets
ktap_check "IPv6 good packet: rx_packets" sends good 6 rx_packets
ktap_check "IPv4, masked fields changed after the ICRC: still good" \
	sends masked 4 rx_packets
ktap_check "IPv6, masked fields changed after the ICRC: still good" \
	sends masked 6 rx_packets
ktap_check "IPv4 one payload bit flipped: rx_icrc_errors" \
	sends bad-icrc 4 rx_icrc_errors
ktap_check "IPv6 one payload bit flipped: rx_icrc_errors" \
	sends bad-icrc 6 rx_icrc_errors
ktap_check "truncated packet: rx_drop_short" sends short 4 rx_drop_short
ktap_check "transport version 1: rx_drop_bad_tver" \
	sends tver 4 rx_drop_bad_tver
ktap_check "reserved opcode: rx_drop_bad_opcode" \
	sends opcode 6 rx_drop_bad_opcode
ktap_check "payload not padded to 4 bytes: rx_drop_bad_length" \
	sends length 4 rx_drop_bad_length
ktap_check "IPv4 options: rx_drop_bad_ip" sends ipopt 4 rx_drop_bad_ip
ktap_check "50 good packets, 50 counted" sends good 4 rx_packets 50

t0=$(total)
good0=$(counter 1 rx_packets)
host_exec 2 python3 "$here/inject.py" veth2 "$mac1" "$(host_ip 2)" \
	"$(host_ip 1)" garbage 1000
host_exec 2 python3 "$here/inject.py" veth2 "$mac1" "$(host_ip6 2)" \
	"$(host_ip6 1)" garbage 1000
ktap_check "2000 random datagrams: every one counted exactly once" \
	wait_for 20 bash -c "$(declare -f total); verdicts='$verdicts'; [ \$(total) -eq $((t0 + 2000)) ]"
ktap_expect "... and none of them was taken for a good packet" \
	"rx_packets $good0 " rdma statistic show link sroce_h1/1
ktap_expect "the device is still ACTIVE" 'state ACTIVE' rdma link show sroce_h1/1
ktap_check "and deletes cleanly" host_exec 1 rdma link delete sroce_h1

ktap_finish
