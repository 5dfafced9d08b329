#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-interop.sh: sroce and the kernel's rdma_rxe on one wire, with every
# packet captured and checked.
#
#   initial ns: rxe_v on vrxe ──── veth ──── vrxe_p with sroce_x :h1
#               10.78.0.1, fd00:78::1        10.78.0.2, fd00:78::2
#               tcpdump -i vrxe
#
# Every program runs both ways (sroce client with an rxe server, and rxe
# client with a sroce server) over IPv4 and over IPv6 (RoCE v2 GIDs of
# each family):
#
#   program                       IPv4, both ways     IPv6, both ways
#   ibv_rc_pingpong -s 4096 -n 20         x                   x
#   ibv_ud_pingpong -s 1000 -n 20         x                   x
#   rping -v -V -C 10 (rdma_cm)           x                   x
#   ib_write_bw -s 8192 -n 20        -R (rdma_cm)        TCP exchange
#   ib_read_bw  -s 8192 -n 20 -e     -R (rdma_cm)        TCP exchange
#   ib_send_bw  -s 8192 -n 20 -e     -R (rdma_cm)        TCP exchange
#   ib_atomic_bw -n 20 -e            -R (rdma_cm)        TCP exchange
#
# 28 runs. Not the whole cross product, to stay in time under TCG (each
# perftest run costs seconds of start-up): perftest with its own TCP
# exchange is not run over IPv4 here (t-perftest.sh runs ib_read_bw and
# ib_atomic_lat that way against rxe), and -R not over IPv6, which this
# perftest (4.5-0.17) cannot resolve ("Address family for hostname not
# supported"); rping covers rdma_cm over IPv6. The pingpongs' and
# perftest's own TCP exchange runs over IPv4 in both families. Completion
# events (-e) where perftest supports them: busy-polling ends starve both
# devices' packet processing in the guest. perftest's ib_write_bw -e fails
# against either device.
#
# One capture per family (tcpdump -s 0 'udp port 4791' on vrxe, stopped
# with SIGINT so that it flushes, no packet dropped). Each must
#  - decode as InfiniBand in tshark, counted in one pass (-z io,stat): no
#    'udp.port == 4791 && !infiniband', no '_ws.malformed ||
#    _ws.expert.severity >= error'. Two tshark settings: the UDP checksum
#    0 of RoCEv2 over IPv6 (rxe's too; RFC 6935 allows it for tunnels) is
#    not an error, and the dissectors tshark would guess on IB payloads
#    (RPC over RDMA, SMB Direct, ...) are off: the payloads are the
#    programs' arbitrary bytes;
#  - pass icrc-check.py: every RoCEv2 packet's ICRC right, as many packets
#    as tshark's InfiniBand ones, packets from both ends' addresses, and
#    each end having sent SEND, RDMA WRITE, RDMA READ request and response,
#    atomic and atomic ACK, ACK and UD SEND packets.
# And the checks can fail: icrc-check.py refuses a copy of the capture with
# one bit flipped, an empty capture and hand-made packets with a bad ICRC
# (and accepts ones whose masked fields changed); tshark's filters flag
# hand-made truncated packets, and count every packet as undecoded with
# its InfiniBand dissector off. SROCE_PCAP_DIR=DIR keeps the captures and
# each run's output.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 cmd:tcpdump cmd:tshark cmd:rping \
	cmd:ibv_rc_pingpong cmd:ibv_ud_pingpong cmd:ib_write_bw \
	cmd:ib_read_bw cmd:ib_send_bw cmd:ib_atomic_bw \
	module:sroce module:veth module:rdma_rxe module:rdma_ucm

progs="ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw"
ktap_plan 44

dir=$(mktemp -d)
cap_pid=
cleanup() {
	[ -z "$cap_pid" ] || { kill -INT "$cap_pid"; wait "$cap_pid"; }
	hosts_cleanup
	rm -rf "$dir"
}

