# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# lib.sh: test "hosts" for the guest-side sroce selftests; source it from
# bash. hosts_create N makes N network namespaces h1..hN, each with lo up and
# one link veth<i> holding 10.77.0.<i>/24 and fd77::<i>/64:
#
#   N = 2: one veth pair           N > 2: each veth<i> is paired with p<i>,
#                                  a port of bridge br0 in namespace hsw
#   +- h1 ----------+
#   | veth1         |              +- h1 --+  +- h2 --+       +- hN --+
#   | 10.77.0.1/24  |              | veth1 |  | veth2 |  ...  | vethN |
#   | fd77::1/64    |              +---+---+  +---+---+       +---+---+
#   +------+--------+                  |          |               |
#          |                       +- hsw ---------------------------+
#   +------+--------+              |  p1 ------ p2 -- br0 -- ... pN  |
#   | veth2         |              +---------------------------------+
#   | 10.77.0.2/24  |
#   | fd77::2/64    |
#   +- h2 ----------+
#
#   host_exec I CMD...    run CMD in host I's namespace
#   host_ip I, host_ip6 I, host_if I, host_ns I
#                         its IPv4 and IPv6 address, link and namespace
#   sroce_add I           add sroce device sroce_h<I> on veth<I> (in h<I>)
#   two_hosts             hosts_create 2 and both devices, a scratch $tmp,
#                         resources_mark 1 2; all undone on exit
#   hosts_cleanup         delete those devices and the namespaces; an EXIT
#                         trap set by hosts_create (call it from your own
#                         EXIT trap if you replace it)
#   wait_for SECS CMD...  run CMD (quietly) until it succeeds; fail after SECS
#   host_listening I PORT is a TCP socket listening on PORT in host I?
#   rdma_gid NS DEV IP    the RoCE v2 GID index of IPv4 address IP on DEV
#   kmod_test NAME DEV    load test module NAME (kmod/) with dev=DEV: its
#                         KTAP from the kernel log is the test's output
#   nvmet_add NQN IP PORT PATH...  an nvmet-rdma target: subsystem NQN,
#                         namespace i backed by the i-th PATH, on IP:PORT
#   nvmet_del NQN         undo nvmet_add
#   nvme_dev NQN NSID     the host's block device of that namespace
#
# Commands go through `ip -batch`: under TCG every exec costs ~0.1 s.

HOSTS_N=0
HOSTS_DEVS=()

host_ns()  { echo "h$1"; }
host_if()  { echo "veth$1"; }
host_ip()  { echo "10.77.0.$1"; }
host_ip6() { echo "fd77::$1"; }
host_exec() { local i=$1; shift; ip netns exec "h$i" "$@"; }

hosts_create() {
	local n=${1:?usage: hosts_create N} i
	if [ "$n" -lt 2 ] || [ "$n" -gt 254 ]; then
		echo "hosts_create: N must be 2..254, not $n" >&2
		return 1
	fi
	hosts_cleanup
	trap hosts_cleanup EXIT
	HOSTS_N=$n
	{
		for ((i = 1; i <= n; i++)); do
			echo "netns add h$i"
		done
		if [ "$n" = 2 ]; then
			echo "link add veth1 netns h1 type veth peer name veth2 netns h2"
		else
			echo "netns add hsw"
			for ((i = 1; i <= n; i++)); do
				echo "link add veth$i netns h$i type veth peer name p$i netns hsw"
			done
		fi
	} | ip -batch - || return 1
	if [ "$n" -gt 2 ]; then
		{
			echo "link add br0 type bridge forward_delay 0 mcast_snooping 0"
			echo "link set br0 up"
			for ((i = 1; i <= n; i++)); do
				echo "link set p$i master br0 up"
			done
		} | ip -n hsw -batch - || return 1
	fi
	for ((i = 1; i <= n; i++)); do
		ip -n "h$i" -batch - <<-EOF || return 1
			link set lo up
			addr add $(host_ip "$i")/24 dev veth$i
			addr add $(host_ip6 "$i")/64 dev veth$i nodad
			link set veth$i up
		EOF
	done
	hosts_rps "$n"
}

