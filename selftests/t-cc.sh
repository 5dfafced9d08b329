#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-cc.sh: the DCQCN machinery, piece by piece, between two hosts (the
# congested link is t-dcqcn.sh's):
#  - the knobs under /sys/class/infiniband/DEV/cc/: mlx5's defaults, a
#    value written reads back, a bad one is refused with EINVAL and changes
#    nothing, only root may write;
#  - ECN marking: the codepoint of the `ecn` knob on the wire, DSCP kept;
#  - the notification point: h2's ingress marks every packet CE (tc pedit);
#    h2 sends CNPs (tshark decodes them as CNPs), at most one per QP per
#    min_time_between_cnps; enable_np=0 stops them;
#  - the reaction point: h1 handles them (cuts counted, the rate shown by
#    `rdma resource show qp`, tracepoints fire); enable_rp=0 ignores them;
#  - both for UD too: h2's UD QP sends the CNPs to the datagrams' source
#    QP, h1's UD QP cuts its rate;
#  - the pacer: with the rate pinned low by the knobs, ib_write_bw moves
#    data at that rate, not faster, and so do the READ responses of
#    ib_read_bw's responder and ib_send_bw's UD datagrams; a QP destroyed
#    while its pacer holds a packet back leaves nothing behind;
#  - interop: CNPs from sroce to rdma_rxe are harmless.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:tc cmd:tshark cmd:tcpdump cmd:ibv_rc_pingpong \
	cmd:ibv_ud_pingpong cmd:ib_write_bw module:sroce module:veth \
	module:act_pedit

hosts_create 2
sroce_add 1
sroce_add 2
tmp=$(mktemp -d)
cleanup() {
	[ -n "${cap:-}" ] && kill "$cap" 2>/dev/null
	rm -rf "$tmp"
	hosts_cleanup
}
trap cleanup EXIT
ip1=$(host_ip 1)
ip2=$(host_ip 2)
cc1=/sys/class/infiniband/sroce_h1/cc
cc2=/sys/class/infiniband/sroce_h2/cc

PARAMS="rpg_time_reset rpg_byte_reset rpg_threshold rpg_ai_rate rpg_hai_rate
rpg_gd rpg_min_dec_fac rpg_min_rate rpg_max_rate rate_to_set_on_first_cnp
clamp_tgt_rate clamp_tgt_rate_after_time_inc dce_tcp_g dce_tcp_rtt
rate_reduce_monitor_period initial_alpha_value min_time_between_cnps cnp_dscp
cnp_802p_prio"

# setcc H NAME VALUE: set a knob on sroce_hH
setcc() { echo "$3" >"/sys/class/infiniband/sroce_h$1/cc/$2"; }
defaults() {
	local h
	for h in 1 2; do
		setcc "$h" enable_rp 1 && setcc "$h" enable_np 1 &&
			setcc "$h" ecn 2 && setcc "$h" min_time_between_cnps 4 &&
			setcc "$h" rpg_time_reset 300 &&
			setcc "$h" rpg_byte_reset 32767 &&
			setcc "$h" rate_to_set_on_first_cnp 0 &&
			setcc "$h" rpg_max_rate 0 && setcc "$h" rpg_min_rate 1 ||
			return 1
	done
}

# CE marking of everything h2 receives, and undoing it
ce_on() {
	host_exec 2 tc qdisc replace dev veth2 clsact &&
		host_exec 2 tc filter replace dev veth2 ingress protocol ip \
			prio 1 u32 match ip protocol 17 0xff \
			action pedit ex munge ip tos set 0x03 retain 0x03 pipe \
			action csum ip
}
ce_off() { host_exec 2 tc qdisc del dev veth2 clsact 2>/dev/null; true; }
resources_mark 1 2

ktap_plan 41

# --- the knobs
check_files() {
	local f
	for f in enable_rp enable_np ecn $PARAMS; do
		[ -f "$cc1/$f" ] || { echo "no $cc1/$f"; return 1; }
	done
}
ktap_check "the cc directory has every knob" check_files

