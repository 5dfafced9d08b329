#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-device.sh: a sroce device's life on one host: autoload, attributes,
# GIDs, MTU, carrier and port events, delete, re-add and rmmod.
#
#   eth0 (the VM's NIC) ── sroce0
#   veth_a ── veth_b       sroce1 on veth_a, carrier driven from veth_b
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:ibv_devinfo cmd:ibv_asyncwatch module:sroce

ktap_plan 29

abi=$(sed -n 's/^#define SROCE_UVERBS_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' \
	"$here/../uapi/rdma/sroce-abi.h")
ip -6 addr add 2001:db8:77::1/64 dev eth0 nodad
v4=$(ip -4 -o addr show dev eth0 | awk '{ sub(/\/.*/, "", $4); print $4; exit }')

port_state() {	# port_state DEV: the state word of `rdma link show`
	rdma link show "$1/1" | sed -n 's/.* state \([A-Z_]*\) .*/\1/p'
}
uverbs_abi() {	# uverbs_abi DEV: abi_version of the device's uverbs node
	local d
	for d in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$d/ibdev")" = "$1" ] && cat "$d/abi_version"
	done
}
wait_state() {	# wait_state DEV STATE: up to 5 s
	local i
	for i in $(seq 50); do
		[ "$(port_state "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	echo "port of $1 is $(port_state "$1"), wanted $2"
	return 1
}

# Autoload: no modprobe, `rdma link add` asks for rdma-link-sroce.
ktap_check "module not loaded before the first link add" \
	bash -c '! grep -q "^sroce " /proc/modules'
ktap_check "rdma link add autoloads sroce and creates sroce0" \
	rdma link add sroce0 type sroce netdev eth0
ktap_expect "rdma link show: sroce0 ACTIVE on eth0" \
	'^link sroce0/1 state ACTIVE physical_state LINK_UP netdev eth0' \
	rdma link show sroce0/1
ktap_expect "ibv_devices lists sroce0" '^[[:space:]]+sroce0[[:space:]]' ibv_devices
ktap_expect "uverbs abi_version is the uapi header's ($abi)" "^$abi\$" uverbs_abi sroce0

info=$(ibv_devinfo -v -d sroce0 2>&1)
ktap_expect "ibv_devinfo: PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE \(4\)' echo "$info"
ktap_expect "ibv_devinfo: link layer Ethernet" 'link_layer:[[:space:]]+Ethernet' echo "$info"
ktap_expect "ibv_devinfo: active_mtu 1024 for netdev MTU 1500" \
	'active_mtu:[[:space:]]+1024 \(3\)' echo "$info"
ktap_expect "ibv_devinfo: RoCE v2 GID for IPv4 $v4" \
	"GID\[ *[0-9]+\]:[[:space:]]+::ffff:$v4, RoCE v2" echo "$info"
ktap_expect "ibv_devinfo: RoCE v2 GID for IPv6 2001:db8:77::1" \
	'GID\[ *[0-9]+\]:[[:space:]]+2001:db8:77::1, RoCE v2' \
	echo "$info"
ktap_expect "ibv_devinfo: RoCE v2 link-local GID" \
	'GID\[ *0\]:[[:space:]]+fe80::[0-9a-f:]+, RoCE v2' echo "$info"
ktap_check "no RoCE v1 GIDs" bash -c "! grep -q 'RoCE v1' <<<\"\$1\"" _ "$info"

# The active MTU follows the netdev MTU: the largest IB MTU that fits with
# the RoCEv2 headers around it.
mtu_case() {
	ip link set dev eth0 mtu "$1" &&
	ibv_devinfo -d sroce0 | grep -qE "active_mtu:[[:space:]]+$2 "
}
ktap_check "netdev MTU 9000 -> active_mtu 4096" mtu_case 9000 4096
ktap_check "netdev MTU 2100 -> active_mtu 1024" mtu_case 2100 1024
ktap_check "netdev MTU 1100 -> active_mtu 512" mtu_case 1100 512
ip link set dev eth0 mtu 1500

# Carrier and admin state, and the async events they raise.
ip link add veth_a type veth peer name veth_b
ip link set veth_a up
ip link set veth_b up
ktap_check "sroce1 on a veth" rdma link add sroce1 type sroce netdev veth_a
ktap_check "sroce1 ACTIVE with carrier" wait_state sroce1 ACTIVE
ibv_asyncwatch -d sroce1 >/tmp/async.txt 2>&1 &
watch=$!
# Its context is open (events from here on are queued for it) once it
# prints its event FD; a second's sleep was not always enough.
wait_for 10 grep -q 'async event FD' /tmp/async.txt
ip link set veth_b down
ktap_check "carrier off -> port DOWN" wait_state sroce1 DOWN
ktap_expect "carrier off -> physical state POLLING" 'physical_state POLLING' \
	rdma link show sroce1/1
ip link set veth_b up
ktap_check "carrier on -> port ACTIVE again" wait_state sroce1 ACTIVE
ip link set veth_a down
ktap_expect "admin down -> DOWN, DISABLED" 'state DOWN physical_state DISABLED' \
	bash -c 'sleep 0.2; rdma link show sroce1/1'
ip link set veth_a up
wait_state sroce1 ACTIVE >/dev/null
sleep 0.5
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
ktap_expect "async events: PORT_ERR then PORT_ACTIVE" \
	'PORT_ERR.*PORT_ACTIVE.*PORT_ERR.*PORT_ACTIVE' \
	bash -c "tr '\n' ' ' </tmp/async.txt"

# Removal: the netdev going away removes its device.
ip link del veth_a
ktap_check "deleting the netdev removes sroce1" \
	bash -c 'for i in $(seq 50); do rdma link show sroce1/1 >/dev/null 2>&1 || exit 0; sleep 0.1; done; exit 1'

ktap_check "rdma link delete sroce0" rdma link delete sroce0
ktap_check "sroce0 gone from ibv_devices" bash -c '! ibv_devices | grep -q sroce0'
ktap_check "re-add sroce0 on eth0" rdma link add sroce0 type sroce netdev eth0
ktap_check "sroce0 ACTIVE again" wait_state sroce0 ACTIVE
rdma link add sroce2 type sroce netdev lo 2>/dev/null	# refused; harmless
ip link add sdummy0 type dummy
ip link set sdummy0 up
rdma link add sroce3 type sroce netdev sdummy0
ktap_check "rmmod sroce with two live devices" rmmod sroce
ktap_check "no sroce devices after rmmod" bash -c '! rdma link show | grep -q sroce'
ip link del sdummy0

ktap_finish
