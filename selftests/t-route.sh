#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-route.sh: a device's packets leave only through its own netdev, and
# only to one peer at a time. h1 has a second interface, sdummy0, with the
# routes to 10.99.0.0/24 and fd99::/64 (and neighbour entries for
# 10.99.0.2 and fd99::2 on veth1, so that the RDMA core resolves them
# there, as it resolves every address on the GID's own netdev):
#   - UD datagrams from sroce_h1 to 10.99.0.2 leave through veth1, not
#     through sdummy0 as the routing table would have it;
#   - UD datagrams to fd99::2 do not leave through sdummy0 (IPv6 has no
#     route through veth1 to it, so they are not sent);
#   - an address handle for the subnet's broadcast address is refused
#     (EINVAL), and h2's device sees nothing;
#   - an RC or UC QP whose destination is a multicast or broadcast
#     address is refused at RTR with EINVAL.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 module:sroce module:veth module:dummy \
	py:pyverbs

ktap_plan 7

hosts_create 2
sroce_add 1
sroce_add 2
trap 'hosts_cleanup' EXIT
mac2=$(host_exec 2 cat /sys/class/net/veth2/address)
# sdummy0 has no IPv6 address, so it sends nothing of its own (no router
# solicitations, no MLD reports): its counter counts what is routed to it.
host_exec 1 ip link add sdummy0 type dummy
host_exec 1 ip link set sdummy0 addrgenmode none
host_exec 1 ip addr add 10.99.0.1/24 dev sdummy0
host_exec 1 ip link set sdummy0 up
host_exec 1 ip -6 route add fd99::/64 dev sdummy0
host_exec 1 ip neigh replace 10.99.0.2 lladdr "$mac2" dev veth1 nud permanent
host_exec 1 ip neigh replace fd99::2 lladdr "$mac2" dev veth1 nud permanent

# The verbs, from one process on sroce_h1 (devices are seen from every
# namespace): ud DST N sends N datagrams to DST; rtr TYPE DST moves a
# QP of TYPE (rc, uc) to RTR towards DST, printing the errno. DST is an
# IPv4 address (from 10.77.0.1) or an IPv6 one (from fd77::1).
verbs() {
	python3 - "$here" "$@" <<'PY'
import ipaddress
import sys
sys.path.insert(0, sys.argv[1])
import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr  # noqa: E402
from pyverbs.wr import SGE, SendWR  # noqa: E402
import roce  # noqa: E402

what, dst = sys.argv[2:4]
ctx = Context(name='sroce_h1')
pd = PD(ctx)
cq = CQ(ctx, 64)
v6 = ':' in dst
me = ipaddress.IPv6Address('fd77::1' if v6 else '::ffff:10.77.0.1')
sgidx = next(i for i in range(16)
             if ipaddress.IPv6Address(str(ctx.query_gid(1, i))) == me)
peer = ipaddress.IPv6Address(dst if v6 else '::ffff:' + dst)
gr = GlobalRoute(dgid=GID(peer.exploded), sgid_index=sgidx)
if what == 'ud':
    qp = roce.ud_qp(pd, cq, 0x11)
    try:
        ah = AH(pd, attr=AHAttr(gr=gr, is_global=1, port_num=1))
    except PyverbsRDMAError as err:
        print(f'errno {err.error_code}')
        sys.exit(0)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    for i in range(int(sys.argv[4])):
        wr = SendWR(num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, 0x123, 0x11)
        qp.post_send(wr)
        roce.poll_cq(cq, 1)
    print('sent')
else:
    rc = what == 'rc'
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC if rc else e.IBV_QPT_UC,
                           scq=cq, rcq=cq, cap=QPCap()))
    a = QPAttr()
    a.qp_state = e.IBV_QPS_INIT
    a.pkey_index = 0
    a.port_num = 1
    a.qp_access_flags = 0
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTR
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = 0x123
    a.rq_psn = 0
    a.ah_attr = AHAttr(gr=gr, is_global=1, port_num=1)
    mask = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
            e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN)
    if rc:
        a.max_dest_rd_atomic = 1
        a.min_rnr_timer = 1
        mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    try:
        qp.modify(a, mask)
        print('errno 0')
    except PyverbsRDMAError as err:
        print(f'errno {err.error_code}')
PY
}

link_tx() {	# HOST IFACE: transmitted packets
	host_exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"
}

ud_pinned() {
	local d0 v0 d1 v1
	d0=$(link_tx 1 sdummy0)
	v0=$(link_tx 1 veth1)
	verbs ud 10.99.0.2 20 || return 1
	d1=$(link_tx 1 sdummy0)
	v1=$(link_tx 1 veth1)
	echo "# sdummy0 sent $((d1 - d0)), veth1 $((v1 - v0))"
	[ "$d1" = "$d0" ] && [ "$((v1 - v0))" -ge 20 ]
}
ktap_check "UD to an address routed through another interface: leaves by veth1 only" \
	ud_pinned

ud6_pinned() {
	local d0 d1
	d0=$(link_tx 1 sdummy0)
	verbs ud fd99::2 20 || return 1
	d1=$(link_tx 1 sdummy0)
	echo "# sdummy0 sent $((d1 - d0))"
	[ "$d1" = "$d0" ]
}
ktap_check "UD to an IPv6 address routed through another interface: nothing by sdummy0" \
	ud6_pinned

h2_total() {	# every packet sroce_h2 counted, received or dropped
	rdma statistic show link sroce_h2/1 |
		awk '{ for (i = 3; i < NF; i += 2) if ($i ~ /^rx_/) s += $(i + 1) } END { print s + 0 }'
}
ud_broadcast() {
	local r0 r1 out
	r0=$(h2_total)
	out=$(verbs ud 10.77.0.255 10 2>&1)
	echo "$out" | ktap_diag
	[ "$out" = "errno 22" ] || return 1	# the AH itself is refused
	sleep 0.5
	r1=$(h2_total)
	echo "# sroce_h2 counted $((r1 - r0)) packets"
	[ "$r1" = "$r0" ]
}
ktap_check "UD to the subnet's broadcast address: the AH is refused (EINVAL), nothing reaches h2" \
	ud_broadcast

ktap_expect "RC to a multicast address: RTR refused (EINVAL)" '^errno 22$' \
	verbs rc 224.0.0.251
ktap_expect "UC to a multicast address: RTR refused (EINVAL)" '^errno 22$' \
	verbs uc 239.1.2.3
ktap_expect "RC to the subnet's broadcast address: RTR refused (EINVAL)" \
	'^errno 22$' verbs rc 10.77.0.255
ktap_expect "RC to a unicast address: RTR accepted" '^errno 0$' \
	verbs rc 10.77.0.2
ktap_finish
