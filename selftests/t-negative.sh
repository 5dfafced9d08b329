#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-negative.sh: `rdma link add` requests sroce must refuse, each with its
# errno and one kernel line saying why, and each leaving nothing behind.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"

ktap_require root cmd:rdma module:sroce module:rdma_rxe module:dummy module:ipip

ktap_plan 16

# refused DESC ERRNO_RE MSG_RE CMD...: CMD fails with ERRNO_RE in its output
# and the kernel logs exactly one sroce line, matching MSG_RE (none when
# MSG_RE is empty).
refused() {
	local desc=$1 errno_re=$2 msg_re=$3 mark out rc msgs n
	shift 3
	mark="sroce-selftest-mark-$RANDOM$RANDOM"
	echo "$mark" >/dev/kmsg
	out=$("$@" 2>&1)
	rc=$?
	msgs=$(dmesg | sed -n "/$mark/,\$p" | grep -E '(^|\] )sroce: ')
	n=$(grep -c . <<<"$msgs")
	if [ "$rc" -ne 0 ] && grep -qE -- "$errno_re" <<<"$out" &&
	   { { [ -z "$msg_re" ] && [ "$n" -eq 0 ]; } ||
	     { [ -n "$msg_re" ] && [ "$n" -eq 1 ] && grep -qE -- "$msg_re" <<<"$msgs"; }; }; then
		ktap_ok "$desc"
	else
		printf '%s\n' "\$ $* (exit $rc)" "$out" "kernel:" "$msgs" | ktap_diag
		ktap_fail "$desc"
	fi
}
links() { rdma link show | awk '{ print $2 }' | sort | tr '\n' ' '; }
devs() { ls /sys/class/infiniband | sort | tr '\n' ' '; }
nothing_left() {	# nothing_left EXPECTED_LINKS
	[ "$(links)" = "$1" ] && [ "$(devs)" = "$(tr ' ' '\n' <<<"$1" |
		sed -n 's,/1$,,p' | sort | tr '\n' ' ')" ] ||
		{ echo "links: $(links) devices: $(devs), wanted $1"; return 1; }
}

modprobe sroce
ip link add sdummy0 type dummy
ip link set sdummy0 up

# rdma_rxe holds UDP 4791 in the initial namespace.
modprobe rdma_rxe
refused "port 4791 taken by rdma_rxe: EADDRINUSE" 'Address already in use' \
	'UDP port 4791 \(IPv4\) is already in use' \
	rdma link add sroce0 type sroce netdev sdummy0
ktap_check "... and nothing left behind" nothing_left ""
ktap_check "rmmod rdma_rxe" rmmod rdma_rxe

ktap_check "sroce0 on sdummy0" rdma link add sroce0 type sroce netdev sdummy0
refused "second device on one netdev: EEXIST" 'File exists' \
	'sroce1: sdummy0 already has sroce device sroce0' \
	rdma link add sroce1 type sroce netdev sdummy0
ktap_check "... and nothing left behind" nothing_left "sroce0/1 "
refused "non-Ethernet netdev (lo): EOPNOTSUPP" 'Operation not supported' \
	'lo is not an Ethernet device' \
	rdma link add sroce1 type sroce netdev lo
ktap_check "... and nothing left behind" nothing_left "sroce0/1 "
ip link add ipip0 type ipip local 192.0.2.1 remote 192.0.2.2
refused "non-Ethernet netdev (ipip): EOPNOTSUPP" 'Operation not supported' \
	'ipip0 is not an Ethernet device' \
	rdma link add sroce1 type sroce netdev ipip0
ip link del ipip0
refused "unknown netdev: ENODEV from the RDMA core" 'No such device' '' \
	rdma link add sroce1 type sroce netdev nosuchdev0
ktap_check "... and nothing left behind" nothing_left "sroce0/1 "
refused "name without the sroce prefix: EINVAL" 'Invalid argument' \
	'foo0: device names must start with "sroce"' \
	rdma link add foo0 type sroce netdev eth0
ktap_check "... and nothing left behind" nothing_left "sroce0/1 "
refused "name already taken: EEXIST" 'File exists' 'sroce0: an RDMA device of that name exists' \
	rdma link add sroce0 type sroce netdev eth0
ktap_check "... and nothing left behind" nothing_left "sroce0/1 "
ktap_check "after all that: delete sroce0, rmmod" \
	bash -c 'rdma link delete sroce0 && rmmod sroce'

ip link del sdummy0
ktap_finish