# A QP's packets may leave from either CPU (the doorbell's, a timer's, the
# ACK's softirq), and veth queues each on the sending CPU's backlog, so two
# packets of one QP sent from two CPUs can pass each other: RC takes that
# for a loss (NAK, go-back-N resend). RPS on every veth end, keyed on the
# flow hash (the QP's UDP source port), keeps each flow on one CPU, as a
# multiqueue NIC's hash keeps it on one queue.
hosts_rps() {
	local n=$1 i mask
	mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
	for ((i = 1; i <= n; i++)); do
		ip netns exec "h$i" sh -c "echo $mask >/sys/class/net/veth$i/queues/rx-0/rps_cpus" ||
			return 1
		[ "$n" -gt 2 ] || continue
		ip netns exec hsw sh -c "echo $mask >/sys/class/net/p$i/queues/rx-0/rps_cpus" ||
			return 1
	done
}

# sroce_add I: like udev's rdma rules on a real host, also load the verbs
# and rdma_cm user interfaces.
sroce_add() {
	local i=${1:?usage: sroce_add I}
	ip netns exec "h$i" rdma link add "sroce_h$i" type sroce netdev "veth$i" || return 1
	HOSTS_DEVS+=("$i")
	modprobe -q -a ib_uverbs rdma_ucm || true
}

# two_hosts: hosts h1 and h2 with their devices, a scratch directory
# $tmp, both removed on exit, and the devices' objects counted
# (resources_back 1 2 checks that they are as many again)
two_hosts() {
	hosts_create 2 && sroce_add 1 && sroce_add 2 || return 1
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"; hosts_cleanup' EXIT
	resources_mark 1 2
}

hosts_cleanup() {
	local i
	rxe_peer_down
	[ "$HOSTS_N" -gt 0 ] || return 0
	for i in ${HOSTS_DEVS[@]+"${HOSTS_DEVS[@]}"}; do
		[ -e "/run/netns/h$i" ] &&
			ip netns exec "h$i" rdma link delete "sroce_h$i" 2>/dev/null
	done
	HOSTS_DEVS=()
	for ((i = 1; i <= HOSTS_N; i++)); do
		echo "netns delete h$i"
	done | ip -force -batch - 2>/dev/null
	[ "$HOSTS_N" -gt 2 ] && ip netns delete hsw 2>/dev/null
	HOSTS_N=0
	return 0
}

host_listening() {
	[ -n "$(ip netns exec "h$1" ss -Hltn "sport = :$2")" ]
}

