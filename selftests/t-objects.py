#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-objects.py: verbs objects through the provider and the mmap'd rings,
with unmodified python3-pyverbs: CQs (create, resize), MRs and their keys,
QPs of every type through the state machine, SRQs, AHs; receive WQEs
posted through the ring and flushed back through the CQ ring; limits and
bad requests refused; nothing left behind."""
import sys

from ktap import Tests, sh
from roce import sroce_open

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import AH, AHAttr, GlobalRoute  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr  # noqa: E402
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr  # noqa: E402
from pyverbs.wr import SGE, RecvWR  # noqa: E402

DEV = 'sroce0'
ctx, pd, gid_index, gid = sroce_open(DEV)
live = {}


def refused(fn, *args, **kw):
    """fn(*args) must raise; return the exception."""
    try:
        obj = fn(*args, **kw)
    except Exception as ex:
        return ex
    obj.close()
    raise AssertionError(f'{fn.__name__}{args} was accepted')


def rc_qp(cq, srq=None, cap=None, qpt=e.IBV_QPT_RC):
    cap = cap or QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=4,
                       max_recv_sge=4, max_inline_data=128)
    return QP(pd, QPInitAttr(qp_type=qpt, scq=cq, rcq=cq, srq=srq, cap=cap))


def to_rts(qp, qpt=e.IBV_QPT_RC):
    a = QPAttr()
    a.qp_state = e.IBV_QPS_INIT
    a.pkey_index = 0
    a.port_num = 1
    if qpt == e.IBV_QPT_UD:
        a.qkey = 0x11111111
        mask = e.IBV_QP_QKEY
    else:
        a.qp_access_flags = (e.IBV_ACCESS_REMOTE_WRITE |
                             e.IBV_ACCESS_REMOTE_READ)
        mask = e.IBV_QP_ACCESS_FLAGS
    qp.modify(a, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | mask)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTR
    mask = e.IBV_QP_STATE
    if qpt != e.IBV_QPT_UD:
        a.path_mtu = e.IBV_MTU_1024
        a.dest_qp_num = 0x123456
        a.rq_psn = 0x1000
        a.ah_attr = AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gid_index),
                           is_global=1, port_num=1)
        mask |= (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                 e.IBV_QP_RQ_PSN)
        if qpt == e.IBV_QPT_RC:
            a.max_dest_rd_atomic = 4
            a.min_rnr_timer = 12
            mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    qp.modify(a, mask)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTS
    a.sq_psn = 0x2000
    mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
    if qpt == e.IBV_QPT_RC:
        a.timeout = 14
        a.retry_cnt = 7
        a.rnr_retry = 7
        a.max_rd_atomic = 4
        mask |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                 e.IBV_QP_MAX_QP_RD_ATOMIC)
    qp.modify(a, mask)


def count(kind):
    """User objects of @kind on our device, as `rdma resource` lists them
    (kernel ones, like the MAD layer's QP1, show their owner in [])."""
    out = sh(f'rdma resource show {kind}')
    return len([line for line in out.splitlines()
                if (f' {DEV} ' in line or f' {DEV}/' in line) and
                'comm [' not in line])


@t.case('CQ: 100 entries asked, at least 100 granted; 0 refused')
def _():
    cq = CQ(ctx, 100)
    assert cq.cqe >= 100, cq.cqe
    live['cq'] = cq
    refused(CQ, ctx, 0)
    refused(CQ, ctx, 1 << 20)


@t.case('CQ: max_cqe entries granted, one more refused')
def _():
    most = ctx.query_device().max_cqe
    # libfabric's ofi_rxm asks for 262,144 at its defaults
    assert most >= 262144, most
    cq = CQ(ctx, most)
    assert cq.cqe >= most, (cq.cqe, most)
    cq.close()
    refused(CQ, ctx, most + 1)


@t.case('CQ: resize to 1000, then poll an empty ring')
def _():
    live['cq'].resize(1000)
    assert live['cq'].cqe >= 1000, live['cq'].cqe
    n, wcs = live['cq'].poll(4)
    assert n == 0, n


@t.case('MR: register 1 MiB, lkey == rkey, keys differ per MR')
def _():
    acc = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
           e.IBV_ACCESS_REMOTE_READ)
    a = MR(pd, 1 << 20, acc)
    b = MR(pd, 4096, acc)
    assert a.lkey == a.rkey and b.lkey == b.rkey, (a.lkey, a.rkey)
    assert a.lkey != b.lkey
    assert count('mr') == 2, count('mr')
    b.close()
    live['mr'] = a


@t.case('MR: remote write without local write is refused')
def _():
    refused(MR, pd, 4096, e.IBV_ACCESS_REMOTE_WRITE)