check_defaults() {
	local want="enable_rp=1 enable_np=1 ecn=2 rpg_time_reset=300
	rpg_byte_reset=32767 rpg_threshold=1 rpg_ai_rate=5 rpg_hai_rate=50
	rpg_gd=11 rpg_min_dec_fac=50 rpg_min_rate=1 rpg_max_rate=0
	rate_to_set_on_first_cnp=0 clamp_tgt_rate=0
	clamp_tgt_rate_after_time_inc=1 dce_tcp_g=1019 dce_tcp_rtt=1
	rate_reduce_monitor_period=4 initial_alpha_value=1023
	min_time_between_cnps=4 cnp_dscp=48 cnp_802p_prio=6" kv bad=0
	for kv in $want; do
		if [ "$(cat "$cc1/${kv%=*}")" != "${kv#*=}" ]; then
			echo "${kv%=*} is $(cat "$cc1/${kv%=*}"), want ${kv#*=}"
			bad=1
		fi
	done
	return $bad
}
ktap_check "defaults are mlx5's" check_defaults

ktap_check "a value written reads back" \
	bash -c "echo 77 >$cc1/rpg_ai_rate && test \$(cat $cc1/rpg_ai_rate) = 77 &&
		 echo 5 >$cc1/rpg_ai_rate"

# refused NAME VALUE: the write fails with EINVAL; the value is unchanged
refused() {
	local before out
	before=$(cat "$cc1/$1")
	out=$( (echo "$2" >"$cc1/$1") 2>&1) && { echo "accepted $1=$2"; return 1; }
	grep -q "Invalid argument" <<<"$out" || { echo "$out"; return 1; }
	[ "$(cat "$cc1/$1")" = "$before" ] || { echo "$1 changed"; return 1; }
}
ktap_check "out of range values are refused with EINVAL, nothing changed" \
	bash -c "$(declare -f refused); cc1=$cc1
		refused cnp_dscp 64 && refused cnp_802p_prio 8 &&
		refused enable_rp 2 && refused ecn 3 && refused rpg_gd 0 &&
		refused rpg_min_dec_fac 101 && refused initial_alpha_value 1025 &&
		refused rpg_time_reset 0 && refused rpg_threshold abc &&
		refused dce_tcp_g -1"
ktap_check "rpg_min_rate above a non-zero rpg_max_rate is refused" \
	bash -c "$(declare -f refused); cc1=$cc1
		echo 100 >$cc1/rpg_max_rate && refused rpg_min_rate 200 &&
		echo 0 >$cc1/rpg_max_rate"
ktap_outcome "only root may change a knob" "Permission denied" 0 \
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
	bash -c "echo 10 >$cc1/rpg_ai_rate"

# --- ECN marking on the wire
# capture H FILE: capture RoCE traffic on hH's veth into FILE
capture() {
	host_exec "$1" tcpdump -i "veth$1" -U -w "$2" udp port 4791 \
		>/dev/null 2>&1 &
	cap=$!
	sleep 1
}
capture_end() { sleep 0.5; kill "$cap"; wait "$cap" 2>/dev/null; cap=; }
# ecn_seen FILE: the distinct "ecn dscp" pairs of the RoCE packets in FILE
ecn_seen() {
	tshark -r "$1" -T fields -e ip.dsfield.ecn -e ip.dsfield.dscp \
		2>/dev/null | sort -u | tr '\n' ' '
}
run_pp() { pingpong ibv_rc_pingpong 2 sroce_h2 1 sroce_h1 4 "$ip2" "$@" >/dev/null; }
run_ud() { pingpong ibv_ud_pingpong 2 sroce_h2 1 sroce_h1 4 "$ip2" "$@" >"$tmp/ud.out"; }

for e in 2 1 0; do
	setcc 1 ecn "$e"
	setcc 2 ecn "$e"
	capture 2 "$tmp/ecn$e.pcap"
	perftest ib_send_bw 2 sroce_h2 1 sroce_h1 4 "$ip2" -n 20 --tclass=32 \
		>/dev/null
	capture_end
	seen=$(ecn_seen "$tmp/ecn$e.pcap")
	echo "# ecn=$e: ecn/dscp seen: $seen"
	ktap_check "ecn=$e: every packet has ECN $e and DSCP 8 (traffic class 32)" \
		test "$seen" = "$e	8 "