# wait_for SECS CMD...: until CMD succeeds, SECS seconds at most (four
# times as long on the debug kernel, as selftests/check gives its runs).
wait_for() {
	local secs=${1:?usage: wait_for SECS CMD...} now end
	shift
	debug_kernel && secs=$((secs * 4))
	now=${EPOCHREALTIME//[!0-9]/}
	end=$((now + secs * 1000000))
	until "$@" >/dev/null 2>&1; do
		now=${EPOCHREALTIME//[!0-9]/}
		if [ "$now" -ge "$end" ]; then
			echo "wait_for: still failing after $secs s: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# roce_gid HOST DEV FAMILY: the index of DEV's RoCE v2 GID for the host's
# IPv4 (FAMILY 4) or IPv6 (6) address.
roce_gid() {
	local re
	[ "$3" = 4 ] && re='::ffff:' || re='fd77::'
	host_exec "$1" ibv_devinfo -v -d "$2" |
		sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*$re.*RoCE v2/\1/p" | head -n1
}

# rdma_gid NS DEV IP: the RoCE v2 GID index of IP on DEV ("" ns: init_net)
rdma_gid() {
	local ns=$1 dev=$2 ip=$3
	${ns:+ip netns exec "$ns"} ibv_devinfo -v -d "$dev" |
		sed -n "s/.*GID\[ *\([0-9]*\)\]:[[:space:]]*::ffff:$ip, RoCE v2.*/\1/p" |
		head -n1
}

# resources DEV: "pd N cq N qp N mr N" of a sroce device (empty if gone)
resources() {
	rdma resource show "$1" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++)
			if ($i ~ /^(pd|cq|qp|mr)$/) printf "%s %s ", $i, $(i + 1) }'
}

# veth_sroce NAME IP DEV: in the initial namespace, a veth pair NAME0 and
# NAME1, NAME0 at IP/24, both up, and sroce device DEV on NAME0 (where the
# kernel's ULPs, which open their RDMA CM IDs in init_net, find it)
veth_sroce() {
	ip link add "${1}0" type veth peer name "${1}1" &&
	ip addr add "$2/24" dev "${1}0" &&
	ip link set "${1}0" up && ip link set "${1}1" up &&
	rdma link add "$3" type sroce netdev "${1}0"
}

# fio_verify WHERE BS MB: 4 fio jobs of depth 16, each writing MB MiB at
# random in BS blocks (WHERE a block device: each job in its own part; a
# directory: each in its own file, removed after), then reading every
# block back and checking it (crc32c). Shows fio's output if that fails.
fio_verify() {
	local where=(--filename="$1" --offset_increment="$3M") out rc
	[ -d "$1" ] && where=(--directory="$1")
	out=$(fio --name=verify "${where[@]}" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs="$2" --size="$3M" --numjobs=4 --iodepth=16 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --group_reporting 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] || echo "$out"
	[ -d "$1" ] && rm -f "$1"/verify.*
	return "$rc"
}

# sroce_idle DEV BASE: DEV's PDs, QPs and MRs back to BASE (what
# `resources DEV` printed when the device was new: the MAD layer's GSI QP)
# within 10 s, as kernel ULPs free theirs, and every CQ left the RDMA
# core's (its MAD CQ, and the shared CQ pool that ib_cq_pool_get() fills
# for ULPs such as ib_srpt and ib_isert, kept until the device goes); if
# not, shows who holds what
sroce_idle() {
	local dev=$1 base=$2
	idle_now() {
		local cqs
		# There is always the MAD CQ.
		cqs=$(rdma resource show cq dev "$dev") && [ -n "$cqs" ] &&
		[ "$(resources "$dev" | sed 's/cq [0-9]* //')" = \
			"$(sed 's/cq [0-9]* //' <<<"$base")" ] &&
		! grep -v 'comm \[ib_core\]' <<<"$cqs" | grep -q .
	}
	[ -n "$base" ] && wait_for 10 idle_now && return 0
	echo "baseline: $base"
	rdma resource show "$dev"
	rdma resource show qp link "$dev"
	rdma resource show cq dev "$dev"
	rdma resource show cm_id link "$dev"
	return 1
}

# resources_mark I...: note hosts I's devices' resources as their baseline;
# resources_back I...: they are back to it
resources_mark() {
	local i
	for i in "$@"; do
		printf -v "RES_BASE_$i" '%s' "$(resources "sroce_h$i")"
	done
}

resources_back() {
	local i now base ok=0
	for i in "$@"; do
		now=$(resources "sroce_h$i")
		base=RES_BASE_$i
		echo "sroce_h$i: baseline: ${!base} now: $now"
		[ "$now" = "${!base}" ] && [ -n "$now" ] || ok=1
	done
	return $ok
}

# counter H NAME: sroce_hH's counter NAME (H may also be a device name)
counter() {
	local d=$1
	[[ $d == [0-9]* ]] && d=sroce_h$d
	rdma statistic show link "$d/1" |
		awk -v n="$2" '{ for (i = 3; i < NF; i += 2) if ($i == n) print $(i + 1) }'
}

# debug_kernel: this is the debug kernel (selftests/vm/build-debug-kernel),
# whose KASAN, lockdep and kmemleak make it several times slower
debug_kernel() { [[ $(uname -r) == *-debug ]]; }

# counter_past H NAME N: that counter is above N (for wait_for)
counter_past() { [ "$(counter "$1" "$2")" -gt "$3" ]; }

# kill9 PID...: SIGKILL each of the background programs a test started,
# and reap those that are its children (for EXIT traps)
kill9() {
	local p
	for p; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	return 0
}

# wait_listen HOST PORT: wait until a TCP server listens on PORT in HOST
wait_listen() { wait_for 10 host_listening "$1" "$2"; }

# app_pair GIDOPT PROG SRV_HOST SRV_DEV CLI_HOST CLI_DEV FAMILY SERVER_IP
# ARGS...: PROG's server on SRV_HOST and its client on CLI_HOST (or the
# same host), both with ARGS, each naming its device's RoCE v2 GID index
# with GIDOPT (-g for the ibv_*_pingpong examples, -x for perftest). Prints
# the client's output, "-- server:" and the server's; fails if either
# fails.
app_pair() {
	local gopt=$1 prog=$2 sh=$3 sd=$4 ch=$5 cd=$6 fam=$7 ip=$8
	local port=$((18000 + RANDOM % 3000)) log rc
	shift 8
	log=$(mktemp)
	host_exec "$sh" timeout 90 "$prog" -d "$sd" \
		"$gopt" "$(roce_gid "$sh" "$sd" "$fam")" -p "$port" \
		"$@" >"$log" 2>&1 &
	wait_listen "$sh" "$port"
	host_exec "$ch" timeout 90 "$prog" -d "$cd" \
		"$gopt" "$(roce_gid "$ch" "$cd" "$fam")" -p "$port" \
		"$@" "$ip" 2>&1
	rc=$?
	wait $! || rc=1
	echo "-- server:"
	cat "$log"
	rm -f "$log"
	return "$rc"
}

# pingpong PROG SRV_HOST SRV_DEV CLI_HOST CLI_DEV FAMILY SERVER_IP ARGS...:
# run one of the ibv_*_pingpong examples between two hosts (or one host
# and itself), both with ARGS; succeed if both ends report their run.
pingpong() {
	local out rc
	out=$(app_pair -g "$@")
	rc=$?
	echo "$out"
	[ "$rc" -eq 0 ] && [ "$(grep -c 'iters in' <<<"$out")" -eq 2 ]
}

# rxe_peer_up HOST (also from a subshell such as ktap_check's): an rdma_rxe
# device (rxe_v on vrxe, 10.78.0.1 and fd00:78::1, in the initial namespace)
# joined by a veth pair to a sroce device (sroce_x on vrxe_p, 10.78.0.2 and
# fd00:78::2) in host HOST. rxe_peer_down undoes it and unloads rdma_rxe,
# which holds UDP port 4791 in the initial namespace while loaded.
RXE_IP=10.78.0.1 RXE_IP6=fd00:78::1 RXE_PEER_IP=10.78.0.2 RXE_PEER_IP6=fd00:78::2
# their GIDs as sysfs shows them
RXE_GID=0000:0000:0000:0000:0000:ffff:0a4e:0001
RXE_GID6=fd00:0078:0000:0000:0000:0000:0000:0001
RXE_PEER_GID=0000:0000:0000:0000:0000:ffff:0a4e:0002
RXE_PEER_GID6=fd00:0078:0000:0000:0000:0000:0000:0002
RXE_HOST=
rxe_peer_up() {
	RXE_HOST=${1:?usage: rxe_peer_up HOST}
	echo "$RXE_HOST" >/run/sroce-rxe-host
	ip link add vrxe type veth peer name vrxe_p netns "h$RXE_HOST" &&
	ip addr add $RXE_IP/24 dev vrxe &&
	ip addr add $RXE_IP6/64 dev vrxe nodad &&
	ip link set vrxe up &&
	host_exec "$RXE_HOST" ip addr add $RXE_PEER_IP/24 dev vrxe_p &&
	host_exec "$RXE_HOST" ip addr add $RXE_PEER_IP6/64 dev vrxe_p nodad &&
	host_exec "$RXE_HOST" ip link set vrxe_p up &&
	modprobe rdma_rxe &&
	rdma link add rxe_v type rxe netdev vrxe &&
	host_exec "$RXE_HOST" rdma link add sroce_x type sroce netdev vrxe_p
}

rxe_peer_down() {
	[ -n "$RXE_HOST" ] || RXE_HOST=$(cat /run/sroce-rxe-host 2>/dev/null || true)
	[ -n "$RXE_HOST" ] || return 0
	rm -f /run/sroce-rxe-host
	host_exec "$RXE_HOST" rdma link delete sroce_x 2>/dev/null
	rdma link delete rxe_v 2>/dev/null
	ip link del vrxe 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
	RXE_HOST=
}

# rxe_pingpong PROG SERVER ARGS...: PROG (an ibv_*_pingpong) between rxe_v
# and sroce_x, with SERVER (rxe or sroce) as the server. rxe_perftest is
# the same for a perftest program. Their RoCE traffic is IPv4, or IPv6 with
# RXE_FAMILY=6 (which picks both ends' IPv6 GIDs; the programs' own TCP
# exchange stays on IPv4).
rxe_pingpong() { rxe_run -g "$@"; }
rxe_perftest() { rxe_run -x "$@"; }

# rxe_gid rxe|sroce FAMILY: the index of rxe_v's or sroce_x's RoCE v2 GID
# for its IPv4 (FAMILY 4) or IPv6 (6) address, from sysfs (no exec: under
# TCG every one costs)
rxe_gid() {
	local gid f g t i
	case $1$2 in
	rxe6)	gid=$RXE_GID6 ;;
	rxe*)	gid=$RXE_GID ;;
	*6)	gid=$RXE_PEER_GID6 ;;
	*)	gid=$RXE_PEER_GID ;;
	esac
	[ "$1" = rxe ] && f=/sys/class/infiniband/rxe_v/ports/1 ||
		f=/sys/class/infiniband/sroce_x/ports/1
	for ((i = 0; i < 32; i++)); do
		read -r g 2>/dev/null <"$f/gids/$i" || continue
		[ "$g" = "$gid" ] || continue
		read -r t 2>/dev/null <"$f/gid_attrs/types/$i" || continue
		[ "$t" = "RoCE v2" ] && { echo "$i"; return 0; }
	done
	return 1
}

