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

gid() {	# gid HOST DEV FAMILY: the index of the device's IPv4/IPv6 GID
	local re
	[ "$3" = 4 ] && re='::ffff:' || re='fd77::'
	host_exec "$1" ibv_devinfo -v -d "$2" |
		sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*$re.*RoCE v2/\1/p" | head -n1
}
# pingpong SRV_HOST SRV_DEV CLI_HOST CLI_DEV FAMILY SERVER_IP ARGS...
pingpong() {
	local sh=$1 sd=$2 ch=$3 cd=$4 fam=$5 ip=$6 port=$((18000 + RANDOM % 1000))
	shift 6
	local sg cg out rc
	sg=$(gid "$sh" "$sd" "$fam")
	cg=$(gid "$ch" "$cd" "$fam")
	host_exec "$sh" timeout 30 ibv_ud_pingpong -d "$sd" -g "$sg" -p "$port" \
		"$@" >/tmp/ud-server.txt 2>&1 &
	# The server opens the device before it listens; on a busy host
	# that takes a while.
	wait_for 10 host_listening "$sh" "$port"
	out=$(host_exec "$ch" timeout 30 ibv_ud_pingpong -d "$cd" \
		-g "$cg" -p "$port" "$@" "$ip" 2>&1)
	rc=$?
	wait $! || rc=1
	echo "$out"
	echo "-- server:"
	cat /tmp/ud-server.txt
	[ "$rc" -eq 0 ] && grep -q 'iters in' <<<"$out" &&
		grep -q 'iters in' /tmp/ud-server.txt
}
rx() { rdma statistic show link "$1/1" | awk '{ for (i = 3; i < NF; i += 2) if ($i == "rx_packets") print $(i + 1) }'; }

hosts_create 2
sroce_add 1
sroce_add 2

ktap_check "IPv4, 1000 bytes, 500 iterations" \
	pingpong 1 sroce_h1 2 sroce_h2 4 "$(host_ip 1)" -s 1000 -n 500
ktap_expect "... every datagram counted once on each side" '^500 500$' \
	bash -c "echo \$(rdma statistic show link sroce_h1/1 | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2) \$(rdma statistic show link sroce_h2/1 | grep -o 'rx_packets [0-9]*' | cut -d' ' -f2)"
ktap_check "IPv6, 1000 bytes" \
	pingpong 1 sroce_h1 2 sroce_h2 6 "$(host_ip 1)" -s 1000 -n 200
ktap_check "1 byte, with completion events" \
	pingpong 1 sroce_h1 2 sroce_h2 4 "$(host_ip 1)" -s 1 -n 200 -e
ktap_check "IPv6 with completion events" \
	pingpong 1 sroce_h1 2 sroce_h2 6 "$(host_ip 1)" -s 512 -n 200 -e
ktap_check "loopback: both ends on one device" \
	pingpong 1 sroce_h1 1 sroce_h1 4 "$(host_ip 1)" -s 1000 -n 200
ktap_expect "no datagram dropped anywhere" \
	'rx_drop_no_qp 0 rx_drop_qp_state 0 rx_drop_qkey 0 rx_drop_no_wqe 0' \
	rdma statistic show link sroce_h1/1

# rdma_rxe in the initial namespace, joined to a sroce host by a veth pair.
ip link add vrxe type veth peer name vrxe_p netns h2
ip addr add 10.78.0.1/24 dev vrxe
ip -6 addr add fd78::1/64 dev vrxe nodad
ip link set vrxe up
host_exec 2 ip addr add 10.78.0.2/24 dev vrxe_p
host_exec 2 ip link set vrxe_p up
modprobe rdma_rxe
ktap_check "rxe on the initial namespace's end" \
	rdma link add rxe_v type rxe netdev vrxe
host_exec 2 rdma link add sroce_x type sroce netdev vrxe_p
rxegid=$(ibv_devinfo -v -d rxe_v | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:10.78.0.1.*/\1/p')
xgid=$(host_exec 2 ibv_devinfo -v -d sroce_x | sed -n 's/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:10.78.0.2.*/\1/p')
interop() {	# interop: rxe serves, sroce is the client; then the reverse
	ibv_ud_pingpong -d rxe_v -g "$rxegid" -s 1000 -n 100 -p 18900 >/tmp/rxe.txt 2>&1 &
	sleep 0.5
	host_exec 2 timeout 20 ibv_ud_pingpong -d sroce_x -g "$xgid" -s 1000 -n 100 -p 18900 10.78.0.1 || return 1
	wait $! || { cat /tmp/rxe.txt; return 1; }
}
interop_rev() {
	host_exec 2 timeout 20 ibv_ud_pingpong -d sroce_x -g "$xgid" -s 1000 -n 100 -p 18901 >/tmp/sx.txt 2>&1 &
	sleep 0.5
	timeout 20 ibv_ud_pingpong -d rxe_v -g "$rxegid" -s 1000 -n 100 -p 18901 10.78.0.2 || return 1
	wait $! || { cat /tmp/sx.txt; return 1; }
}
ktap_check "sroce client, rdma_rxe server (IPv4)" interop
ktap_check "rdma_rxe client, sroce server (IPv4)" interop_rev
host_exec 2 rdma link delete sroce_x
rdma link delete rxe_v
ip link del vrxe
rmmod rdma_rxe	# it holds UDP 4791 while loaded

ktap_finish
