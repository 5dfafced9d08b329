#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-nvme.sh: NVMe over Fabrics on sroce, as blktests runs it on rdma_rxe:
# the kernel's nvmet-rdma target (configfs) and nvme-rdma host on one sroce
# device in loopback, in the initial network namespace (where kernel ULPs
# open their RDMA CM IDs). Namespaces backed by null_blk (memory backed)
# and by a file; fio writes and verifies (crc32c) at 4 KiB and 128 KiB
# with 4 jobs of queue depth 16, and for NVME_SOAK seconds both sizes at
# once, verified as they go; nvme disconnect; then the target's
# device is deleted in the middle of I/O: the I/O fails, the controller
# goes, nothing hangs. Every sroce object is gone at the end.
#
#   init_net: nvt0 10.88.0.1/24 (veth, peer nvt1) -- sroce_nv
#
# NVME_FIO_MB: MiB each fio job writes and verifies (default 16).
# NVME_SOAK: seconds of the mixed run (default 60).
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:nvme cmd:fio module:sroce module:nvme_rdma \
	module:nvmet_rdma module:null_blk module:veth

NQN=nqn.2026-12.sroce:test
IP=10.88.0.1
PORT=4420
MB=${NVME_FIO_MB:-16}
SOAK=${NVME_SOAK:-60}
tmp=$(mktemp -d)

cleanup() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	nvmet_del "$NQN"
	rdma link delete sroce_nv 2>/dev/null
	ip link del nvt0 2>/dev/null
	modprobe -r nvme_rdma nvmet_rdma nvmet null_blk 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_plan 11

setup() {
	modprobe null_blk nr_devices=1 gb=1 memory_backed=1 &&
	modprobe nvme_rdma || return 1
	veth_sroce nvt "$IP" sroce_nv || return 1
	truncate -s 256M "$tmp/ns2.img"
	nvmet_add "$NQN" "$IP" "$PORT" /dev/nullb0 "$tmp/ns2.img"
}

connect() {
	nvme connect -t rdma -a "$IP" -s "$PORT" -n "$NQN" "$@" &&
		wait_for 20 nvme_dev "$NQN" 1 && wait_for 20 nvme_dev "$NQN" 2
}

ktap_check "nvmet-rdma target on sroce_nv (null_blk and file namespaces)" setup
ktap_check "nvme connect -t rdma: both namespaces show" connect
for bs in 4k 128k; do
	ktap_check "fio $bs random writes verified (crc32c), null_blk" \
		fio_verify "$(nvme_dev "$NQN" 1)" "$bs" "$MB"
	ktap_check "fio $bs random writes verified (crc32c), file" \
		fio_verify "$(nvme_dev "$NQN" 2)" "$bs" "$MB"
done
# soak DEV: random writes of 4 KiB and of 128 KiB at once, two jobs of
# depth 16 each, every job in a part of its own, each block read back and
# checked after the next 64 (verify_backlog), for SOAK seconds.
soak() {
	fio --filename="$1" --direct=1 --ioengine=libaio --rw=randwrite \
		--iodepth=16 --time_based --runtime="$SOAK" --verify=crc32c \
		--verify_backlog=64 --verify_fatal=1 --verify_state_save=0 \
		--group_reporting \
		--name=small --bs=4k --numjobs=2 --size=64M --offset=0 \
		--offset_increment=64M \
		--name=large --bs=128k --numjobs=2 --size=128M --offset=256M \
		--offset_increment=128M >"$tmp/fio.log" 2>&1
	local rc=$?
	# The checks are reads: fio must have issued some ("issued rwts:
	# total=READS,WRITES,...").
	[ "$rc" -eq 0 ] &&
		grep -Eq 'issued rwts: total=[1-9][0-9]*,' "$tmp/fio.log" ||
		{ ktap_diag <"$tmp/fio.log"; return 1; }
}
ktap_check "fio ${SOAK} s: 4k and 128k random writes at once, verified as they go" \
	soak "$(nvme_dev "$NQN" 1)"
ktap_expect "nvme disconnect" "disconnected 1 controller" \
	nvme disconnect -n "$NQN"

# Fail the target's device in the middle of I/O: the host gives up after
# its ctrl-loss-tmo (3 s), the I/O ends in errors, nothing hangs.
mid_io_delete() {
	local dev pid
	connect --ctrl-loss-tmo=3 --reconnect-delay=1 || return 1
	dev=$(nvme_dev "$NQN" 1)
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
controller_gone() { ! nvme_dev "$NQN" 1 >/dev/null; }
ktap_check "... the host's controller goes after its ctrl-loss-tmo" \
	wait_for 30 controller_gone
sroce_gone() { ! rdma -d resource show 2>/dev/null | grep -q sroce_nv; }
ktap_check "... no sroce object is left" sroce_gone
ktap_finish