@t.case('RC QP: created with the caps asked for, QPN >= 16')
def _():
    qp = rc_qp(live['cq'])
    attr, init = qp.query(e.IBV_QP_CAP)
    c = init.cap
    assert c.max_send_wr >= 64 and c.max_recv_wr >= 64, (c.max_send_wr,
                                                         c.max_recv_wr)
    assert c.max_send_sge >= 4 and c.max_recv_sge >= 4
    assert c.max_inline_data >= 128, c.max_inline_data
    assert qp.qp_num >= 16, qp.qp_num
    live['rc'] = qp


@t.case('RC QP: RESET -> RTS is refused (EINVAL)')
def _():
    a = QPAttr()
    a.qp_state = e.IBV_QPS_RTS
    try:
        live['rc'].modify(a, e.IBV_QP_STATE)
    except Exception as ex:
        assert 'Invalid argument' in str(ex) or 'errno: 22' in str(ex), ex
        return
    raise AssertionError('accepted')


@t.case('RC QP: INIT -> RTR -> RTS; query returns what was set')
def _():
    qp = live['rc']
    to_rts(qp)
    attr, _ = qp.query(0x1fffff)
    assert attr.qp_state == e.IBV_QPS_RTS, attr.qp_state
    assert attr.path_mtu == e.IBV_MTU_1024, attr.path_mtu
    assert attr.dest_qp_num == 0x123456, hex(attr.dest_qp_num)
    assert attr.rq_psn == 0x1000 and attr.sq_psn == 0x2000, (attr.rq_psn,
                                                            attr.sq_psn)
    assert (attr.timeout, attr.retry_cnt, attr.rnr_retry) == (14, 7, 7)
    assert attr.max_rd_atomic == 4 and attr.max_dest_rd_atomic == 4
    assert attr.min_rnr_timer == 12, attr.min_rnr_timer
    assert str(attr.ah_attr.dgid) == str(gid), (attr.ah_attr.dgid, gid)


@t.case('RC QP: too many SGEs or too much inline data is refused')
def _():
    refused(rc_qp, live['cq'], cap=QPCap(max_send_sge=64))
    refused(rc_qp, live['cq'], cap=QPCap(max_inline_data=4096))
    refused(rc_qp, live['cq'], cap=QPCap(max_send_wr=1 << 20))


@t.case('UC and UD QPs reach RTS')
def _():
    for qpt in (e.IBV_QPT_UC, e.IBV_QPT_UD):
        qp = rc_qp(live['cq'], qpt=qpt)
        to_rts(qp, qpt)
        attr, _ = qp.query(e.IBV_QP_STATE)
        assert attr.qp_state == e.IBV_QPS_RTS, (qpt, attr.qp_state)
        qp.close()


@t.case('receive WQEs go through the ring and flush back through the CQ')
def _():
    qp = rc_qp(live['cq'])
    to_rts(qp)
    mr = live['mr']
    for i in range(3):
        qp.post_recv(RecvWR(wr_id=0x1000 + i, num_sge=1,
                            sg=[SGE(mr.buf + 64 * i, 64, mr.lkey)]))
    a = QPAttr()
    a.qp_state = e.IBV_QPS_ERR
    qp.modify(a, e.IBV_QP_STATE)
    n, wcs = live['cq'].poll(8)
    assert n == 3, n
    for i, wc in enumerate(wcs):
        assert wc.wr_id == 0x1000 + i, hex(wc.wr_id)
        assert wc.status == e.IBV_WC_WR_FLUSH_ERR, wc.status
        assert wc.qp_num == qp.qp_num, wc.qp_num
    qp.close()


@t.case('SRQ: create, query, arm the limit, a QP on it')
def _():
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=100, max_sge=2)))
    attr = srq.query()
    assert attr.max_wr >= 100 and attr.max_sge >= 2, (attr.max_wr,
                                                      attr.max_sge)
    a = SrqAttr(srq_limit=10)
    srq.modify(a, e.IBV_SRQ_LIMIT)
    assert srq.query().srq_limit == 10
    qp = rc_qp(live['cq'], srq=srq)
    to_rts(qp)
    qp.close()
    srq.close()


@t.case('AH: create for the device\'s own IPv4 GID, destroy')
def _():
    ah = AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gid_index),
                            is_global=1, port_num=1))
    ah.close()


@t.case('everything destroyed: no QP, CQ, MR left; device deletes')
def _():
    live['rc'].close()
    live['mr'].close()
    live['cq'].close()
    for kind in ('qp', 'cq', 'mr', 'srq'):
        assert count(kind) == 0, sh(f'rdma resource show {kind}')
    pd.close()
    ctx.close()
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
