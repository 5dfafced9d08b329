#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-teardown.sh: tear-down in the middle of heavy traffic. Between two
# hosts, ib_write_bw with 16 QPs and two ibv_rc_pingpong run (servers on
# h2, clients on h1); once data flows (and all six are checked to be
# running), one of:
#
#   kill -9   of the clients: they die, ib_write_bw's server exits
#   ip link set veth1 down: ib_write_bw's client runs out of retries and
#             exits with an error, and so does the side of each pingpong
#             that was sending; the link comes back (ib_write_bw's server
#             needs its TCP connection to hear that the client is gone)
#   rdma link delete sroce_h1: completes although h1's apps have the
#             device open (sroce disassociates their contexts, as ConnectX
#             does); they see their work flushed (IBV_WC_WR_FLUSH_ERR) or
#             their calls fail (EIO) and exit with an error
#   rmmod sroce: the same for both devices at once; every app exits with
#             an error
#   ip netns delete h1, while an ib_write_bw pair in the initial
#             namespace drives sroce_h1 and sroce_h2 (every namespace sees
#             every RDMA device): the namespace goes, with veth1 and its
#             peer, so both devices go; both apps exit with an error
#
# The apps that must exit do so within 60 s (a pingpong side that waits
# for a message from a peer that is gone waits forever, as on any RDMA
# device: it is killed), and the devices that are left hold no PD, CQ, QP
# or MR beyond the kernel's own. At the end the module is loaded again, a
# pingpong runs, and `modprobe -r sroce` unloads it. The VM harness fails
# the run on any warning, oops or hung task (the guest reports tasks
# blocked for 30 s).
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:ib_write_bw cmd:ibv_rc_pingpong \
	module:sroce module:veth

hosts_create 2
sroce_add 1
sroce_add 2
tmp=$(mktemp -d)
PIDS=()
cleanup() {
	kill9 ${PIDS[@]+"${PIDS[@]}"}
	rm -rf "$tmp"
	hosts_cleanup
}
trap cleanup EXIT

resources_mark 1 2

# tx packets of both devices (0 for one that is gone)
txp() {
	local d n=0 v
	for d in 1 2; do
		v=$(rdma statistic show link "sroce_h$d/1" 2>/dev/null |
			awk '{ for (i = 3; i < NF; i += 2)
				if ($i == "tx_packets") print $(i + 1) }')
		n=$((n + ${v:-0}))
	done
	echo "$n"
}

# start: ib_write_bw -q 16 and two ibv_rc_pingpong, servers on h2 and
# clients on h1; returns once traffic flows. ib_write_bw keeps 16 x 8
# WRITEs of 4 KiB in flight (512 packets at MTU 1024): more overflows the
# receiving veth's backlog (1000 packets) for long enough that the
# pingpongs (timeout 14, retry_cnt 7, fixed) run out of retries before
# anything is torn down; -u 18 gives ib_write_bw's own QPs a 1 s timeout
# for the same reason. PIDS: servers then clients,
# NAMES their names. perftest sometimes fails to start under TCG
# ("Correlation coefficient"): up to three tries.
start() {
	local try n
	for try in 1 2 3; do
		start_once && return 0
		echo "# traffic did not start (try $try):"
		kill_apps
		for n in "${NAMES[@]}"; do
			tail -n 3 "$tmp/$n" | sed "s/^/# $n: /"
		done
	done
	return 1
}
kill_apps() {
	kill9 ${PIDS[@]+"${PIDS[@]}"}
	PIDS=()
}
start_once() {
	local p=$((18000 + RANDOM % 2000)) g1 g2 i t0
	g1=$(roce_gid 1 sroce_h1 4)
	g2=$(roce_gid 2 sroce_h2 4)
	PIDS=()
	NAMES=()
	ip netns exec h2 ib_write_bw -d sroce_h2 -x "$g2" -p "$p" -q 16 -s 4096 -t 8 -D 60 -u 18 \
		>"$tmp/bw.srv" 2>&1 &
	PIDS+=($!)
	NAMES+=(bw.srv)
	for i in 1 2; do
		ip netns exec h2 ibv_rc_pingpong -d sroce_h2 -g "$g2" \
			-p $((p + i)) -n 100000000 >"$tmp/pp$i.srv" 2>&1 &
		PIDS+=($!)
		NAMES+=("pp$i.srv")
	done
	for i in 0 1 2; do
		wait_listen 2 $((p + i)) || return 1
	done
	ip netns exec h1 ib_write_bw -d sroce_h1 -x "$g1" -p "$p" -q 16 -s 4096 -t 8 -D 60 -u 18 \
		"$(host_ip 2)" >"$tmp/bw.cli" 2>&1 &
	PIDS+=($!)
	NAMES+=(bw.cli)
	for i in 1 2; do
		ip netns exec h1 ibv_rc_pingpong -d sroce_h1 -g "$g1" \
			-p $((p + i)) -n 100000000 "$(host_ip 2)" \
			>"$tmp/pp$i.cli" 2>&1 &
		PIDS+=($!)
		NAMES+=("pp$i.cli")
	done
	# traffic: 20000 packets sent, the QPs of all three connected
	t0=$(txp)
	wait_for 40 flowing "$t0" || return 1
	sleep 1
	echo "# $(rdma resource show qp | grep -c 'type RC.*state RTS') RC QPs in RTS"
}
flowing() {
	[ $(($(txp) - $1)) -gt 20000 ]
}

