#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-memcg.sh: what a process makes sroce allocate is charged to it. In a
# memory cgroup of 128 MiB, a process creates RC QPs whose send rings take
# 16 MiB each (16 Ki WRs of 32 SGEs): the cgroup's limit stops it with
# ENOMEM after a handful, where outside it the same QPs are made. The rdma
# cgroup's own limit (objects per device) stops it too.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 module:sroce py:pyverbs

cg=/sys/fs/cgroup
if [ ! -f "$cg/cgroup.controllers" ]; then
	mount -t cgroup2 none "$cg" 2>/dev/null || ktap_skip_all "no cgroup2"
fi
for c in memory rdma; do
	grep -qw "$c" "$cg/cgroup.controllers" ||
		ktap_skip_all "no $c controller"
done
echo "+memory +rdma" >"$cg/cgroup.subtree_control"

ktap_plan 4

modprobe -a sroce ib_uverbs
rdma link add sroce0 type sroce netdev eth0
box=$cg/sroce-test
mkdir -p "$box"
tmp=$(mktemp -d)
# The limit goes back to max before the cgroup goes: the rdma controller
# frees an idle pool with a limit only when the limit is lifted, and a
# cgroup removed with one left behind is freed under it, so that deleting
# the device later reads freed memory (KASAN: slab-use-after-free in
# free_cg_rpool_locked() from rdmacg_unregister_device(); any RDMA device,
# kernels without "cgroup: rdma: free idle pools during cgroup teardown").
cleanup() {
	rm -rf "$tmp"
	echo 'sroce0 hca_handle=max hca_object=max' >"$box/rdma.max" 2>/dev/null
	rmdir "$box" 2>/dev/null
	rdma link delete sroce0 2>/dev/null
}
trap cleanup EXIT

# qps.py N: make up to N RC QPs with 16 MiB send rings, say how many, and
# the errno of the one refused.
cat >"$tmp/qps.py" <<'PY'
import sys
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr

ctx = Context(name='sroce0')
pd = PD(ctx)
cq = CQ(ctx, 16)
qps, err = [], 0
for _ in range(int(sys.argv[1])):
    try:
        qps.append(QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                     cap=QPCap(max_send_wr=16384,
                                               max_send_sge=32,
                                               max_recv_wr=1))))
    except PyverbsRDMAError as x:
        err = x.error_code
        break
print(f'made {len(qps)} errno {err}')
PY
# in_box CMD...: run CMD in the test's cgroup
in_box() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$box" "$@"; }

ktap_expect "outside a memory limit: 12 QPs of 192 MiB of rings in all" \
	'^made 12 errno 0$' python3 "$tmp/qps.py" 12
echo 128M >"$box/memory.max"
ktap_expect "in a cgroup of 128 MiB: the limit refuses a QP (ENOMEM) before the 8th" \
	'^made [1-7] errno 12$' in_box python3 "$tmp/qps.py" 12
echo max >"$box/memory.max"
echo 'sroce0 hca_object=6' >"$box/rdma.max"
ktap_expect "with rdma.max hca_object=6 (a PD, a CQ, the QPs): 4 QPs, then EAGAIN or ENOMEM" \
	'^made 4 errno (11|12)$' in_box python3 "$tmp/qps.py" 12
# the rings' memory charged to the cgroup (memory.stat's vmalloc) is 0
rings_gone() { [ "$(awk '$1 == "vmalloc" { print $2 }' "$box/memory.stat")" = 0 ]; }
ktap_check "nothing of the rings left charged once the process is gone" \
	wait_for 10 rings_gone
ktap_finish