# RoCEv2 over IPv6 sends UDP checksum 0, as tunnels may (RFC 6935), and
# rdma_rxe does too: not an error here. IB payload heuristics tshark would
# otherwise try on SEND and WRITE data are turned off.
tshark_opts=(-o udp.ignore_ipv6_zero_checksum:TRUE)
for h in rpcrdma_infiniband smcr_infiniband smb_direct_infiniband \
	nvme_rdma lnet_ib iser_infiniband mellanox_eoib sdp_infiniband \
	fc_infiniband drbd_rdma; do
	tshark_opts+=(--disable-heuristic "$h")
done
tsh() { tshark "${tshark_opts[@]}" "$@" 2>&1 | grep -v '^Running as user'; }

# cap_start NAME: capture RoCEv2 on vrxe into $dir/NAME.pcap, each packet
# written as soon as tcpdump has it (-U)
cap_start() {
	tcpdump -i vrxe -s 0 -B 8192 -U -w "$dir/$1.pcap" udp port 4791 \
		2>"$dir/$1.tcpdump" &
	cap_pid=$!
	wait_for 10 grep -q 'listening on' "$dir/$1.tcpdump"
}

# cap_stop NAME (not in a subshell: it waits for tcpdump): stop the capture
# once it has stopped growing, and no earlier than 2 s after the last run:
# the kernel hands tcpdump its packets in ring blocks, each when full or
# after the 1 s timeout, and a block still open at SIGINT would be lost
# without being counted as dropped. SIGINT: tcpdump flushes and exits.
cap_stop() {
	local a b i
	sleep 2
	b=$(stat -c %s "$dir/$1.pcap")
	for ((i = 0; i < 20; i++)); do
		sleep 1
		a=$(stat -c %s "$dir/$1.pcap")
		[ "$a" = "$b" ] && break
		b=$a
	done
	kill -INT "$cap_pid"
	wait "$cap_pid"
	cap_pid=
	[ -z "${SROCE_PCAP_DIR:-}" ] || cp "$dir/$1.pcap" "$SROCE_PCAP_DIR/"
}

# cap_ok NAME: tcpdump's report, which must count no packet dropped
cap_ok() {
	cat "$dir/$1.tcpdump"
	grep -qx '0 packets dropped by kernel' "$dir/$1.tcpdump"
}

# rxe_perf FAMILY SERVER PROG ARGS...: PROG between rxe and sroce, each
# end's TCP exchange as usual
rxe_perf() {
	local fam=$1 srv=$2
	shift 2
	RXE_FAMILY=$fam perftest_retry rxe_perftest "$1" "$srv" "${@:2}"
}

pingpong_ok() {
	local out
	out=$(RXE_FAMILY=$1 rxe_pingpong "$3" "$2" "${@:4}" 2>&1)
	local rc=$?
	echo "$out"
	[ "$rc" -eq 0 ] && [ "$(grep -c 'iters in' <<<"$out")" -eq 2 ]
}
rc_pp() { pingpong_ok "$1" "$2" ibv_rc_pingpong -s 4096 -n 20; }
ud_pp() { pingpong_ok "$1" "$2" ibv_ud_pingpong -s 1000 -n 20; }

# cm_listening PORT: a server listens through rdma_cm on PORT (-d: the
# per-device listeners of a wildcard one are the kernel's)
cm_listening() {
	rdma -d resource show cm_id | grep -qE "state LISTEN .*src-addr [^ ]*:$1( |$)"
}

