#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-rdma-cm.sh: the kernel's MAD layer, IB CM and RDMA CM on sroce (kernel
# verbs, QP1): unmodified udaddy (UD through rdma_cm's SIDR exchange over
# QP1) between hosts and in loopback, IPv4 and IPv6, and mckey (multicast
# joined through rdma_cm); datagrams too long for QP1 do not disturb it;
# afterwards no CM ID or user object is left.
#
#   h1: veth1 ── sroce_h1 ┐
#                         ├── veth pair
#   h2: veth2 ── sroce_h2 ┘
#
# RC connections are set up and torn down through the IB CM (ucmatose with
# no data, cmtime); RC data moves through rdma_cm (rping -v -C 1000,
# ucmatose with data, rdma_server/rdma_client, perftest -R).
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:udaddy cmd:mckey cmd:ucmatose cmd:cmtime \
	cmd:rping cmd:rdma_server cmd:ib_send_bw module:sroce module:veth \
	module:rdma_ucm

ktap_plan 26

out_dir=$(mktemp -d)
cleanup() { hosts_cleanup; rm -rf "$out_dir"; }

# The devices' objects, one line each: "pd N cq N qp N cm_id N mr N ...".
objects() {
	rdma resource show | grep -E ' sroce_h[12]:' |
		sed 's/^[0-9]*: //'
}

listening() { rdma resource show cm_id | grep -q "state LISTEN.*src-addr $1"; }

# udaddy_pair SRV_HOST SRV_ADDR CLI_HOST ARGS...: a server bound to
# SRV_ADDR, a client on CLI_HOST; both must complete their transfers.
udaddy_pair() {
	local sh=$1 sa=$2 ch=$3 out rc pid
	shift 3
	host_exec "$sh" timeout 30 udaddy -b "$sa" "$@" \
		>"$out_dir/server" 2>&1 &
	pid=$!
	wait_for 10 listening "$sa"
	out=$(host_exec "$ch" timeout 30 udaddy -s "$sa" "$@" 2>&1)
	rc=$?
	wait $pid || rc=1
	echo "$out"
	echo "-- server:"
	cat "$out_dir/server"
	[ "$rc" -eq 0 ] && grep -q 'data transfers complete' <<<"$out" &&
		grep -q 'data transfers complete' "$out_dir/server"
}

# cm_pair TOOL SRV_HOST SRV_ADDR CLI_HOST ARGS...: TOOL (ucmatose, cmtime)
# serving on SRV_ADDR and its client on CLI_HOST both succeed. A cmtime
# server never exits: it is stopped once the client is done.
cm_pair() {
	local tool=$1 sh=$2 sa=$3 ch=$4 out rc pid
	shift 4
	# Not through a function: $! must be timeout's PID, for kill.
	ip netns exec "$(host_ns "$sh")" timeout 60 "$tool" -b "$sa" "$@" \
		>"$out_dir/server" 2>&1 &
	pid=$!
	wait_for 10 listening "$sa"
	out=$(host_exec "$ch" timeout 60 "$tool" -s "$sa" "$@" 2>&1)
	rc=$?
	if [ "$tool" = cmtime ]; then
		kill "$pid"
		wait "$pid"
	else
		wait "$pid" || rc=1
	fi
	echo "$out"
	echo "-- server:"
	cat "$out_dir/server"
	[ "$rc" -eq 0 ]
}

# mckey_pair RCV_HOST RCV_ADDR SND_HOST SND_ADDR GROUP ARGS...: a receiver
# joins GROUP and must get every datagram of the sender.
mckey_pair() {
	local rh=$1 ra=$2 sh=$3 sa=$4 group=$5 out rc pid
	shift 5
	# mckey prints with stdio: line-buffered, or "joined" stays in its
	# buffer until it exits and the wait below runs out.
	host_exec "$rh" timeout 30 stdbuf -oL mckey -m "$group" -b "$ra" "$@" \
		>"$out_dir/receiver" 2>&1 &
	pid=$!
	wait_for 10 bash -c "grep -q joined '$out_dir/receiver' || ! kill -0 $pid"
	if ! grep -q 'joined' "$out_dir/receiver"; then
		wait $pid
		cat "$out_dir/receiver"
		return 1
	fi
	out=$(host_exec "$sh" timeout 30 mckey -m "$group" -b "$sa" -s "$@" 2>&1)
	rc=$?
	wait $pid || rc=1
	echo "$out"
	echo "-- receiver:"
	cat "$out_dir/receiver"
	[ "$rc" -eq 0 ] && grep -q 'data transfers complete' <<<"$out" &&
		grep -q 'data transfers complete' "$out_dir/receiver"
}

