#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-rc.sh: the unmodified connected-mode examples of rdma-core over sroce:
# ibv_rc_pingpong, ibv_uc_pingpong and ibv_srq_pingpong between two hosts
# (IPv4 and IPv6 GIDs), with completion events, from 1 byte to 1 MiB, on
# one device in loopback, and against rdma_rxe both ways.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:ibv_rc_pingpong cmd:ibv_uc_pingpong \
	cmd:ibv_srq_pingpong module:sroce module:veth

ktap_plan 22

hosts_create 2
sroce_add 1
sroce_add 2
ip1=$(host_ip 1)

# Message sizes of the large RC cases. On the debug kernel a packet costs
# about 5 ms (KASAN and lockdep under TCG), and the pingpong programs fix
# their ACK timeout at 67 ms (timeout 14), which a message must beat with
# its ACK: there, they send 4 packets (testing.rst). UC has no ACKs.
if debug_kernel; then
	S4K=16384 S1K=4096 S256=1024
else
	S4K=65536 S1K=1048576 S256=1048576
fi
# size N: N bytes as the cases name them
size() { [ "$1" -ge 1048576 ] && echo "$(($1 / 1048576)) MiB" || echo "$(($1 / 1024)) KiB"; }

# between HOST_ARGS: the two hosts over IPv4 (4) or IPv6 (6)
two() { local p=$1 f=$2; shift 2; pingpong "$p" 1 sroce_h1 2 sroce_h2 "$f" "$ip1" "$@"; }
loop() { local p=$1; shift; pingpong "$p" 1 sroce_h1 1 sroce_h1 4 "$ip1" "$@"; }

ktap_check "RC, IPv4, 1 byte" two ibv_rc_pingpong 4 -s 1 -n 200
ktap_check "RC, IPv4, 4 KiB" two ibv_rc_pingpong 4 -s 4096 -n 200
ktap_check "RC, IPv4, $(size $S4K), MTU 4096" two ibv_rc_pingpong 4 -s $S4K -n 50 -m 4096
ktap_check "RC, IPv4, $(size $S1K)" two ibv_rc_pingpong 4 -s $S1K -n 5
ktap_check "RC, IPv6, 4 KiB" two ibv_rc_pingpong 6 -s 4096 -n 200
ktap_check "RC, IPv6, $(size $S256), MTU 256" two ibv_rc_pingpong 6 -s $S256 -n 2 -m 256
ktap_check "RC, completion events" two ibv_rc_pingpong 4 -s 1000 -n 200 -e
ktap_check "RC, IPv6, completion events" two ibv_rc_pingpong 6 -s $((S1K < 100000 ? S1K : 100000)) -n 20 -e
ktap_check "RC, loopback on one device" loop ibv_rc_pingpong -s $((S1K < 65536 ? S1K : 65536)) -n 50
ktap_check "UC, IPv4, 1 byte" two ibv_uc_pingpong 4 -s 1 -n 200
ktap_check "UC, IPv4, 64 KiB" two ibv_uc_pingpong 4 -s 65536 -n 20
ktap_check "UC, IPv6, completion events" two ibv_uc_pingpong 6 -s 4096 -n 100 -e
ktap_check "UC, loopback on one device" loop ibv_uc_pingpong -s 4096 -n 100
ktap_check "SRQ, IPv4, 16 QPs" two ibv_srq_pingpong 4 -s 4096 -n 100
ktap_check "SRQ, IPv6, completion events" two ibv_srq_pingpong 6 -s 1000 -n 100 -e
ktap_check "SRQ, $(size $S1K)" two ibv_srq_pingpong 4 -s $S1K -n 2 -q 4
ktap_check "SRQ, loopback on one device" loop ibv_srq_pingpong -s 4096 -n 50
# no_drops: no packet refused on receive on either host. Not counted:
# rx_drop_no_qp and rx_drop_qp_state, which take late duplicates (a resend
# after a spurious ACK timeout on a loaded host) that reach a QP its
# program has already destroyed.
no_drops() {
	local d out=
	for d in 1 2; do
		out+=$(rdma statistic show link "sroce_h$d/1" |
			awk '{ for (i = 3; i < NF; i += 2) if ($(i + 1) != 0 && $i ~ /^rx_(drop|icrc)/ && $i !~ /no_qp|qp_state/) print $1, $2, $i, $(i + 1) }')
	done
	[ -z "$out" ] || { echo "$out"; return 1; }
}
ktap_check "no packet refused or dropped on either host" no_drops

ktap_check "rxe on the initial namespace's end" rxe_peer_up 2
ktap_check "RC: sroce client, rdma_rxe server" \
	rxe_pingpong ibv_rc_pingpong rxe -s $((S1K < 65536 ? S1K : 65536)) -n 50
ktap_check "RC: rdma_rxe client, sroce server" \
	rxe_pingpong ibv_rc_pingpong sroce -s $((S1K < 65536 ? S1K : 65536)) -n 50
ktap_check "UC: sroce client, rdma_rxe server" \
	rxe_pingpong ibv_uc_pingpong rxe -s 4096 -n 50
rxe_peer_down

ktap_finish