# cm_pair SERVER PORT SRV_CMD... -- CLI_CMD...: an rdma_cm program's
# server at SERVER's end (rxe or sroce) and its client at the other; both
# must succeed. Prints the client's output, "-- server:" and the server's.
cm_pair() {
	local server=$1 port=$2 scmd=() ccmd=() out rc pid sx=() cx=()
	shift 2
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	if [ "$server" = rxe ]; then cx=(ip netns exec "h$RXE_HOST")
	else sx=(ip netns exec "h$RXE_HOST"); fi
	"${sx[@]}" timeout 60 "${scmd[@]}" >"$dir/server" 2>&1 &
	pid=$!
	wait_for 10 cm_listening "$port"
	out=$("${cx[@]}" timeout 60 "${ccmd[@]}" 2>&1)
	rc=$?
	# A server whose client failed may wait for ever: 20 s, then stop it.
	wait_for 20 bash -c "! kill -0 $pid" || kill "$pid"
	wait "$pid" || rc=1
	echo "$out"
	echo "-- server:"
	cat "$dir/server"
	return "$rc"
}

addr() {	# addr rxe|sroce FAMILY
	case $1$2 in
	rxe4) echo "$RXE_IP" ;; rxe6) echo "$RXE_IP6" ;;
	sroce4) echo "$RXE_PEER_IP" ;; sroce6) echo "$RXE_PEER_IP6" ;;
	esac
}

# rping_ok FAMILY SERVER: rping -v -V -C 10; the client must print all
# 10 pings (by number: its stderr can cut a line of its stdout in two)
rping_ok() {
	local a out rc n port=$((20000 + RANDOM % 1000))
	a=$(addr "$2" "$1")
	out=$(cm_pair "$2" "$port" rping -s -a "$a" -p "$port" -C 10 -v -V \
		-- rping -c -a "$a" -p "$port" -C 10 -v -V)
	rc=$?
	n=$(sed '/^-- server:$/q' <<<"$out" | grep -o 'rdma-ping-[0-9]*' |
		sort -u | wc -l)
	echo "exit $rc; the client verified $n pings"
	grep -v 'ping data: rdma-ping-' <<<"$out" | tail -20
	[ "$rc" -eq 0 ] && [ "$n" -eq 10 ]
}

# cm_perf FAMILY SERVER PROG ARGS...: PROG -R (connected by rdma_cm)
cm_perf() {
	local fam=$1 srv=$2 prog=$3 out rc port a sd cd
	shift 3
	a=$(addr "$srv" "$fam")
	if [ "$srv" = rxe ]; then sd=rxe_v cd=sroce_x; else sd=sroce_x cd=rxe_v; fi
	for _ in 1 2 3; do
		port=$((21000 + RANDOM % 1000))
		out=$(cm_pair "$srv" "$port" "$prog" -R -d "$sd" -p "$port" "$@" \
			-- "$prog" -R -d "$cd" -p "$port" "$@" "$a")
		rc=$?
		[ "$rc" -eq 0 ] && perftest_reported "$out" &&
			{ echo "$out"; return 0; }
		grep -qE 'Correlation coefficient|RDMA_CM_EVENT_REJECTED' <<<"$out" ||
			break
	done
	echo "$out"
	return 1
}

# args PROG: the perftest arguments for PROG. Completion events (-e) where
# this perftest has them: busy-polling ends take the TCG guest's CPUs from
# both devices' packet processing and make a run several times slower.
args() {
	case $1 in
	ib_write_bw) echo "-s 8192 -n 20" ;;
	ib_atomic_bw) echo "-n 20 -e" ;;
	*) echo "-s 8192 -n 20 -e" ;;
	esac
}

# block SRC: icrc-check's opcode lines for packets from SRC
block() {
	awk -v h="from $1:" 'index($0, h) == 1 { on = 1; next }
		/^from / || /RoCEv2 packets/ { on = 0 } on' "$dir/$cap.icrc"
}

# tstat FILE [OPTION...]: one tshark pass (each start costs seconds under
# TCG) counting FILE's frames that match each of these filters: UDP/4791,
# InfiniBand, UDP/4791 but not InfiniBand, malformed or with an expert
# error. Prints the four counts on one line.
tstat() {
	local f=$1
	shift
	tsh "$@" -r "$f" -q -z "io,stat,0,udp.port == 4791,infiniband,$undecoded,$bad" |
		awk -F'|' '/<>/ { gsub(/ /, ""); print $3, $5, $7, $9 }'
}
undecoded='udp.port == 4791 && !infiniband'
bad='_ws.malformed || _ws.expert.severity >= error'

