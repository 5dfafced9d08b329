#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-rx.sh: hand-made RoCEv2 packets at a live device: good ones are
# accepted (the ICRC, computed independently by inject.py with zlib,
# matches sroce's, masked fields included), each kind of bad one is
# dropped and counted under its own counter, every packet gets exactly
# one verdict, and the device lives on. And what a good packet may not do:
# a UD datagram longer than the path MTU, to an address that is not the
# device's, or in IP fragments, is dropped and counted; a flood of
# CE-marked datagrams from an address nobody checked gets CNPs only at a
# bounded rate.
#
#   h1: veth1 ── sroce_h1  <──  raw frames  ──  veth2 :h2 (inject.py)
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 module:sroce module:veth

ktap_plan 24

# Each packet ends in exactly one verdict: rx_packets or one of the
# structural drops (what a good packet then meets at its QP is counted on
# top, under rx_drop_no_qp, rx_drop_unhandled and the like).
verdicts='rx_packets|rx_drop_short|rx_drop_bad_ip|rx_drop_bad_tver|rx_drop_bad_opcode|rx_drop_bad_length|rx_drop_bad_pkey|rx_icrc_errors'
total() {	# the sum of the verdict counters
	rdma statistic show link sroce_h1/1 |
		awk -v re="^($verdicts)\$" '{ for (i = 3; i < NF; i += 2) if ($i ~ re) s += $(i + 1) } END { print s + 0 }'
}
# sends KIND FAMILY COUNTER [N [DST]]: inject N packets of KIND over IPv4
# or IPv6 (to h1's address, or DST); COUNTER must grow by exactly N and so
# must the verdicts, nothing else.
sends() {
	local kind=$1 fam=$2 name=$3 n=${4:-1} c0 t0 c1 t1 src dst
	if [ "$fam" = 6 ]; then src=$(host_ip6 2) dst=$(host_ip6 1)
	else src=$(host_ip 2) dst=$(host_ip 1); fi
	dst=${5:-$dst}
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
ktap_check "P_Key 0x1234, not the default partition: rx_drop_bad_pkey" \
	sends pkey 4 rx_drop_bad_pkey
ktap_check "P_Key 0x7fff, its limited member: rx_packets" \
	sends pkey-limited 4 rx_packets
ktap_check "IPv4 fragments: rx_drop_bad_ip" sends frag 4 rx_drop_bad_ip
ktap_check "IPv6 fragments: rx_drop_bad_ip" sends frag 6 rx_drop_bad_ip
# An address of h1 that is not sroce_h1's (another interface's): the IP
# layer delivers to it whatever arrives on veth1.
host_exec 1 ip link add sdummy0 type dummy
host_exec 1 ip addr add 10.99.0.1/24 dev sdummy0
host_exec 1 ip link set sdummy0 up
ktap_check "UD to an address of the host that is not the device's: rx_drop_bad_addr" \
	sends ud 4 rx_drop_bad_addr 1 10.99.0.1
host_exec 1 ip link set veth1 mtu 9000
host_exec 2 ip link set veth2 mtu 9000
ktap_check "UD datagram of 4100 bytes, over the path MTU (4096): rx_drop_ud_length" \
	sends ud-long 4 rx_drop_ud_length

# ud_cnp_flood: 5000 CE-marked datagrams to a UD QP of sroce_h1 in RTS
# (Q_Key 0x11111111), min_time_between_cnps 0: the source is not checked,
# so sroce_h1 answers at most 1000 a second.
ud_cnp_flood() {
	local pid qpn c0 c1 t0 t1 max
	python3 -u - "$here" >"$tmp/udqp" 2>&1 <<'PY' &
import sys, time
sys.path.insert(0, sys.argv[1])
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
import roce
ctx = Context(name='sroce_h1')
pd = PD(ctx)
cq = CQ(ctx, 16)
qp = roce.ud_qp(pd, cq, 0x11111111)
print(f'qpn {qp.qp_num:x}')
time.sleep(120)
PY
	pid=$!
	wait_for 10 grep -q '^qpn ' "$tmp/udqp" || { cat "$tmp/udqp"; return 1; }
	qpn=$(sed -n 's/^qpn //p' "$tmp/udqp")
	echo 0 >/sys/class/infiniband/sroce_h1/cc/min_time_between_cnps
	c0=$(counter 1 np_cnp_sent)
	t0=$(date +%s%N)
	host_exec 2 python3 "$here/inject.py" veth2 "$mac1" "$(host_ip 2)" \
		"$(host_ip 1)" "ud-ce:$qpn:11111111" 5000 || return 1
	t1=$(date +%s%N)
	sleep 0.5
	c1=$(counter 1 np_cnp_sent)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	max=$(( (t1 - t0) / 1000000 + 1500 ))	# per ms, with a second's burst
	echo "# 5000 CE-marked datagrams in $(( (t1 - t0) / 1000000 )) ms: $((c1 - c0)) CNPs (at most $max)"
	[ "$((c1 - c0))" -gt 0 ] && [ "$((c1 - c0))" -le "$max" ]
}
tmp=$(mktemp -d)
ktap_check "a CE-marked UD flood from an unchecked source: CNPs at a bounded rate" \
	ud_cnp_flood
rm -rf "$tmp"

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