# rc_pair SRV_HOST SRV_CMD... -- CLI_HOST CLI_CMD...: an RC tool's server
# and client (each under a timeout, RC_PAIR_TIMEOUT seconds, default 60);
# both must succeed. Prints both.
rc_pair() {
	local sh=$1 srv=() cli=() ch out rc pid
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	ch=$1
	shift
	cli=("$@")
	# Not through a function: $! must be timeout's PID, for kill.
	ip netns exec "$(host_ns "$sh")" timeout "${RC_PAIR_TIMEOUT:-60}" "${srv[@]}" \
		>"$out_dir/server" 2>&1 &
	pid=$!
	wait_for 10 listening ""
	out=$(host_exec "$ch" timeout "${RC_PAIR_TIMEOUT:-60}" "${cli[@]}" 2>&1)
	rc=$?
	# A server whose client failed may wait for ever: 20 s, then stop it.
	wait_for 20 bash -c "! kill -0 $pid" || kill "$pid"
	wait "$pid" || rc=1
	echo "$out"
	echo "-- server:"
	cat "$out_dir/server"
	return "$rc"
}

# rc_case DESC CMD...: a case with RC data
rc_case() { ktap_check "$@"; }

# rping_ok ADDR CLI_HOST COUNT: rping -v, its server on host 2 at ADDR
rping_ok() {
	local addr=$1 ch=$2 count=$3 out rc n
	# Each ping is a SEND, a READ, a SEND and a WRITE: minutes under TCG.
	out=$(RC_PAIR_TIMEOUT=300 rc_pair 2 rping -s -a "$addr" \
		-C "$count" -v -- "$ch" rping -c -a "$addr" -C "$count" -v)
	rc=$?
	# Pings the client printed as verified, by number: its stderr can cut
	# a line of its stdout in two.
	n=$(sed '/^-- server:$/q' <<<"$out" | grep -o 'rdma-ping-[0-9]*' |
		sort -u | wc -l)
	echo "exit $rc; the client verified $n pings"
	grep -v 'ping data: rdma-ping-' <<<"$out" | tail -20
	[ "$rc" -eq 0 ] && [ "$n" -eq "$count" ]
}

# ucmatose_ok ADDR CLI_HOST: 2 connections with data, server on host 2
ucmatose_ok() {
	local out
	out=$(rc_pair 2 ucmatose -b "$1" -c 2 -S 1000 -- \
		"$2" ucmatose -s "$1" -c 2 -S 1000) || { echo "$out"; return 1; }
	echo "$out"
	[ "$(grep -c 'data transfers complete' <<<"$out")" -eq 2 ]
}

# rdma_client_ok ADDR CLI_HOST: server on host 2
rdma_client_ok() {
	local out
	out=$(rc_pair 2 rdma_server -s "$1" -- "$2" rdma_client -s "$1") ||
		{ echo "$out"; return 1; }
	echo "$out"
	grep -q 'rdma_client: end 0' <<<"$out" &&
		grep -q 'rdma_server: end 0' <<<"$out"
}

perftest_ok() {
	local out
	# -F: perftest's CPU frequency check fails at random under emulation
	out=$(rc_pair 2 ib_send_bw -R -F -d sroce_h2 -n 100 -- \
		1 ib_send_bw -R -F -d sroce_h1 -n 100 "$(host_ip 2)") ||
		{ echo "$out"; return 1; }
	echo "$out"
	grep -qE '^ *65536 +100 ' <<<"$out"
}

no_drops() {
	local d
	for d in sroce_h1 sroce_h2; do
		rdma statistic show link "$d/1" | grep -q \
			'rx_drop_no_qp 0 rx_drop_qp_state 0 rx_drop_qkey 0 rx_drop_no_wqe 0' ||
			{ rdma statistic show link "$d/1"; return 1; }
	done
}

gsi_up() {
	rdma resource show qp link sroce_h1/1 | grep 'lqpn 1 type GSI state RTS' &&
		rdma resource show qp link sroce_h2/1
}

objects_back() {
	objects
	[ "$(objects)" = "$before" ] || { echo "before:"; echo "$before"; false; }
}

at_least() { [ "$(counter "$1" "$2")" -ge "$3" ]; }

# 600 datagrams to QP1 with the GSI Q_Key, each longer than a MAD (more than
# the 512 receive buffers the MAD layer posts): each is dropped and counted,
# none uses up a buffer or moves QP1 to error.
mad_flood() {
	local mac1 c0
	mac1=$(host_exec 1 cat /sys/class/net/veth1/address)
	c0=$(counter sroce_h1 rx_drop_mad_length)
	host_exec 2 python3 "$here/inject.py" veth2 "$mac1" "$(host_ip 2)" \
		"$(host_ip 1)" mad-long 600 || return 1
	wait_for 10 at_least sroce_h1 rx_drop_mad_length $((c0 + 600)) ||
		{ rdma statistic show link sroce_h1/1; return 1; }
	rdma resource show qp link sroce_h1/1 lqpn 1
	rdma resource show qp link sroce_h1/1 lqpn 1 | grep -q 'state RTS'
}

