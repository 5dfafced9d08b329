#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-srp.sh: the SCSI RDMA Protocol on sroce, as blktests' srp group runs it
# on rdma_rxe: the LIO SRP target (ib_srpt, configured through configfs,
# listening on RDMA/CM port 5555) with a null_blk LUN and the ib_srp
# initiator logging in through the RDMA/CM (RoCE has no IB CM paths), both
# on one sroce device in loopback in the initial network namespace. fio
# writes and verifies (crc32c) at 4 KiB and 128 KiB with 4 jobs of queue
# depth 16 on the SCSI disk; the remote port is deleted; the target is
# torn down; every sroce object is gone at the end.
#
#   init_net: nst0 10.91.0.1/24 (veth, peer nst1) -- sroce_sr
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:fio module:sroce module:ib_srpt \
	module:ib_srp module:sd_mod module:target_core_iblock module:null_blk \
	module:veth

IP=10.91.0.1
PORT=5555
CFS=/sys/kernel/config/target
MB=${SRP_FIO_MB:-16}
tmp=$(mktemp -d)

# The target port's name: ib_srpt names a RoCE port by its GID 0 (the
# link-local one), less its fe80:0000:0000:0000: prefix.
port_name() {
	local g
	g=$(cat /sys/class/infiniband/sroce_sr/ports/1/gids/0) &&
		echo "${g#fe80:0000:0000:0000:}"
}

cleanup() {
	local p
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	modprobe -r ib_srp 2>/dev/null
	if [ -d "$CFS/srpt" ]; then
		for p in "$CFS"/srpt/*/*/enable; do
			[ -e "$p" ] && echo 0 >"$p"
		done
		rm -f "$CFS"/srpt/*/*/acls/*/*/* "$CFS"/srpt/*/*/lun/*/* 2>/dev/null
		rmdir "$CFS"/srpt/*/*/acls/*/* "$CFS"/srpt/*/*/acls/* \
			"$CFS"/srpt/*/*/lun/* "$CFS"/srpt/*/* "$CFS"/srpt/* \
			"$CFS/srpt" 2>/dev/null
	fi
	rmdir "$CFS/core/iblock_0/nb0" "$CFS/core/iblock_0" 2>/dev/null
	modprobe -r ib_srpt target_core_iblock 2>/dev/null
	rdma link delete sroce_sr 2>/dev/null
	ip link del nst0 2>/dev/null
	modprobe -r null_blk 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 9

target() {
	local tp acl
	veth_sroce nst "$IP" sroce_sr || return 1
	resources sroce_sr >"$tmp/base"
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe target_core_iblock || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	if modinfo ib_srpt | grep -q '^parm:[[:blank:]]*rdma_cm_port:'; then
		modprobe ib_srpt "rdma_cm_port=$PORT" || return 1
	else
		modprobe ib_srpt || return 1
	fi
	mkdir -p "$CFS/core/iblock_0/nb0" &&
	echo "udev_path=/dev/nullb0," >"$CFS/core/iblock_0/nb0/control" &&
	echo 1 >"$CFS/core/iblock_0/nb0/enable" &&
	mkdir "$CFS/srpt" || return 1
	[ ! -e "$CFS/srpt/discovery_auth/rdma_cm_port" ] ||
		echo "$PORT" >"$CFS/srpt/discovery_auth/rdma_cm_port" || return 1
	tp=$(port_name) && mkdir "$CFS/srpt/$tp" "$CFS/srpt/$tp/$tp" &&
	mkdir "$CFS/srpt/$tp/$tp/lun/lun_0" &&
	ln -s "$CFS/core/iblock_0/nb0" "$CFS/srpt/$tp/$tp/lun/lun_0/nb0" ||
		return 1
	# An initiator logging in through the RDMA/CM is named by its address.
	acl=$CFS/srpt/$tp/$tp/acls/$IP
	mkdir "$acl" "$acl/lun_0" &&
	ln -s "$CFS/srpt/$tp/$tp/lun/lun_0" "$acl/lun_0/lun_0" &&
	echo 1 >"$CFS/srpt/$tp/$tp/enable"
}

# The SCSI disk of the SRP session, once it shows.
disk() {
	local h d
	for h in /sys/class/scsi_host/host*; do
		[ -e "$h/orig_dgid" ] || continue
		for d in /sys/class/scsi_device/"${h##*host}":*/device/block/*; do
			[ -b "/dev/${d##*/}" ] && echo "/dev/${d##*/}" && return 0
		done
	done
	return 1
}

login() {
	local ioc gid p
	# No udev here to load the SCSI disk driver.
	modprobe -a ib_srp sd_mod || return 1
	ioc=$(cat /sys/module/ib_srpt/parameters/srpt_service_guid) &&
	gid=$(cat /sys/class/infiniband/sroce_sr/ports/1/gids/0) || return 1
	gid=${gid//:}
	p=/sys/class/infiniband_srp/srp-sroce_sr-1/add_target
	wait_for 10 test -e "$p" &&
	echo "id_ext=$ioc,initiator_ext=${gid:0:16},ioc_guid=$ioc,src=$IP,dest=$IP:$PORT" \
		>"$p" || return 1
	wait_for 20 disk || { dmesg | tail -n 30; return 1; }
}

ktap_check "LIO SRP target on sroce_sr: null_blk LUN, RDMA/CM port $PORT" target
ktap_check "ib_srp logs in through the RDMA/CM: a SCSI disk shows" login
for bs in 4k 128k; do
	ktap_check "fio $bs random writes verified (crc32c)" \
		fio_verify "$(disk)" "$bs" "$MB"
done
logout() {
	local p
	for p in /sys/class/srp_remote_ports/*; do
		echo 1 >"$p/delete" || return 1
	done
	wait_for 10 no_disk
}
no_disk() { ! disk >/dev/null; }
ktap_check "remote port deleted: the disk goes" logout
ktap_check "ib_srp unloads" modprobe -r ib_srp
teardown() {
	local tp
	tp=$(port_name) || return 1
	echo 0 >"$CFS/srpt/$tp/$tp/enable" &&
	rm "$CFS/srpt/$tp/$tp/acls/$IP/lun_0/lun_0" &&
	rmdir "$CFS/srpt/$tp/$tp/acls/$IP/lun_0" "$CFS/srpt/$tp/$tp/acls/$IP" &&
	rm "$CFS/srpt/$tp/$tp/lun/lun_0/nb0" &&
	rmdir "$CFS/srpt/$tp/$tp/lun/lun_0" "$CFS/srpt/$tp/$tp" \
		"$CFS/srpt/$tp" "$CFS/srpt" &&
	modprobe -r ib_srpt
}
ktap_check "target torn down, ib_srpt unloaded" teardown
ktap_check "... nothing of the ULPs' left on sroce_sr (PDs, QPs, MRs, CQs)" \
	sroce_idle sroce_sr "$(cat "$tmp/base")"
ktap_check "sroce_sr deleted" rdma link delete sroce_sr
ktap_finish