# tshark_ok: every UDP/4791 packet of the capture is InfiniBand, none is
# malformed or has an expert error; on failure, shows the culprits
tshark_ok() {
	local udp ib un b
	read -r udp ib un b < <(tstat "$dir/$cap.pcap")
	echo "UDP/4791 $udp, InfiniBand $ib, UDP/4791 not InfiniBand $un, malformed or error $b"
	if [ "${udp:-0}" -gt 0 ] && [ "$ib" = "$udp" ] && [ "$un" = 0 ] && [ "$b" = 0 ]; then
		echo "$ib" >"$dir/$cap.ib"
		return 0
	fi
	tsh -r "$dir/$cap.pcap" -Y "($undecoded) || $bad" | head -20
	return 1
}

icrc_ok() {	# icrc-check passes with both ends seen; its count is tshark's
	local fam=$1 n
	python3 "$here/icrc-check.py" --want-src "$(addr rxe "$fam")" \
		--want-src "$(addr sroce "$fam")" "$dir/$cap.pcap" >"$dir/$cap.icrc"
	local rc=$?
	cat "$dir/$cap.icrc"
	[ "$rc" -eq 0 ] || return 1
	n=$(sed -n 's/^\([0-9]*\) RoCEv2 packets.*/\1/p' "$dir/$cap.icrc")
	[ "$n" = "$(cat "$dir/$cap.ib" 2>/dev/null)" ] ||
		{ echo "tshark saw $(cat "$dir/$cap.ib" 2>/dev/null) InfiniBand packets"; return 1; }
}

# each end sent each kind of packet the runs make
opcodes_ok() {
	local fam=$1 end src re out rc=0
	for end in rxe sroce; do
		src=$(addr "$end" "$fam")
		out=$(block "$src")
		for re in RC_SEND_ RC_RDMA_WRITE_ RC_RDMA_READ_REQUEST \
			RC_RDMA_READ_RESPONSE_ 'RC_(COMPARE_SWAP|FETCH_ADD)' \
			RC_ATOMIC_ACKNOWLEDGE RC_ACKNOWLEDGE UD_SEND_ONLY; do
			grep -qE "^  $re" <<<"$out" ||
				{ echo "$end ($src) sent no $re"; rc=1; }
		done
	done
	return "$rc"
}

# timed DESC CMD...: ktap_check, and how long it took; with SROCE_PCAP_DIR,
# CMD's output is also kept there, in N.log for case N
timed() {
	local t=$SECONDS desc=$1
	shift
	ktap_check "$desc" keep_log "$@"
	echo "# $((SECONDS - t)) s"
}
keep_log() {
	[ -n "${SROCE_PCAP_DIR:-}" ] || { "$@"; return; }
	# shellcheck disable=SC2154 # ktap_n: ktap.sh's case count
	"$@" 2>&1 | tee "$SROCE_PCAP_DIR/$((ktap_n + 1)).log"
	return "${PIPESTATUS[0]}"
}

hosts_create 2
trap cleanup EXIT
modprobe -a ib_uverbs rdma_ucm
ktap_check "rxe in the initial namespace, sroce in h1, IPv4 and IPv6" \
	rxe_peer_up 1
RXE_HOST=1
gids() { [ -n "$(rxe_gid rxe 6)" ] && [ -n "$(rxe_gid sroce 6)" ]; }
wait_for 10 gids

