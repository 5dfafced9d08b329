#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-nfs.sh: NFS over RDMA on sroce: the kernel's nfsd listening on
# "rdma 20049" and the kernel's NFS client mounting with -o rdma, both on
# one sroce device in loopback in the initial network namespace (where
# kernel ULPs open their RDMA CM IDs). For NFSv3 and NFSv4.2: fio writes
# and verifies (crc32c) at 4 KiB and 128 KiB with 4 jobs of queue depth
# 16, and a 64 MiB file copied in and read back after a remount is
# compared byte for byte. The transport is checked to be RDMA (the mount's
# proto=rdma, and sroce's counters moving). Every sroce object is gone at
# the end.
#
#   init_net: nft0 10.89.0.1/24 (veth, peer nft1) -- sroce_nf
#   export:   /srv/nfs, a tmpfs of its own; fsid=0 makes it NFSv4's root
#             too, so v3 mounts /srv/nfs and v4.2 mounts /
#
# The daemons start as the packages' units start them (rpcbind, then
# rpc.mountd and rpc.nfsd), without systemd; the NFSv4 grace period is
# cut to 10 s so that the v4 mount can open files at once.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:fio cmd:rpcbind cmd:rpc.nfsd cmd:rpc.mountd \
	cmd:exportfs cmd:mount.nfs module:sroce module:nfsd module:rpcrdma \
	module:veth

IP=10.89.0.1
EXPORT=/srv/nfs
MB=${NFS_FIO_MB:-16}
tmp=$(mktemp -d)

cleanup() {
	local m
	for m in "$tmp"/mnt-*; do
		mountpoint -q "$m" && umount -f "$m"
	done
	rpc.nfsd 0 >/dev/null 2>&1
	exportfs -ua >/dev/null 2>&1
	pkill -x rpc.mountd
	pkill -x rpcbind
	mountpoint -q /proc/fs/nfsd && umount /proc/fs/nfsd
	mountpoint -q "$EXPORT" && umount "$EXPORT"
	rdma link delete sroce_nf 2>/dev/null
	ip link del nft0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 17

server() {
	veth_sroce nft "$IP" sroce_nf || return 1
	resources sroce_nf >"$tmp/base"
	mkdir -p "$EXPORT" /var/lib/nfs/v4recovery &&
	mount -t tmpfs -o size=512M tmpfs "$EXPORT" &&
	chmod 1777 "$EXPORT" || return 1
	echo "$EXPORT $IP/24(rw,sync,no_root_squash,insecure,no_subtree_check,fsid=0)" \
		>/etc/exports
	modprobe -a nfsd rpcrdma || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		return 1
	echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
	echo 10 >/proc/fs/nfsd/nfsv4leasetime || return 1
	rpcbind -w && exportfs -ra && rpc.mountd && rpc.nfsd 8 || return 1
	echo "rdma 20049" >/proc/fs/nfsd/portlist
}

listening() { grep -qx 'rdma 20049' /proc/fs/nfsd/portlist; }

# nfs_mount VERS: mount the export over RDMA at $tmp/mnt-VERS
nfs_mount() {
	local m=$tmp/mnt-$1 path=$EXPORT
	[ "$1" = 3 ] || path=/
	mkdir -p "$m"
	mount -t nfs -o "rdma,port=20049,vers=$1" "$IP:$path" "$m" ||
		return 1
	# The mount must really be RDMA, not a fallback to TCP.
	grep -E " $m nfs4? " /proc/mounts | grep -q 'proto=rdma' ||
		{ grep " $m " /proc/mounts | ktap_diag; return 1; }
}

# copy_back VERS: a 64 MiB file in, remount, the same bytes back
copy_back() {
	local m=$tmp/mnt-$1
	head -c 64M /dev/urandom >"$tmp/big" &&
	cp "$tmp/big" "$m/big" && sync && umount "$m" &&
	nfs_mount "$1" && cmp "$tmp/big" "$m/big" || return 1
	rm -f "$m/big" "$tmp/big"
}

tx() { counter sroce_nf tx_packets; }

ktap_check "nfsd on sroce_nf, listening on rdma 20049" server
ktap_check "... its portlist has rdma 20049" wait_for 10 listening
for v in 3 4.2; do
	before=$(tx)
	ktap_check "NFSv$v mount -o rdma: proto=rdma" nfs_mount "$v"
	for bs in 4k 128k; do
		ktap_check "NFSv$v: fio $bs random writes verified (crc32c)" \
			fio_verify "$tmp/mnt-$v" "$bs" "$MB"
	done
	ktap_check "NFSv$v: a 64 MiB file copied in, read back after a remount, equal" \
		copy_back "$v"
	moved() { [ "$(tx)" -gt $((before + 10000)) ]; }
	ktap_check "NFSv$v: the traffic went through sroce_nf (tx_packets)" moved
	ktap_check "NFSv$v: umount" umount "$tmp/mnt-$v"
done
stop() { rpc.nfsd 0 && exportfs -ua; }
ktap_check "nfsd stopped" stop
ktap_check "... nothing of the ULPs' left on sroce_nf (PDs, QPs, MRs, CQs)" \
	sroce_idle sroce_nf "$(cat "$tmp/base")"
ktap_check "sroce_nf deleted" rdma link delete sroce_nf
ktap_finish