rxe_run() {
	local gopt=$1 prog=$2 server=$3 port=$((19000 + RANDOM % 1000))
	local rg xg log rc
	shift 3
	[ -n "$RXE_HOST" ] || RXE_HOST=$(cat /run/sroce-rxe-host)
	log=$(mktemp)
	rg=$(rxe_gid rxe "${RXE_FAMILY:-4}")
	xg=$(rxe_gid sroce "${RXE_FAMILY:-4}")
	if [ -z "$rg" ] || [ -z "$xg" ]; then
		echo "no IPv${RXE_FAMILY:-4} RoCE v2 GID: rxe_v '$rg', sroce_x '$xg'"
		rm -f "$log"
		return 1
	fi
	if [ "$server" = rxe ]; then
		timeout 60 "$prog" -d rxe_v "$gopt" "$rg" -p "$port" "$@" >"$log" 2>&1 &
		wait_for 10 bash -c "ss -Hltn 'sport = :$port' | grep -q ."
		host_exec "$RXE_HOST" timeout 60 "$prog" -d sroce_x "$gopt" "$xg" \
			-p "$port" "$@" $RXE_IP
	else
		host_exec "$RXE_HOST" timeout 60 "$prog" -d sroce_x "$gopt" "$xg" \
			-p "$port" "$@" >"$log" 2>&1 &
		wait_listen "$RXE_HOST" "$port"
		timeout 60 "$prog" -d rxe_v "$gopt" "$rg" -p "$port" "$@" $RXE_PEER_IP
	fi
	rc=$?
	wait $! || rc=1
	echo "-- server:"
	cat "$log"
	rm -f "$log"
	return "$rc"
}

