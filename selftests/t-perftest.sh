#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-perftest.sh: unmodified perftest programs over sroce, between two hosts
# (IPv4 and IPv6 GIDs), in loopback on one device, and against rdma_rxe
# (every opcode, both directions: wire interop), and each program again
# connected through rdma_cm (-R). Correctness only:
# every program must finish and print its table, and loopback ACKs must
# coalesce (counted in packets); the figures are for `make bench`.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

progs="ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat ib_read_lat ib_atomic_lat"
ktap_require root cmd:rdma module:sroce module:veth \
	$(for p in $progs; do echo "cmd:$p"; done)

ktap_plan 32

hosts_create 2
sroce_add 1
sroce_add 2
ip1=$(host_ip 1)

for p in $progs; do
	ktap_check "$p, IPv4" \
		perftest "$p" 1 sroce_h1 2 sroce_h2 4 "$ip1" -n 100
done
for p in ib_send_bw ib_read_lat; do
	ktap_check "$p, IPv6" \
		perftest "$p" 1 sroce_h1 2 sroce_h2 6 "$ip1" -n 100
done
for p in ib_write_lat ib_read_bw ib_atomic_bw; do
	ktap_check "$p, loopback on one device" \
		perftest "$p" 1 sroce_h1 1 sroce_h1 4 "$ip1" -n 100
done

# tx_packets of 1600 2-byte WRITEs in loopback, with perftest's ARGS
# The packets of the last try only: perftest_retry may repeat the pair.
t0_file=$(mktemp)
trap 'rm -f "$t0_file"; hosts_cleanup' EXIT
write_try() {
	counter 1 tx_packets >"$t0_file"
	app_pair -x "$@"
}
write_packets() {
	local out
	out=$(perftest_retry write_try ib_write_bw 1 sroce_h1 1 sroce_h1 4 \
		"$ip1" -s 2 -n 1600 "$@") || { echo "$out" >&2; return 1; }
	echo $(($(counter 1 tx_packets) - $(cat "$t0_file")))
}
# perftest signals one WRITE in 100. The rest of a stream asks for an ACK
# only every 32 packets (sroce_rc_ackreq()), one per post or 16 per post;
# with 16 per post, the responder also ACKs a doorbell's requests once
# (sroce_rc_ack_now()). Asking at every WRITE would make 3200 packets.
one=$(write_packets -l 1)
list=$(write_packets -l 16)
echo "1600 WRITEs in loopback: $one packets one per post, $list 16 per post" |
	ktap_diag
ktap_check "a stream of WRITEs, one per post: under one ACK per 4 WRITEs" \
	test "${one:-0}" -gt 1600 -a "${one:-0}" -lt 2000
ktap_check "a stream of WRITEs, 16 per post: under one ACK per 4 WRITEs" \
	test "${list:-0}" -gt 1600 -a "${list:-0}" -lt 2000

ktap_check "ib_write_bw, 1 MiB" \
	perftest ib_write_bw 1 sroce_h1 2 sroce_h2 4 "$ip1" -s 1048576 -n 20
ktap_check "ib_read_bw, 16 QPs, 64 KiB" \
	perftest ib_read_bw 1 sroce_h1 2 sroce_h2 4 "$ip1" -q 16 -s 65536 -n 50
ktap_check "ib_send_bw, bidirectional" \
	perftest ib_send_bw 1 sroce_h1 2 sroce_h2 4 "$ip1" -b -n 100
ktap_check "ib_send_lat, inline 128 bytes" \
	perftest ib_send_lat 1 sroce_h1 2 sroce_h2 4 "$ip1" -s 128 -I 128 -n 100

for p in ib_send_bw ib_read_lat ib_write_bw ib_atomic_lat; do
	ktap_check "$p -R (connected by rdma_cm)" \
		perftest "$p" 1 sroce_h1 2 sroce_h2 4 "$ip1" -R -n 50
done

ktap_check "rxe on the initial namespace's end" rxe_peer_up 2
for p in ib_write_bw ib_send_bw ib_read_bw ib_atomic_lat; do
	ktap_check "$p: sroce client, rdma_rxe server" \
		perftest_retry rxe_perftest "$p" rxe -n 50
	ktap_check "$p: rdma_rxe client, sroce server" \
		perftest_retry rxe_perftest "$p" sroce -n 50
done
rxe_peer_down

ktap_finish
