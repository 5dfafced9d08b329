#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-ud.sh: unmodified ibv_ud_pingpong over sroce: between two hosts over
# IPv4 and IPv6 GIDs, with completion events, on one device in loopback,
# and against rdma_rxe (the stand-in for a hardware RoCEv2 peer).
#
#   h1: veth1 ── sroce_h1 ┐
#                         ├── veth pair
#   h2: veth2 ── sroce_h2 ┘
#   init ns: rxe_v on vrxe ── vrxe_p in h3 with sroce_h3
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:ibv_ud_pingpong module:sroce module:veth

ktap_plan 10

# pingpong SRV_HOST SRV_DEV CLI_HOST CLI_DEV FAMILY SERVER_IP ARGS...
pingpong_ud() { pingpong ibv_ud_pingpong "$@"; }
rx() { rdma statistic show link "$1/1" | awk '{ for (i = 3; i < NF; i += 2) if ($i == "rx_packets") print $(i + 1) }'; }

hosts_create 2
sroce_add 1
sroce_add 2

ktap_check "IPv4, 1000 bytes, 500 iterations" \
	pingpong_ud 1 sroce_h1 2 sroce_h2 4 "$(host_ip 1)" -s 1000 -n 500
ktap_expect "... every datagram counted once on each side" '^500 500$' \
	bash -c "echo \$(rdma statistic show link sroce_h1/1 | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2) \$(rdma statistic show link sroce_h2/1 | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2)"
ktap_check "IPv6, 1000 bytes" \
	pingpong_ud 1 sroce_h1 2 sroce_h2 6 "$(host_ip 1)" -s 1000 -n 200
ktap_check "1 byte, with completion events" \
	pingpong_ud 1 sroce_h1 2 sroce_h2 4 "$(host_ip 1)" -s 1 -n 200 -e
ktap_check "IPv6 with completion events" \
	pingpong_ud 1 sroce_h1 2 sroce_h2 6 "$(host_ip 1)" -s 512 -n 200 -e
ktap_check "loopback: both ends on one device" \
	pingpong_ud 1 sroce_h1 1 sroce_h1 4 "$(host_ip 1)" -s 1000 -n 200
ktap_expect "no datagram dropped anywhere" \
	'rx_drop_no_qp 0 rx_drop_qp_state 0 rx_drop_qkey 0 rx_drop_no_wqe 0' \
	rdma statistic show link sroce_h1/1

# rdma_rxe in the initial namespace, joined to a sroce host by a veth pair.
ktap_check "rxe on the initial namespace's end" rxe_peer_up 2
ktap_check "sroce client, rdma_rxe server (IPv4)" \
	rxe_pingpong ibv_ud_pingpong rxe -s 1000 -n 100
ktap_check "rdma_rxe client, sroce server (IPv4)" \
	rxe_pingpong ibv_ud_pingpong sroce -s 1000 -n 100
rxe_peer_down

ktap_finish
