#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-iser.sh: iSCSI Extensions for RDMA on sroce: a LIO target set up with
# targetcli (a null_blk LUN, the portal switched to iSER) and the
# open-iscsi initiator logging in over the iser transport, both on one
# sroce device in loopback in the initial network namespace. fio writes
# and verifies (crc32c) at 4 KiB and 128 KiB with 4 jobs of queue depth
# 16 on the SCSI disk; logout; the target is torn down; every sroce object
# is gone at the end.
#
#   init_net: nit0 10.90.0.1/24 (veth, peer nit1) -- sroce_is
#
# iscsid and the system bus start as their units start them, without
# systemd.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:fio cmd:targetcli cmd:iscsiadm cmd:iscsid \
	cmd:dbus-daemon module:sroce module:ib_isert module:ib_iser module:sd_mod \
	module:null_blk module:veth

IP=10.90.0.1
IQN=iqn.2026-12.org.sroce:iser
MB=${ISER_FIO_MB:-16}
tmp=$(mktemp -d)

cleanup() {
	iscsiadm -m node -T "$IQN" --logout >/dev/null 2>&1
	iscsiadm -m node -T "$IQN" -o delete >/dev/null 2>&1
	pkill -x iscsid
	pkill -x dbus-daemon
	targetcli clearconfig confirm=True >/dev/null 2>&1
	rdma link delete sroce_is 2>/dev/null
	ip link del nit0 2>/dev/null
	modprobe -r ib_iser ib_isert null_blk 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 9

tcli() { targetcli "$@" >>"$tmp/targetcli.log" 2>&1; }

target() {
	veth_sroce nit "$IP" sroce_is || return 1
	resources sroce_is >"$tmp/base"
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe -a ib_isert ib_iser || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	# targetcli asks the system bus for tcmu-runner's backstores.
	if [ ! -S /run/dbus/system_bus_socket ]; then
		mkdir -p /run/dbus && dbus-daemon --system --fork || return 1
	fi
	local t=/iscsi/$IQN/tpg1
	tcli /backstores/block create name=nb0 dev=/dev/nullb0 &&
	tcli /iscsi create "$IQN" &&
	tcli "$t/luns" create /backstores/block/nb0 &&
	tcli "$t/portals" delete 0.0.0.0 3260 &&
	tcli "$t/portals" create "$IP" 3260 &&
	tcli "$t/portals/$IP:3260" enable_iser true &&
	tcli "$t" set attribute authentication=0 generate_node_acls=1 \
		demo_mode_write_protect=0 cache_dynamic_acls=1 ||
		{ ktap_diag <"$tmp/targetcli.log"; return 1; }
	# The portal must really be iSER.
	[ "$(cat "/sys/kernel/config/target/iscsi/$IQN/tpgt_1/np/$IP:3260/iser")" = 1 ]
}

# The SCSI disk the iSER session attached, once it shows.
disk() {
	iscsiadm -m session -P 3 2>/dev/null |
		sed -n 's/.*Attached scsi disk \([a-z]*\).*/\/dev\/\1/p' | head -n 1 |
		grep .
}

login() {
	# "iser" is one of open-iscsi's built-in interfaces. No udev here to
	# load the SCSI disk driver.
	modprobe sd_mod && iscsid || return 1
	iscsiadm -m node -o new -T "$IQN" -p "$IP:3260" -I iser >/dev/null &&
	iscsiadm -m node -T "$IQN" -p "$IP:3260" -I iser --login >"$tmp/login" 2>&1 ||
		{ ktap_diag <"$tmp/login"; return 1; }
	wait_for 20 disk || { dmesg | tail -n 30; return 1; }
}

# The session's transport, as the initiator sees it: iser.
transport() {
	iscsiadm -m session -P 1 | grep -q 'Iface Transport: iser'
}

ktap_check "LIO target on sroce_is: null_blk LUN, portal $IP:3260 with iSER" target
ktap_check "open-iscsi login over iser: a SCSI disk shows" login
ktap_check "... the session's transport is iser" transport
for bs in 4k 128k; do
	ktap_check "fio $bs random writes verified (crc32c)" \
		fio_verify "$(disk)" "$bs" "$MB"
done
ktap_check "logout" iscsiadm -m node -T "$IQN" -p "$IP:3260" --logout
ktap_check "target cleared" targetcli clearconfig confirm=True
ktap_check "... nothing of the ULPs' left on sroce_is (PDs, QPs, MRs, CQs)" \
	sroce_idle sroce_is "$(cat "$tmp/base")"
ktap_check "sroce_is deleted" rdma link delete sroce_is
ktap_finish