# wait_apps SECS NAME...: wait until the apps NAME... exited (at most SECS
# in all), then record each app's status in RC[]: "running" for one of
# them that did not exit, "waiting" for any other app still running (a
# pingpong server whose peer is gone waits for its next message forever,
# as on any RDMA device); both are then killed.
wait_apps() {
	local secs=$1 i n end=$((SECONDS + $1))
	shift
	RC=()
	for i in "${!PIDS[@]}"; do
		for n in "$@"; do
			[ "${NAMES[$i]}" = "$n" ] || continue
			while kill -0 "${PIDS[$i]}" 2>/dev/null &&
			      [ "$SECONDS" -lt "$end" ]; do
				sleep 0.2
			done
		done
	done
	for i in "${!PIDS[@]}"; do
		if kill -0 "${PIDS[$i]}" 2>/dev/null; then
			RC[$i]=waiting
			for n in "$@"; do
				[ "${NAMES[$i]}" = "$n" ] && RC[$i]=running
			done
			kill -9 "${PIDS[$i]}" 2>/dev/null
			wait "${PIDS[$i]}" 2>/dev/null
		else
			wait "${PIDS[$i]}"
			RC[$i]=$?
		fi
	done
	PIDS=()
	for i in "${!RC[@]}"; do
		case ${RC[$i]} in
		running) echo "# ${NAMES[$i]}: still running after $secs s" ;;
		waiting) echo "# ${NAMES[$i]}: waiting for its peer (killed)" ;;
		*) echo "# ${NAMES[$i]} exited: ${RC[$i]}" ;;
		esac
	done
	return 0
}

# all_exited: every app that had to exit did
all_exited() {
	local i ok=0
	for i in "${!RC[@]}"; do
		if [ "${RC[$i]}" = running ]; then
			echo "${NAMES[$i]} still running:"
			tail -n 5 "$tmp/${NAMES[$i]}"
			ok=1
		fi
	done
	return $ok
}
# failed NAME...: those apps exited with an error
failed() {
	local n i ok=0
	for n in "$@"; do
		for i in "${!NAMES[@]}"; do
			[ "${NAMES[$i]}" = "$n" ] || continue
			if [ "${RC[$i]}" = 0 ]; then
				echo "$n exited 0:"
				tail -n 5 "$tmp/$n"
				ok=1
			fi
		done
	done
	return $ok
}
# running NAME...: those apps are still running (checked right before
# each tear-down, so that it happens under their traffic)
running() {
	local n i ok=0
	for n in "$@"; do
		for i in "${!NAMES[@]}"; do
			[ "${NAMES[$i]}" = "$n" ] || continue
			kill -0 "${PIDS[$i]}" 2>/dev/null && continue
			echo "$n is not running:"
			tail -n 5 "$tmp/$n"
			ok=1
		done
	done
	return $ok
}
# one_failed A B: app A or app B exited with an error (a pingpong's
# sending side runs out of retries; the other may wait for it forever)
one_failed() {
	failed "$1" >/dev/null || failed "$2" >/dev/null ||
		{ echo "neither $1 nor $2 exited with an error"; return 1; }
}
# the end of each app's output, to show what it said
said() {
	local n
	for n in "$@"; do
		echo "# $n: $(grep -E -i 'error|fail|couldn|unable|iters in|^ *[0-9]+ +[0-9.]+ +[0-9.]+' "$tmp/$n" | head -n 2 | tr '\n' ' ' | head -c 200)"
	done
}

# timed CMD...: CMD, and how long it took (printed as a diagnostic)
timed() {
	local t0=${EPOCHREALTIME/./} rc
	"$@"
	rc=$?
	echo "# $*: exit $rc after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms" >&3
	return $rc
}
exec 3>&1

CLIENTS=(bw.cli pp1.cli pp2.cli)
ALL=(bw.srv pp1.srv pp2.srv bw.cli pp1.cli pp2.cli)

ktap_plan 24

# (d) kill -9 of the clients
if start; then
	ktap_check "kill -9: the apps were running" running "${ALL[@]}"
	kill -9 "${PIDS[3]}" "${PIDS[4]}" "${PIDS[5]}"
	wait_apps 60 "${CLIENTS[@]}" bw.srv
	said "${ALL[@]}"
	ktap_check "kill -9: the clients died, ib_write_bw's server exited" \
		all_exited
	ktap_check "kill -9: ib_write_bw's server exited with an error" \
		failed bw.srv
	ktap_check "kill -9: no object left on either device" resources_back 1 2
else
	kill_apps
	for n in 1 2 3 4; do ktap_fail "kill -9: traffic did not start"; done
fi

