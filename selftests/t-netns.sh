#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-netns.sh: sroce devices in two network namespaces at once, each with
# its own RoCEv2 sockets, beside rdma_rxe in the initial namespace.
#
#   init ns:  eth0 ── rxe0            (rdma_rxe holds UDP 4791 here)
#   h1:       veth1 ── sroce_h1  ┐
#   h2:       veth2 ── sroce_h2  ├── bridge br0 in namespace hsw
#   h3:       veth3              ┘
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"

ktap_require root cmd:rdma cmd:ibv_devinfo cmd:ss module:sroce module:rdma_rxe module:veth module:bridge
. "$here/lib.sh"

ktap_plan 17

sockets() {	# sockets NS: the local addresses bound to UDP 4791 in NS
	ip netns exec "$1" ss -Hulnp 'sport = :4791' | awk '{ print $4 }' | sort | tr '\n' ' '
}

ktap_check "rxe0 on eth0 in the initial namespace" \
	bash -c 'modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0'
hosts_create 3
ktap_check "sroce_h1 in namespace h1" sroce_add 1
ktap_check "sroce_h2 in namespace h2" sroce_add 2
ktap_expect "sroce_h1 ACTIVE" 'state ACTIVE' rdma link show sroce_h1/1
ktap_expect "sroce_h2 ACTIVE" 'state ACTIVE' rdma link show sroce_h2/1
ktap_expect "rxe0 still ACTIVE" 'state ACTIVE' rdma link show rxe0/1
ktap_expect "h1 has its own 4791 sockets, IPv4 and IPv6" \
	'^0\.0\.0\.0:4791 \[::\]:4791 $' sockets h1
ktap_expect "h2 has its own 4791 sockets, IPv4 and IPv6" \
	'^0\.0\.0\.0:4791 \[::\]:4791 $' sockets h2
ktap_expect "sroce_h1 GIDs hold h1's IPv4 address" \
	"::ffff:$(host_ip 1), RoCE v2" host_exec 1 ibv_devinfo -v -d sroce_h1
ktap_expect "sroce_h2 GIDs hold h2's IPv6 address" \
	'fd77::2, RoCE v2' \
	host_exec 2 ibv_devinfo -v -d sroce_h2

ktap_check "deleting the last device of h1 closes h1's sockets" \
	bash -c "rdma link delete sroce_h1 && [ -z \"\$(ip netns exec h1 ss -Hul 'sport = :4791')\" ]"
ktap_check "a new device in h1 opens them again" sroce_add 1
ktap_expect "... and is ACTIVE" 'state ACTIVE' rdma link show sroce_h1/1

# Dismantling a namespace unregisters its veth and so its device.
ip netns del h2
ktap_check "deleting namespace h2 removes sroce_h2" \
	wait_for 10 bash -c '! rdma link show sroce_h2/1 >/dev/null 2>&1'
ktap_expect "sroce_h1 unaffected" 'state ACTIVE' rdma link show sroce_h1/1
ktap_check "rmmod sroce with a device in h1" rmmod sroce
ktap_expect "rxe0 still ACTIVE after all that" 'state ACTIVE' rdma link show rxe0/1

# Leave the host as found: rdma_rxe holds UDP 4791 while it is loaded.
rdma link delete rxe0
rmmod rdma_rxe
ktap_finish