devices_delete() {
	host_exec 1 rdma link delete sroce_h1 &&
		host_exec 2 rdma link delete sroce_h2 &&
		! rdma link show | grep sroce_h
}

hosts_create 2
trap cleanup EXIT
sroce_add 1
sroce_add 2
before=$(objects)

ktap_expect "the MAD layer's QP1 (GSI) is up on each device" \
	'sroce_h2/1 lqpn 1 type GSI state RTS' gsi_up

ktap_check "udaddy, IPv4, between hosts: 20 datagrams of 1000 bytes" \
	udaddy_pair 2 "$(host_ip 2)" 1 -C 20 -S 1000
ktap_check "udaddy, IPv6, between hosts" \
	udaddy_pair 2 "$(host_ip6 2)" 1 -C 20 -S 500
ktap_check "udaddy, 4 connections at once" \
	udaddy_pair 2 "$(host_ip 2)" 1 -c 4 -C 10
ktap_check "udaddy in loopback on one device, IPv4" \
	udaddy_pair 1 "$(host_ip 1)" 1 -C 10
ktap_check "udaddy in loopback on one device, IPv6" \
	udaddy_pair 1 "$(host_ip6 1)" 1 -C 10
ktap_expect "ucmatose: 3 RC connections set up and torn down (no data)" \
	'disconnected' cm_pair ucmatose 2 "$(host_ip 2)" 1 -c 3 -C 0
ktap_expect "... over IPv6" \
	'disconnected' cm_pair ucmatose 2 "$(host_ip6 2)" 1 -c 3 -C 0
ktap_expect "cmtime: 10 RC connections, each step timed" \
	'^disconnect *:' cm_pair cmtime 2 "$(host_ip 2)" 1 -c 10
rc_case "rping -v -C 1000: RC pings through rdma_cm, every one verified" \
	rping_ok "$(host_ip 2)" 1 1000
rc_case "rping over IPv6: 100 pings" rping_ok "$(host_ip6 2)" 1 100
rc_case "rping in loopback on one device: 100 pings" \
	rping_ok "$(host_ip 2)" 2 100
rc_case "ucmatose: 2 RC connections with data" ucmatose_ok "$(host_ip 2)" 1
rc_case "ucmatose over IPv6, with data" ucmatose_ok "$(host_ip6 2)" 1
rc_case "rdma_server and rdma_client (librdmacm's rdma_* verbs)" \
	rdma_client_ok "$(host_ip 2)" 1
rc_case "rdma_server and rdma_client over IPv6" \
	rdma_client_ok "$(host_ip6 2)" 1
rc_case "ib_send_bw -R: perftest connected by rdma_cm" perftest_ok
ktap_refuse "no server: the client is told the address is unreachable" \
	'event: RDMA_CM_EVENT_(UNREACHABLE|REJECTED)' \
	host_exec 1 timeout 30 udaddy -s "$(host_ip 2)"
ktap_check "no datagram dropped on either host" no_drops
ktap_check "600 datagrams longer than a MAD to QP1: dropped, QP1 stays RTS" \
	mad_flood
ktap_check "... and takes the next SIDR exchange: udaddy to it" \
	udaddy_pair 1 "$(host_ip 1)" 2 -C 10

ktap_check "mckey, IPv4, between hosts" \
	mckey_pair 2 "$(host_ip 2)" 1 "$(host_ip 1)" 239.77.0.1 -C 20
ktap_check "mckey, IPv4, both ends on one device" \
	mckey_pair 1 "$(host_ip 1)" 1 "$(host_ip 1)" 239.77.0.2 -C 20
# rdma_cm itself joins RoCEv2 multicast groups for IPv4 only (IGMP) up to
# at least 6.1: IPv6 is refused with ENOTSUPP (524) before the device.
out=$(mckey_pair 2 "$(host_ip6 2)" 1 "$(host_ip6 1)" ff0e::77 -C 20 2>&1)
if [ $? -eq 0 ]; then
	ktap_ok "mckey, IPv6, between hosts"
elif grep -q 'failure joining: Unknown error 524' <<<"$out"; then
	ktap_skip "mckey, IPv6, between hosts" \
		"this kernel's rdma_cm has no IPv6 multicast over RoCEv2"
else
	ktap_diag <<<"$out"
	ktap_fail "mckey, IPv6, between hosts"
fi

ktap_expect "afterwards: no CM ID, objects back to the MAD layer's own" \
	'cm_id 0' objects_back
ktap_check "the devices delete with the CM attached" devices_delete

ktap_finish
