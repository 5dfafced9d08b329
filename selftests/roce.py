# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""roce.py: small verbs helpers shared by the Python selftests."""
import ipaddress
import json
import os
import subprocess
import time


def ipv4_gid(ctx, port=1):
    """The index and GID of the port's first RoCE v2 IPv4-mapped GID."""
    for i in range(16):
        gid = ctx.query_gid(port, i)
        if ipaddress.IPv6Address(str(gid)).ipv4_mapped:
            return i, gid
    raise LookupError('no IPv4 GID on the port')


def sroce_open(dev='sroce0', netdev='eth0'):
    """Add the sroce device @dev on @netdev, wait until its GID table is
    filled and open it: (context, PD, index and GID of its IPv4 GID)."""
    from pyverbs.device import Context
    from pyverbs.pd import PD
    subprocess.run(['rdma', 'link', 'add', dev, 'type', 'sroce', 'netdev',
                    netdev], check=True)
    wait_gids(dev, netdev)
    ctx = Context(name=dev)
    pd = PD(ctx)
    gidx, gid = ipv4_gid(ctx)
    return ctx, pd, gidx, gid


def close_all(objs, *rest):
    """Close @objs newest first, then @rest in the order given."""
    for o in reversed(objs):
        o.close()
    for o in rest:
        o.close()


def async_fd():
    """The verbs context's async event file (pyverbs does not expose
    it): the process must have one context open."""
    for fd in os.listdir('/proc/self/fd'):
        try:
            if os.readlink(f'/proc/self/fd/{fd}') == \
                    'anon_inode:[infinibandevent]':
                return int(fd)
        except OSError:
            pass
    raise LookupError('no async event fd')


def wait_gids(dev, netdev, port=1, timeout=10.0):
    """Wait until the RDMA core has put every address of @netdev into
    @dev's GID table.  It fills the table from a work item after the
    device registers, each entry raising IBV_EVENT_GID_CHANGE; a test that
    counts async events must start after that."""
    out = subprocess.run(['ip', '-j', 'addr', 'show', 'dev', netdev],
                         check=True, capture_output=True, text=True).stdout
    want = set()
    for a in json.loads(out)[0].get('addr_info', []):
        if a.get('tentative'):
            continue
        ip = ipaddress.ip_address(a['local'])
        if ip.version == 4:
            ip = ipaddress.IPv6Address('::ffff:' + str(ip))
        want.add(ip)
    path = f'/sys/class/infiniband/{dev}/ports/{port}/gids'
    end = time.monotonic() + timeout
    while True:
        have = set()
        for n in os.listdir(path):
            try:
                with open(f'{path}/{n}') as f:
                    have.add(ipaddress.IPv6Address(f.read().strip()))
            except OSError:	# an empty entry reads as EINVAL
                pass
        if want <= have:
            return
        assert time.monotonic() < end, \
            f'GIDs {sorted(map(str, want - have))} never appeared'
        time.sleep(0.05)


def rc_qp(pd, cq, access, depth=16, srq=None, sig_all=1):
    """An RC QP on @cq (and @srq) in INIT, with @access for its peer;
    every send WR completes unless @sig_all is 0 (pyverbs' default is 1)."""
    import pyverbs.enums as e
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                           cap=QPCap(max_send_wr=depth, max_recv_wr=depth),
                           sq_sig_all=sig_all))
    a = QPAttr()
    a.qp_state = e.IBV_QPS_INIT
    a.pkey_index = 0
    a.port_num = 1
    a.qp_access_flags = access
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)
    return qp


def rc_rtr(qp, dest_qpn, gid, gidx, rq_psn=0):
    """Move @qp to RTR towards QP @dest_qpn at @gid, expecting @rq_psn."""
    import pyverbs.enums as e
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.qp import QPAttr
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTR
    a.path_mtu = e.IBV_MTU_1024
    a.dest_qp_num = dest_qpn
    a.rq_psn = rq_psn
    a.max_dest_rd_atomic = 4
    a.min_rnr_timer = 1
    a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gidx),
                       is_global=1, port_num=1)
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
              e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
              e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)


def rc_rts(qp, sq_psn=0, timeout=12, retry=3):
    """Move @qp from RTR to RTS, sending from @sq_psn, with local ACK
    timeout @timeout and @retry as retry_cnt and rnr_retry."""
    import pyverbs.enums as e
    from pyverbs.qp import QPAttr
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTS
    a.sq_psn = sq_psn
    a.timeout = timeout
    a.retry_cnt = retry
    a.rnr_retry = retry
    a.max_rd_atomic = 4
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
              e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
              e.IBV_QP_MAX_QP_RD_ATOMIC)


def rc_connect(qp, dest_qpn, gid, gidx):
    """Move @qp to RTS towards QP @dest_qpn at @gid, PSNs 0."""
    rc_rtr(qp, dest_qpn, gid, gidx)
    rc_rts(qp)


def ud_qp(pd, cq, qkey, srq=None, sig_all=False):
    """A UD QP on @cq (and @srq) in RTS, with @qkey."""
    import pyverbs.enums as e
    from pyverbs.qp import QP, QPCap, QPInitAttr
    cap = QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=4,
                max_recv_sge=4, max_inline_data=256)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, srq=srq,
                           cap=cap, sq_sig_all=sig_all))
    ud_to_rts(qp, qkey)
    return qp


def ud_to_rts(qp, qkey):
    """Move a UD QP from RESET to RTS, with @qkey."""
    import pyverbs.enums as e
    from pyverbs.qp import QPAttr
    a = QPAttr()
    a.qkey = qkey
    a.pkey_index = 0
    a.port_num = 1
    a.qp_state = e.IBV_QPS_INIT
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_QKEY)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTR
    qp.modify(a, e.IBV_QP_STATE)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTS
    a.sq_psn = 0
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)


def poll_cq(cq, n, tries=200000):
    """Exactly @n completions from @cq (fails after @tries empty polls)."""
    wcs = []
    while len(wcs) < n and tries:
        got, w = cq.poll(n - len(wcs))
        wcs += w[:got]
        tries -= 1
    assert len(wcs) == n, f'{len(wcs)} of {n} completions'
    return wcs