done
setcc 1 ecn 2
setcc 2 ecn 2

# --- the notification point and the reaction point
# cnp_run PCAP DESCRIPTION CMD...: CMD as a case, with h1's veth captured
# into PCAP; sets marked, sent (h2's CE-marked packets and CNPs sent) and
# handled, ignored, cuts (h1's CNPs handled and ignored, rate cuts)
cnp_run() {
	local pcap=$1 desc=$2 m0 s0 h0 i0 c0
	shift 2
	m0=$(counter 2 np_ecn_marked_roce_packets)
	s0=$(counter 2 np_cnp_sent)
	h0=$(counter 1 rp_cnp_handled)
	i0=$(counter 1 rp_cnp_ignored)
	c0=$(counter 1 rp_rate_cuts)
	capture 1 "$pcap"
	ktap_check "$desc" "$@"
	capture_end
	marked=$(($(counter 2 np_ecn_marked_roce_packets) - m0))
	sent=$(($(counter 2 np_cnp_sent) - s0))
	handled=$(($(counter 1 rp_cnp_handled) - h0))
	ignored=$(($(counter 1 rp_cnp_ignored) - i0))
	cuts=$(($(counter 1 rp_rate_cuts) - c0))
	echo "# CE marked $marked, CNPs sent $sent, handled $handled, ignored $ignored, cuts $cuts"
}
ktap_check "CE marking at h2's ingress (tc pedit)" ce_on
cnp_run "$tmp/cnp.pcap" "ibv_rc_pingpong runs with every packet CE-marked" \
	run_pp -n 300
ktap_check "h2 counted the CE-marked packets" test "$marked" -ge 300
ktap_check "h2 sent CNPs" test "$sent" -gt 0
ktap_check "h1 handled them and cut its rate" \
	test "$handled" -gt 0 -a "$cuts" -gt 0 -a "$handled" -le "$sent"
# Debian 12's tshark (Wireshark 4.0.17) decodes the BTH of a CNP but has no
# name for opcode 0x81 ("Unknown (129)"); it shows the FECN/BECN byte as
# a reserved one. Every CNP must be: opcode 129, P_Key 0xFFFF, that byte
# 0x40 (BECN), DestQP h1's QP, PSN 0, UDP payload 32 bytes (BTH, 16
# reserved bytes, ICRC), DSCP 48, from h2; icrc-check.py checks the ICRC.
cnps=$(tshark -r "$tmp/cnp.pcap" -Y 'infiniband.bth.opcode == 129' \
	-T fields -e ip.src -e ip.dsfield.dscp -e infiniband.bth.p_key \
	-e infiniband.reserved -e infiniband.bth.psn -e udp.length \
	-e infiniband.bth.destqp 2>/dev/null)
echo "# tshark, first CNP (src dscp pkey reserved psn udp-len destqp):" \
	$(head -1 <<<"$cnps")
cnp_ok() {
	[ -n "$cnps" ] &&
		! grep -vqP "^$ip2\t48\t65535\t40(,0+)?\t0\t40\t0x0*[0-9a-f]+$" \
			<<<"$cnps"
}
ktap_check "tshark: every CNP is opcode 0x81, P_Key 0xFFFF, BECN, PSN 0, 32 bytes, DSCP 48" \
	cnp_ok
ktap_check "icrc-check.py: every packet's ICRC right, CNPs included" \
	python3 "$here/icrc-check.py" --want-src "$ip2" "$tmp/cnp.pcap"
ktap_check "tshark reports no malformed packet in the capture" \
	bash -c "! tshark -r $tmp/cnp.pcap -Y '_ws.malformed || _ws.expert.severity >= error' -T fields -e frame.number 2>/dev/null | grep -q ."

# at most one CNP per QP per min_time_between_cnps: 200 ms here
setcc 2 min_time_between_cnps 200000
s0=$(counter 2 np_cnp_sent)
t0=${EPOCHREALTIME/./}
run_pp -n 300
t1=${EPOCHREALTIME/./}
sent=$(($(counter 2 np_cnp_sent) - s0))
max=$(( (t1 - t0) / 200000 + 1 ))
echo "# min_time_between_cnps 200 ms: $sent CNPs in $(( (t1 - t0) / 1000 )) ms (one QP: at most $max)"
ktap_check "min_time_between_cnps spaces the CNPs of a QP" \
	test "$sent" -ge 1 -a "$sent" -le "$max"