# PERFTEST_SLOW: the options a perftest program gets on the debug kernel
# (none elsewhere): its QPs' ACK timeout 1 s (-u 18), not perftest's
# 67 ms: there a READ's responses or a bidirectional SEND's ACKs can stall
# longer than that seven times over, and the client ended with a
# retry-exceeded error. Expand as ${PERFTEST_SLOW[@]+"${PERFTEST_SLOW[@]}"}.
PERFTEST_SLOW=()
debug_kernel && PERFTEST_SLOW=(-u 18)

# perftest PROG SRV_HOST SRV_DEV CLI_HOST CLI_DEV FAMILY SERVER_IP ARGS...:
# one perftest program (ib_send_bw, ib_read_lat, ...) between two hosts;
# succeed if both ends finish and the client prints its result table with
# numbers (perftest_retry), with PERFTEST_SLOW.
perftest() {
	perftest_retry app_pair -x "$@" ${PERFTEST_SLOW[@]+"${PERFTEST_SLOW[@]}"}
}

# perftest_retry CMD...: CMD runs one perftest pair (app_pair -x,
# rxe_perftest) and prints the client's output, then "-- server:" and the
# server's; succeed if it succeeds and the client's part has the result
# table with numbers. perftest times with the TSC, whose rate it measures
# first; under TCG that measurement is sometimes too noisy ("Correlation
# coefficient"), and then it prints inf or no report: a run that failed
# after that warning is repeated, twice at most.
perftest_retry() {
	local out rc
	for _ in 1 2 3; do
		out=$("$@" 2>&1)
		rc=$?
		[ "$rc" -eq 0 ] && perftest_reported "$out" &&
			{ echo "$out"; return 0; }
		grep -q 'Correlation coefficient' <<<"$out" || break
	done
	echo "$out"
	return 1
}

