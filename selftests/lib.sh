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
#   hosts_cleanup         delete those devices and the namespaces; an EXIT
#                         trap set by hosts_create (call it from your own
#                         EXIT trap if you replace it)
#   wait_for SECS CMD...  run CMD (quietly) until it succeeds; fail after SECS
#   host_listening I PORT is a TCP socket listening on PORT in host I?
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
}

# sroce_add I: like udev's rdma rules on a real host, also load the verbs
# and rdma_cm user interfaces.
sroce_add() {
	local i=${1:?usage: sroce_add I}
	ip netns exec "h$i" rdma link add "sroce_h$i" type sroce netdev "veth$i" || return 1
	HOSTS_DEVS+=("$i")
	modprobe -q -a ib_uverbs rdma_ucm || true
}

hosts_cleanup() {
	local i
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

wait_for() {
	local secs=${1:?usage: wait_for SECS CMD...} now end
	shift
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