setcc 2 min_time_between_cnps 4

setcc 2 enable_np 0
s0=$(counter 2 np_cnp_sent)
m0=$(counter 2 np_ecn_marked_roce_packets)
run_pp -n 100
ktap_check "enable_np=0: CE-marked packets counted, no CNP sent" \
	test "$(($(counter 2 np_cnp_sent) - s0))" -eq 0 \
	-a "$(($(counter 2 np_ecn_marked_roce_packets) - m0))" -ge 100
setcc 2 enable_np 1

setcc 1 enable_rp 0
i0=$(counter 1 rp_cnp_ignored)
h0=$(counter 1 rp_cnp_handled)
run_pp -n 100
ktap_check "enable_rp=0: CNPs ignored, none handled" \
	test "$(($(counter 1 rp_cnp_ignored) - i0))" -gt 0 \
	-a "$(($(counter 1 rp_cnp_handled) - h0))" -eq 0
setcc 1 enable_rp 1

# UD: h2's UD QP answers CE-marked datagrams with CNPs to their source QP
# (DETH) at their source address; h1's UD QP cuts its rate.
cnp_run "$tmp/udcnp.pcap" "ibv_ud_pingpong runs with every packet CE-marked" \
	run_ud -n 300
ktap_check "UD: h2 counted the CE-marked datagrams and sent CNPs" \
	test "$marked" -ge 300 -a "$sent" -gt 0
ktap_check "UD: h1's UD QP handled them and cut its rate, none ignored" \
	test "$handled" -gt 0 -a "$cuts" -gt 0 -a "$handled" -le "$sent" \
	-a "$ignored" -eq 0
# h1's QPN: the client's "local address" line, printed first
udqpn=$(sed -n '1,/^-- server:/s/.*local address:.*QPN \(0x[0-9a-f]*\).*/\1/p' \
	"$tmp/ud.out" | head -1)
udcnps=$(tshark -r "$tmp/udcnp.pcap" -Y 'infiniband.bth.opcode == 129' \
	-T fields -e ip.src -e ip.dsfield.dscp -e infiniband.bth.destqp \
	2>/dev/null)
echo "# h1's UD QP $udqpn; tshark, first CNP (src dscp destqp):" \
	$(head -1 <<<"$udcnps")
ud_cnp_ok() {
	local n
	[ -n "$udqpn" ] && [ -n "$udcnps" ] || return 1
	n=$(awk -v ip="$ip2" -v q="$udqpn" \
		'$1 != ip || $2 != 48 || strtonum($3) != strtonum(q)' \
		<<<"$udcnps" | wc -l)
	[ "$n" -eq 0 ] && [ "$(wc -l <<<"$udcnps")" -eq "$sent" ]
}
ktap_check "UD: tshark sees every CNP, each from h2 with DSCP 48 to h1's UD QP" \
	ud_cnp_ok

# tracepoints, and the rate in `rdma resource show qp`
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs nodev $tr
echo >$tr/trace
for ev in sroce_cnp_sent sroce_cnp_recv sroce_cc_rate; do
	echo 1 >"$tr/events/sroce/$ev/enable"
done
# the rate stays cut for a while: slow increase, no more CNPs after a few.
# The QP lives 4 s, 12 on the debug kernel: there, with both perftests
# spinning on the two CPUs, each `rdma` poll below takes a second or more.
setcc 1 rpg_time_reset 1000000
setcc 1 rpg_byte_reset 2000000000
setcc 2 min_time_between_cnps 1000000
live=4
debug_kernel && live=12
host_exec 2 ib_write_bw -d sroce_h2 -x "$(roce_gid 2 sroce_h2 4)" -p 18555 \
	-D $live -F >"$tmp/bw.srv" 2>&1 &
srv=$!
wait_listen 2 18555
host_exec 1 ib_write_bw -d sroce_h1 -x "$(roce_gid 1 sroce_h1 4)" -p 18555 \
	-D $live -F "$ip2" >"$tmp/bw.cli" 2>&1 &