for fam in 4 6; do
	cap=ipv$fam
	cap_start "$cap"
	for srv in rxe sroce; do
		if [ "$srv" = rxe ]; then how="sroce client, rxe server"
		else how="rxe client, sroce server"; fi
		timed "IPv$fam ibv_rc_pingpong: $how" rc_pp "$fam" "$srv"
		timed "IPv$fam ibv_ud_pingpong: $how" ud_pp "$fam" "$srv"
		timed "IPv$fam rping -v -V -C 10: $how" rping_ok "$fam" "$srv"
		for p in $progs; do
			# shellcheck disable=SC2046
			if [ "$fam" = 4 ]; then
				timed "IPv$fam $p -R: $how" \
					cm_perf "$fam" "$srv" "$p" $(args "$p")
			else
				timed "IPv$fam $p: $how" \
					rxe_perf "$fam" "$srv" "$p" $(args "$p")
			fi
		done
	done
	cap_stop "$cap"
	timed "IPv$fam capture: tcpdump stopped, no packet dropped" \
		cap_ok "$cap"
	timed "IPv$fam capture: tshark: all InfiniBand, none malformed, no expert error" \
		tshark_ok
	timed "IPv$fam capture: every ICRC right (icrc-check.py), both ends seen" \
		icrc_ok "$fam"
	timed "IPv$fam capture: each end sent SEND, WRITE, READ, atomics, ACKs, UD" \
		opcodes_ok "$fam"
done

# The checks can fail.
cap=ipv4
flipped() {
	python3 "$here/icrc-check.py" --flip "$dir/ipv4.pcap" "$dir/flip.pcap" &&
		python3 "$here/icrc-check.py" "$dir/flip.pcap"
}
ktap_refuse "icrc-check.py finds one bit flipped in a copy of the capture" \
	'bad ICRC' flipped
inject() {	# inject FILE KIND [COUNT]: hand-made packets, each family
	python3 "$here/inject.py" "pcap:$dir/$1" 02:00:00:00:00:01 \
		"$RXE_PEER_IP" "$RXE_IP" "$2" "${3:-1}" &&
	python3 "$here/inject.py" "pcap:$dir/$1" 02:00:00:00:00:01 \
		"$RXE_PEER_IP6" "$RXE_IP6" "$2" "${3:-1}"
}
inject none.pcap good 0
ktap_refuse "icrc-check.py refuses a capture without RoCEv2 packets" \
	'no RoCEv2 packet' python3 "$here/icrc-check.py" "$dir/none.pcap"
inject bad.pcap good
inject bad.pcap bad-icrc
ktap_refuse "icrc-check.py finds hand-made packets with a bad ICRC" \
	'4 RoCEv2 packets, 2 good ICRC, 2 bad' \
	python3 "$here/icrc-check.py" "$dir/bad.pcap"
inject masked.pcap masked
ktap_expect "... and accepts ones whose masked fields (TTL, DSCP/ECN, FECN/BECN) changed" \
	'2 RoCEv2 packets, 2 good ICRC, 0 bad' \
	python3 "$here/icrc-check.py" "$dir/masked.pcap"
# frames 1 and 2 good, 3 and 4 with 10 bytes of UDP payload; the two
# tshark passes at once
inject short.pcap good
inject short.pcap short
tstat "$dir/short.pcap" >"$dir/short.stat" &
tstat "$dir/short.pcap" --disable-protocol infiniband >"$dir/noib.stat"
wait $!
ktap_expect "tshark's filter flags the 2 truncated ones of 4 hand-made packets" \
	'^4 4 0 2$' cat "$dir/short.stat"
ktap_expect "... and its undecoded filter takes all 4 with InfiniBand turned off" \
	'^4 0 4 ' cat "$dir/noib.stat"

rxe_gone() {
	rxe_peer_down
	rdma link show
	! rdma link show | grep -q rxe_v && ! lsmod | grep -q '^rdma_rxe '
}
ktap_check "the rxe peer goes away, rdma_rxe unloads" rxe_gone
RXE_HOST=
echo "# $SECONDS s"
ktap_finish