# (b) link down
if start; then
	ktap_check "link down: the apps were running" running "${ALL[@]}"
	ip -n h1 link set veth1 down
	secs=60
	end=$((SECONDS + 60))
	while [ "$SECONDS" -lt "$end" ] && kill -0 "${PIDS[3]}" 2>/dev/null
	do
		sleep 0.2
	done
	sleep 3
	ip -n h1 link set veth1 up
	wait_apps 60 bw.cli bw.srv
	said "${ALL[@]}"
	ktap_check "link down: ib_write_bw's client and server exited" \
		all_exited
	ktap_check "link down: ib_write_bw's client exited with an error, and one side of each pingpong" \
		eval 'failed bw.cli && one_failed pp1.cli pp1.srv && one_failed pp2.cli pp2.srv' 
	ktap_check "link down: no object left on either device" resources_back 1 2
else
	ip -n h1 link set veth1 up
	kill_apps
	for n in 1 2 3 4; do ktap_fail "link down: traffic did not start"; done
fi
wait_for 10 ip netns exec h1 ping -c1 -W1 "$(host_ip 2)"

# (a) rdma link delete of one end
if start; then
	ktap_check "rdma link delete: the apps were running" running "${ALL[@]}"
	ktap_expect "rdma link delete sroce_h1 under traffic completed" "" \
		timed timeout 60 ip netns exec h1 rdma link delete sroce_h1
	wait_apps 60 "${CLIENTS[@]}" bw.srv
	said "${ALL[@]}"
	ktap_check "rdma link delete: the clients and ib_write_bw's server exited" \
		all_exited
	ktap_check "rdma link delete: h1's apps exited with an error" \
		failed "${CLIENTS[@]}"
	ktap_check "rdma link delete: no object left on sroce_h2" resources_back 2
else
	kill_apps
	for n in 1 2 3 4 5; do
		ktap_fail "rdma link delete: traffic did not start"
	done
fi
ktap_check "sroce_h1 added again" \
	ip netns exec h1 rdma link add sroce_h1 type sroce netdev veth1

# (c) rmmod
if start; then
	ktap_check "rmmod: the apps were running" running "${ALL[@]}"
	ktap_expect "rmmod sroce under traffic completed" "" \
		timed timeout 60 rmmod sroce
	wait_apps 60 "${ALL[@]}"
	said "${ALL[@]}"
	ktap_check "rmmod: every app exited" all_exited
	ktap_check "rmmod: every app exited with an error" failed "${ALL[@]}"
else
	kill_apps
	for n in 1 2 3 4; do ktap_fail "rmmod: traffic did not start"; done
fi

# the module again, a pingpong, and modprobe -r
again() {
	modprobe sroce &&
	ip netns exec h1 rdma link add sroce_h1 type sroce netdev veth1 &&
	ip netns exec h2 rdma link add sroce_h2 type sroce netdev veth2 &&
	pingpong ibv_rc_pingpong 2 sroce_h2 1 sroce_h1 4 "$(host_ip 2)" -n 100
}
ktap_check "after rmmod: loaded again, devices added, ibv_rc_pingpong ran" again

# (e) a namespace dismantled under traffic driven from outside it
ns_start() {
	local p=$((18000 + RANDOM % 2000)) g1 g2 t0
	g1=$(roce_gid 1 sroce_h1 4)
	g2=$(roce_gid 2 sroce_h2 4)
	PIDS=()
	NAMES=(nsbw.srv nsbw.cli)
	ib_write_bw -d sroce_h2 -x "$g2" -p "$p" -q 4 -s 4096 -D 60 -u 18 \
		>"$tmp/nsbw.srv" 2>&1 &
	PIDS+=($!)
	wait_for 10 bash -c "[ -n \"\$(ss -Hltn 'sport = :$p')\" ]" || return 1
	ib_write_bw -d sroce_h1 -x "$g1" -p "$p" -q 4 -s 4096 -D 60 -u 18 \
		127.0.0.1 >"$tmp/nsbw.cli" 2>&1 &
	PIDS+=($!)
	t0=$(txp)
	wait_for 40 flowing "$t0"
}
devices_gone() {
	! rdma link show sroce_h1/1 >/dev/null 2>&1 &&
	! rdma link show sroce_h2/1 >/dev/null 2>&1
}
if ns_start; then
	ktap_check "netns delete: the apps were running" running nsbw.srv nsbw.cli
	ip netns delete h1
	ktap_check "netns delete h1 under traffic: both devices went" \
		wait_for 30 devices_gone
	wait_apps 60 nsbw.srv nsbw.cli
	said nsbw.srv nsbw.cli
	ktap_check "netns delete: both apps exited" all_exited
	ktap_check "netns delete: both apps exited with an error" \
		failed nsbw.srv nsbw.cli
else
	kill_apps
	for n in 1 2 3 4; do ktap_fail "netns delete: traffic did not start"; done
fi
HOSTS_DEVS=()
gone() {
	modprobe -r sroce && ! grep -q '^sroce ' /proc/modules
}
ktap_check "modprobe -r sroce unloads it" gone

ktap_finish
