#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-nvme.sh: NVMe over Fabrics on sroce, as blktests runs it on rdma_rxe:
# the kernel's nvmet-rdma target (configfs) and nvme-rdma host on one sroce
# device in loopback, in the initial network namespace (where kernel ULPs
# open their RDMA CM IDs). Namespaces backed by null_blk (memory backed)
# and by a file; fio writes and verifies (crc32c) at 4 KiB and 128 KiB
# with 4 jobs of queue depth 16; nvme disconnect; then the target's
# device is deleted in the middle of I/O: the I/O fails, the controller
# goes, nothing hangs. Every sroce object is gone at the end.
#
#   init_net: nvt0 10.88.0.1/24 (veth, peer nvt1) -- sroce_nv
#
# NVME_FIO_MB: MiB each fio job writes and verifies (default 16).
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:nvme cmd:fio module:sroce module:nvme_rdma \
	module:nvmet_rdma module:null_blk module:veth

NQN=nqn.2026-12.sroce:test
IP=10.88.0.1
PORT=4420
CFS=/sys/kernel/config/nvmet
MB=${NVME_FIO_MB:-16}
tmp=$(mktemp -d)

cleanup() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$CFS/ports/1/subsystems/$NQN" 2>/dev/null
	rmdir "$CFS/ports/1" 2>/dev/null
	for ns in "$CFS/subsystems/$NQN"/namespaces/*; do
		[ -d "$ns" ] || continue
		echo 0 >"$ns/enable"
		rmdir "$ns"
	done
	rmdir "$CFS/subsystems/$NQN" 2>/dev/null
	rdma link delete sroce_nv 2>/dev/null
	ip link del nvt0 2>/dev/null
	modprobe -r nvme_rdma nvmet_rdma nvmet null_blk 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 10

# The target: subsystem NQN, namespace NSID backed by PATH.
target_ns() {
	local ns=$CFS/subsystems/$NQN/namespaces/$1
	mkdir "$ns" && echo "$2" >"$ns/device_path" &&
		{ [ -z "${3:-}" ] || echo 1 >"$ns/buffered_io"; } &&
		echo 1 >"$ns/enable"
}

setup() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe nvmet_rdma && modprobe nvme_rdma || return 1
	# configfs (loaded with nvmet) as its package would mount it
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	ip link add nvt0 type veth peer name nvt1 &&
	ip addr add "$IP/24" dev nvt0 &&
	ip link set nvt0 up && ip link set nvt1 up &&
	rdma link add sroce_nv type sroce netdev nvt0 || return 1
	truncate -s 256M "$tmp/ns2.img"
	mkdir "$CFS/subsystems/$NQN" &&
	echo 1 >"$CFS/subsystems/$NQN/attr_allow_any_host" &&
	target_ns 1 /dev/nullb0 && target_ns 2 "$tmp/ns2.img" buffered &&
	mkdir "$CFS/ports/1" &&
	echo rdma >"$CFS/ports/1/addr_trtype" &&
	echo ipv4 >"$CFS/ports/1/addr_adrfam" &&
	echo "$IP" >"$CFS/ports/1/addr_traddr" &&
	echo "$PORT" >"$CFS/ports/1/addr_trsvcid" &&
	ln -s "$CFS/subsystems/$NQN" "$CFS/ports/1/subsystems/$NQN"
}

# The host's block device of namespace NSID, once it shows: under the
# subsystem (native multipath, Debian's default) or the controller.
nvme_dev() {
	local d n
	for d in /sys/class/nvme-subsystem/nvme-subsys* /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		for n in "$d"/nvme*n"$1"; do
			[[ ${n##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
			[ -b "/dev/${n##*/}" ] && echo "/dev/${n##*/}" && return 0
		done
	done
	return 1
}

connect() {
	nvme connect -t rdma -a "$IP" -s "$PORT" -n "$NQN" "$@" &&
		wait_for 20 nvme_dev 1 && wait_for 20 nvme_dev 2
}

# fio_verify DEV BS: 4 jobs of depth 16, each writing MB MiB of its own
# part at random, then reading and checking it.
fio_verify() {
	fio --name=verify --filename="$1" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs="$2" --size="${MB}M" \
		--offset_increment="${MB}M" --numjobs=4 --iodepth=16 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 \
		--group_reporting >"$tmp/fio.log" 2>&1
	local rc=$?
	[ "$rc" -eq 0 ] || ktap_diag <"$tmp/fio.log"
	return "$rc"
}

ktap_check "nvmet-rdma target on sroce_nv (null_blk and file namespaces)" setup
ktap_check "nvme connect -t rdma: both namespaces show" connect
for bs in 4k 128k; do
	ktap_check "fio $bs random writes verified (crc32c), null_blk" \
		fio_verify "$(nvme_dev 1)" "$bs"
	ktap_check "fio $bs random writes verified (crc32c), file" \
		fio_verify "$(nvme_dev 2)" "$bs"
done
ktap_expect "nvme disconnect" "disconnected 1 controller" \
	nvme disconnect -n "$NQN"

# Fail the target's device in the middle of I/O: the host gives up after
# its ctrl-loss-tmo (3 s), the I/O ends in errors, nothing hangs.
mid_io_delete() {
	local dev pid
	connect --ctrl-loss-tmo=3 --reconnect-delay=1 || return 1
	dev=$(nvme_dev 1)
	fio --name=cut --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=4k --size="${MB}M" --numjobs=2 --iodepth=16 \
		--time_based --runtime=60 --verify_state_save=0 \
		>"$tmp/cut.log" 2>&1 &
	pid=$!
	sleep 2
	rdma link delete sroce_nv || return 1
	# fio ends (in error) well before its 60 s once the controller goes.
	wait_for 45 bash -c "! kill -0 $pid" || { kill "$pid"; return 1; }
	! wait "$pid"
}
ktap_check "rdma link delete of the target's device under fio: the I/O fails, fio ends" \
	mid_io_delete
controller_gone() { ! nvme_dev 1 >/dev/null; }
ktap_check "... the host's controller goes after its ctrl-loss-tmo" \
	wait_for 30 controller_gone
sroce_gone() { ! rdma -d resource show 2>/dev/null | grep -q sroce_nv; }
ktap_check "... no sroce object is left" sroce_gone
ktap_finish