cli=$!
res_limited() {
	rdma -dd resource show qp link sroce_h1/1 >"$tmp/res" 2>&1
	{ echo "poll at ${EPOCHREALTIME}:"; cat "$tmp/res"; } >>"$tmp/res.all"
	grep -qE 'cc_limited 1 .*cc_rate_kbps [0-9]+' "$tmp/res"
}
wait_for 20 res_limited
limited=$?
echo "# polls of rdma resource show qp:" \
	"$(grep -c '^poll at' "$tmp/res.all") in" \
	"$(awk '/^poll at/ { t = $3 + 0; if (!f) f = t } END { printf "%.1f", t - f }' \
		"$tmp/res.all") s"
if [ "$limited" = 0 ]; then
	ktap_diag <"$tmp/res"
else
	tail -n 40 "$tmp/res.all" | ktap_diag
	grep -E 'sroce_(cnp|cc)' $tr/trace | head -n 20 | ktap_diag
	ktap_diag <"$tmp/bw.cli"
fi
wait $cli
rc=$?
wait $srv
for ev in sroce_cnp_sent sroce_cnp_recv sroce_cc_rate; do
	echo 0 >"$tr/events/sroce/$ev/enable"
done
grep -m1 cc_rate_kbps "$tmp/res" | ktap_diag
ktap_check "rdma resource show qp: a limited QP with its rate" \
	test "$limited" = 0
for ev in sroce_cnp_sent sroce_cnp_recv sroce_cc_rate; do
	grep -m1 "$ev:" $tr/trace | ktap_diag
	ktap_check "tracepoint $ev fired" grep -q "$ev:" $tr/trace
done
ktap_check "ib_write_bw finished under CNPs" test "$rc" -eq 0

ce_off
defaults

# --- the pacer: rpg_max_rate caps a QP that enters RTS after it is set.
# The cap, in Mbit/s: 40 (unpaced, this link carries some 200 Mbit/s); 2
# on the debug kernel, which moves 5 to 7 Mbit/s unpaced, so that 40 would
# check nothing. There the RC QPs also get PERFTEST_SLOW (lib.sh): a
# window's ACKs take longer than perftest's 67 ms ACK timeout; and the
# programs run 12 s instead of 5, so that the 3 s measured (from the first
# 256 KiB, a second at 2 Mbit/s) end before they do.
pace=40 dur=5
debug_kernel && pace=2 dur=12
# Never above the cap; below it by what late timers cost under TCG (up to
# a fifth in a loaded guest): the band is half the cap to 2.5% above it.
lo=$((pace * 500)) hi=$((pace * 1025))
band="$pace Mbit/s or a little under ($lo..$hi kbit/s)"