# perftest_reported OUT: the client's part of a pair's output (up to
# "-- server:") has perftest's result table with numbers.
perftest_reported() {
	sed '/^-- server:$/q' <<<"$1" | grep -qE '^ *[0-9]+ +[0-9]+ +[0-9.]+ '
}

# kmod_test NAME DEV: load the test module NAME.ko (kmod/, built for this
# kernel) with dev=DEV; it runs its cases at load time and logs KTAP, which
# is printed; it loads (and is unloaded again) only if every case passed.
# Exits 4 (skip) when the module is not built.
kmod_test() {
	local ko mark rc
	ko=$(dirname "${BASH_SOURCE[0]}")/../build/$(uname -r)/kmod/$1.ko
	if [ ! -f "$ko" ]; then
		echo "KTAP version 1"
		echo "1..0 # SKIP $ko not built (selftests/kmod/build)"
		exit 4
	fi
	mark="$1: run $$ $RANDOM"
	echo "$mark" >/dev/kmsg
	insmod "$ko" dev="$2"
	rc=$?
	dmesg --notime | sed -n "\|$mark|,\$p" | sed '1d' | sed -n "s/^$1: //p"
	if [ "$rc" -ne 0 ]; then
		echo "# insmod failed: $rc"
		return 1
	fi
	rmmod "$1"
}

# nvmet_add NQN IP PORT PATH...: an NVMe over Fabrics target through the
# kernel's nvmet configfs (modules nvmet and nvmet_rdma): subsystem NQN,
# open to any host, namespace i backed by the i-th PATH (a block device,
# or a file, served with buffered I/O), listening on RDMA at IP:PORT as
# port 1; IP "tcp:ADDR": on NVMe/TCP at ADDR:PORT instead.
nvmet_add() {
	local nqn=$1 ip=$2 port=$3 cfs=/sys/kernel/config/nvmet i=0 ns path
	local tr=rdma
	shift 3
	if [ "${ip#tcp:}" != "$ip" ]; then
		tr=tcp ip=${ip#tcp:}
	fi
	modprobe "nvmet_$tr" || return 1
	# configfs (loaded with nvmet), mounted as its package would
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	mkdir "$cfs/subsystems/$nqn" &&
		echo 1 >"$cfs/subsystems/$nqn/attr_allow_any_host" || return 1
	for path; do
		i=$((i + 1))
		ns=$cfs/subsystems/$nqn/namespaces/$i
		mkdir "$ns" && echo "$path" >"$ns/device_path" &&
			{ [ -b "$path" ] || echo 1 >"$ns/buffered_io"; } &&
			echo 1 >"$ns/enable" || return 1
	done
	mkdir "$cfs/ports/1" &&
		echo "$tr" >"$cfs/ports/1/addr_trtype" &&
		echo ipv4 >"$cfs/ports/1/addr_adrfam" &&
		echo "$ip" >"$cfs/ports/1/addr_traddr" &&
		echo "$port" >"$cfs/ports/1/addr_trsvcid" &&
		ln -s "$cfs/subsystems/$nqn" "$cfs/ports/1/subsystems/$nqn"
}

# nvmet_del NQN: remove what nvmet_add made (what of it exists).
nvmet_del() {
	local cfs=/sys/kernel/config/nvmet ns
	rm -f "$cfs/ports/1/subsystems/$1" 2>/dev/null
	rmdir "$cfs/ports/1" 2>/dev/null
	for ns in "$cfs/subsystems/$1"/namespaces/*; do
		[ -d "$ns" ] || continue
		echo 0 >"$ns/enable"
		rmdir "$ns"
	done
	rmdir "$cfs/subsystems/$1" 2>/dev/null
	return 0
}

# nvme_dev NQN NSID: the host's block device of namespace NSID of NQN,
# once it shows: under the subsystem (native multipath, Debian's default)
# or under the controller.
nvme_dev() {
	local d n
	for d in /sys/class/nvme-subsystem/nvme-subsys* /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		for n in "$d"/nvme*n"$2"; do
			[[ ${n##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
			[ -b "/dev/${n##*/}" ] && echo "/dev/${n##*/}" && return 0
		done
	done
	return 1
}