# paced PROG PORT HOST: PROG (ib_write_bw or ib_read_bw) from h1 to h2
# for $dur s of traffic; sets rc (both ends' status) and kbps, HOST's veth
# tx_bytes over 3 s once the data flows: the bytes the pacer counts
# (Ethernet header on). A WRITE's data leaves the requester (h1), a READ's
# the responder (h2).
tx_bytes() { host_exec "$1" cat "/sys/class/net/veth$1/statistics/tx_bytes"; }
tx_past() { [ "$(tx_bytes "$1")" -gt "$2" ]; }
paced() {
	local prog=$1 port=$2 h=$3 srv cli b0 b1 t0 t1 gbits

	shift 3
	host_exec 2 "$prog" -d sroce_h2 -x "$(roce_gid 2 sroce_h2 4)" \
		-p "$port" -D "$dur" -F --report_gbits "$@" >"$tmp/p.srv" 2>&1 &
	srv=$!
	wait_listen 2 "$port"
	b0=$(tx_bytes "$h")
	host_exec 1 "$prog" -d sroce_h1 -x "$(roce_gid 1 sroce_h1 4)" \
		-p "$port" -D "$dur" -F --report_gbits "$@" "$ip2" >"$tmp/p.cli" 2>&1 &
	cli=$!
	# the set-up's exchange is a few KiB; 256 KiB is data
	wait_for 20 tx_past "$h" $((b0 + 262144))
	b0=$(tx_bytes "$h")
	t0=${EPOCHREALTIME/./}
	sleep 3
	b1=$(tx_bytes "$h")
	t1=${EPOCHREALTIME/./}
	wait "$cli"
	rc=$?
	wait "$srv" || rc=1
	kbps=$(( (b1 - b0) * 8000 / (t1 - t0) ))
	gbits=$(awk '$1 ~ /^[0-9]+$/ && NF == 5 { print $4 }' "$tmp/p.cli")
	echo "# $prog capped at $pace Mbit/s: $kbps kbit/s on the link; it says ${gbits:-?} Gbit/s"
}
in_band() { [ "$kbps" -ge "$lo" ] && [ "$kbps" -le "$hi" ]; }
setcc 1 rpg_max_rate "$pace"
paced ib_write_bw 18556 1 ${PERFTEST_SLOW[@]+"${PERFTEST_SLOW[@]}"}
ktap_check "ib_write_bw with rpg_max_rate $pace Mbit/s" test "$rc" -eq 0
ktap_check "the pacer holds the link at $band" in_band
defaults
# READ responses leave at the responder's QP's rate
setcc 2 rpg_max_rate "$pace"
paced ib_read_bw 18557 2 ${PERFTEST_SLOW[@]+"${PERFTEST_SLOW[@]}"}
ktap_check "ib_read_bw with the responder's rpg_max_rate $pace Mbit/s" \
	test "$rc" -eq 0
ktap_check "READ responses held at $band" in_band
defaults
# UD datagrams too (perftest sends them at the path MTU, 1024 bytes)
setcc 1 rpg_max_rate "$pace"
p0=$(counter 1 rp_paced)
paced ib_send_bw 18558 1 -c UD
ktap_check "ib_send_bw -c UD with rpg_max_rate $pace Mbit/s" test "$rc" -eq 0
ud_paced() { in_band && [ "$(counter 1 rp_paced)" -gt "$p0" ]; }
ktap_check "the pacer holds UD at $band" ud_paced

# Killed while paced: each QP is destroyed with its pacer's timer armed
# (at 2 Mbit/s a 1 KiB packet waits 4 ms); nothing is left behind, and
# the harness fails the run on any warning in the kernel log.
paced_gone() { [ "$1" -gt 0 ] && wait_for 10 resources_back 1 2; }
setcc 1 rpg_max_rate 2
for prog in ib_write_bw ib_send_bw; do
	args=(-F -D 60)
	[ "$prog" = ib_send_bw ] && args+=(-c UD)
	host_exec 2 "$prog" -d sroce_h2 -x "$(roce_gid 2 sroce_h2 4)" \
		-p 18559 "${args[@]}" >/dev/null 2>&1 &
	wait_listen 2 18559
	p0=$(counter 1 rp_paced)
	host_exec 1 "$prog" -d sroce_h1 -x "$(roce_gid 1 sroce_h1 4)" \
		-p 18559 "${args[@]}" "$ip2" >/dev/null 2>&1 &
	wait_for 20 counter_past 1 rp_paced $((p0 + 100))
	held=$(($(counter 1 rp_paced) - p0))
	pkill -9 -x "$prog"
	wait
	echo "# $prog ${args[*]}: $held packets held back, then kill -9"
	ktap_check "$prog ${args[*]} killed while paced: its QPs are gone" \
		paced_gone "$held"
done
defaults

# --- interop: sroce's CNPs to rdma_rxe
ktap_check "rxe on the initial namespace's end" rxe_peer_up 2
host_exec 2 tc qdisc replace dev vrxe_p clsact
host_exec 2 tc filter replace dev vrxe_p ingress protocol ip prio 1 u32 \
	match ip protocol 17 0xff \
	action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip
s0=$(counter sroce_x np_cnp_sent)
ktap_check "rdma_rxe client, sroce server, every packet to sroce CE-marked" \
	rxe_pingpong ibv_rc_pingpong sroce -n 200
ktap_check "sroce sent rdma_rxe CNPs, which did it no harm" \
	test "$(($(counter sroce_x np_cnp_sent) - s0))" -gt 0
rxe_peer_down

ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2

ktap_finish
