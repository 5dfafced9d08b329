#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-caps.py: every device_cap_flags bit sroce reports holds, checked by
what it promises (SRQ resize among them), no bit is reported without such
a check, and ibv_create_srq_ex makes basic SRQs. Unmodified pyverbs, one
device on a veth of its own, loopback."""
import errno
import select
import sys

from ktap import Tests, sh
from roce import (async_fd, close_all, poll_cq, rc_qp, rc_rtr, rc_rts,
                  sroce_open, wait_gids)

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR, MW, MWBindInfo  # noqa: E402
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: E402
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr, SrqInitAttrEx  # noqa: E402
from pyverbs.wr import SGE, RecvWR, SendWR  # noqa: E402

DEV = 'sroce_cap'
sh('ip link add cap0 type veth peer name cap1; '
   'ip addr add 10.99.0.1/24 dev cap0; '
   'ip link set cap0 up; ip link set cap1 up')
ctx, pd, gidx, gid = sroce_open(DEV, 'cap0')
cq = CQ(ctx, 64)
ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ)
mr = MR(pd, 1 << 16, ACC | e.IBV_ACCESS_MW_BIND)
attr = ctx.query_device()
flags = attr.device_cap_flags
objs = []

# Each bit sroce reports: its name and the check of its promise.
CHECKS = {}


def check(bit, name):
    def add(fn):
        CHECKS[bit] = (name, fn)
        return fn
    return add


def pair(rnr_retry=3):
    a, b = rc_qp(pd, cq, ACC), rc_qp(pd, cq, ACC)
    objs.extend((a, b))
    for x, y in ((a, b), (b, a)):
        rc_rtr(x, y.qp_num, gid, gidx)
        rc_rts(x, retry=rnr_retry)
    return a, b


@check(e.IBV_DEVICE_RC_RNR_NAK_GEN, 'RC_RNR_NAK_GEN')
def _():
    """A SEND to a QP with no receive posted is RNR-NAKed: with rnr_retry
    0 the requester ends with IBV_WC_RNR_RETRY_EXC_ERR."""
    a, b = pair(rnr_retry=0)
    a.post_send(SendWR(wr_id=1, num_sge=1, sg=[SGE(mr.buf, 8, mr.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED))
    w, = poll_cq(cq, 1)
    assert w.status == e.IBV_WC_RNR_RETRY_EXC_ERR, w.status


def async_events(want, timeout=10.0):
    fd = async_fd()
    got = []
    while len(got) < len(want):
        if not select.select([fd], [], [], timeout)[0]:
            break
        ev = ctx.get_async_event()
        if ev.event_type in (e.IBV_EVENT_PORT_ACTIVE, e.IBV_EVENT_PORT_ERR):
            got.append(ev.event_type)
        ev.ack()
    assert got == want, (got, want)


@check(e.IBV_DEVICE_PORT_ACTIVE_EVENT, 'PORT_ACTIVE_EVENT')
def _():
    """The port reports IBV_EVENT_PORT_ACTIVE when its link comes back."""
    sh('ip link set cap0 down')
    async_events([e.IBV_EVENT_PORT_ERR])
    sh('ip link set cap0 up')
    async_events([e.IBV_EVENT_PORT_ACTIVE])
    wait_gids(DEV, 'cap0')


@check(e.IBV_DEVICE_SYS_IMAGE_GUID, 'SYS_IMAGE_GUID')
def _():
    """sys_image_guid is set: the node GUID (one device, one system)."""
    assert attr.sys_image_guid and attr.sys_image_guid == attr.node_guid, \
        (attr.sys_image_guid, attr.node_guid)


def bind2(qp, mw, length=4096):
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_BIND_MW,
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_bind_wr(mw, MWBindInfo(mr, mr.buf, length,
                                  e.IBV_ACCESS_REMOTE_WRITE))
    qp.post_send(wr)
    w, = poll_cq(cq, 1)
    assert w.status == e.IBV_WC_SUCCESS, w.status
    return wr.rkey


def write(qp, rkey):
    wr = SendWR(wr_id=3, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf + 8192, 64, mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, mr.buf)
    qp.post_send(wr)
    w, = poll_cq(cq, 1)
    return w.status


@check(e.IBV_DEVICE_MEM_WINDOW, 'MEM_WINDOW')
def _():
    """Memory windows: one bound with ibv_bind_mw opens its range."""
    from pyverbs.mr import MWBind
    mw = MW(pd, e.IBV_MW_TYPE_1)
    objs.insert(0, mw)
    a, b = pair()
    a.bind_mw(mw, MWBind(MWBindInfo(mr, mr.buf, 4096,
                                    e.IBV_ACCESS_REMOTE_WRITE),
                         e.IBV_SEND_SIGNALED))
    w, = poll_cq(cq, 1)
    assert w.status == e.IBV_WC_SUCCESS, w.status
    assert write(b, mw.rkey) == e.IBV_WC_SUCCESS


@check(e.IBV_DEVICE_MEM_WINDOW_TYPE_2B, 'MEM_WINDOW_TYPE_2B')
def _():
    """Type 2B windows: bound by a work request to its QP, and only that
    QP's peer reaches it."""
    mw = MW(pd, e.IBV_MW_TYPE_2)
    objs.insert(0, mw)
    a, b = pair()
    rkey = bind2(a, mw)
    assert write(b, rkey) == e.IBV_WC_SUCCESS
    c, d = pair()
    assert write(d, rkey) == e.IBV_WC_REM_ACCESS_ERR


@check(e.IBV_DEVICE_MEM_MGT_EXTENSIONS, 'MEM_MGT_EXTENSIONS')
def _():
    """Local and remote invalidation (user space: of type 2 windows; the
    kernel's fast registration is t-frmr.sh's)."""
    mw = MW(pd, e.IBV_MW_TYPE_2)
    objs.insert(0, mw)
    a, b = pair()
    rkey = bind2(a, mw)
    inv = SendWR(wr_id=4, opcode=e.IBV_WR_LOCAL_INV,
                 send_flags=e.IBV_SEND_SIGNALED)
    inv.imm_data = rkey
    a.post_send(inv)
    w, = poll_cq(cq, 1)
    assert w.status == e.IBV_WC_SUCCESS and \
        w.opcode == e.IBV_WC_LOCAL_INV, (w.status, w.opcode)
    assert write(b, rkey) == e.IBV_WC_REM_ACCESS_ERR
    a, b = pair()
    rkey = bind2(a, mw)
    a.post_recv(RecvWR(wr_id=5, num_sge=1,
                       sg=[SGE(mr.buf + 16384, 64, mr.lkey)]))
    b.post_send(SendWR(wr_id=6, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                       imm_data=rkey, sg=[SGE(mr.buf, 64, mr.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED))
    got = {w.wr_id: w for w in poll_cq(cq, 2)}
    assert got[5].status == e.IBV_WC_SUCCESS and \
        got[5].wc_flags & e.IBV_WC_WITH_INV, (got[5].status,
                                              got[5].wc_flags)
    assert write(b, rkey) == e.IBV_WC_REM_ACCESS_ERR


@check(e.IBV_DEVICE_SRQ_RESIZE, 'SRQ_RESIZE')
def _():
    """ibv_modify_srq(IBV_SRQ_MAX_WR) grows an SRQ that holds receives;
    those and the ones posted after all complete, in order. It cannot
    shrink below the receives not yet taken, and shrinks to fit."""
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    objs.append(srq)

    def recv(i):
        srq.post_recv(RecvWR(wr_id=100 + i, num_sge=1,
                             sg=[SGE(mr.buf + 16384 + 64 * i, 64,
                                     mr.lkey)]))
    for i in range(12):
        recv(i)
    srq.modify(SrqAttr(max_wr=64), e.IBV_SRQ_MAX_WR)
    assert srq.query().max_wr >= 64, srq.query().max_wr
    for i in range(12, 40):
        recv(i)
    try:
        srq.modify(SrqAttr(max_wr=32), e.IBV_SRQ_MAX_WR)
        raise AssertionError('shrunk below the 40 receives it holds')
    except PyverbsRDMAError:
        pass
    a, b = rc_qp(pd, cq, ACC, depth=32), rc_qp(pd, cq, ACC, srq=srq)
    objs.extend((a, b))
    for x, y in ((a, b), (b, a)):
        rc_rtr(x, y.qp_num, gid, gidx)
        rc_rts(x)
    got = []
    for batch in range(2):
        for i in range(20):
            a.post_send(SendWR(wr_id=i, num_sge=1,
                               sg=[SGE(mr.buf, 8, mr.lkey)],
                               send_flags=e.IBV_SEND_SIGNALED))
        for w in poll_cq(cq, 40):
            assert w.status == e.IBV_WC_SUCCESS, (w.wr_id, w.status)
            if w.opcode & e.IBV_WC_RECV:
                got.append(w.wr_id)
    assert got == list(range(100, 140)), got
    srq.modify(SrqAttr(max_wr=16), e.IBV_SRQ_MAX_WR)
    assert srq.query().max_wr == 16, srq.query().max_wr
    for i in range(16):
        recv(i)
    try:
        recv(16)
        raise AssertionError('a 17th receive fit in 16')
    except PyverbsRDMAError:
        pass


@t.case('every reported device_cap_flags bit has its check')
def _():
    unknown = flags & ~sum(CHECKS)
    assert not unknown, f'reported without a check: {unknown:#x}'


for bit, (name, fn) in CHECKS.items():
    def run(bit=bit, fn=fn):
        if not flags & bit:
            raise AssertionError(f'{bit:#x} not reported, though it holds')
        fn()
    t.case(f'{name}: {fn.__doc__.split(chr(10))[0]}')(run)


@t.case('ibv_create_srq_ex: a basic SRQ takes receives; XRC: EOPNOTSUPP')
def _():
    ia = SrqInitAttrEx(max_wr=8, max_sge=1)
    ia.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD
    ia.srq_type = e.IBV_SRQT_BASIC
    ia.pd = pd
    srq = SRQ(ctx, ia)
    objs.append(srq)
    srq.post_recv(RecvWR(wr_id=1, num_sge=1,
                         sg=[SGE(mr.buf, 64, mr.lkey)]))
    assert srq.query().max_wr >= 8
    ia = SrqInitAttrEx(max_wr=8, max_sge=1)
    ia.comp_mask = (e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD |
                    e.IBV_SRQ_INIT_ATTR_CQ)
    ia.srq_type = e.IBV_SRQT_XRC
    ia.pd = pd
    ia.cq = cq
    try:
        objs.append(SRQ(ctx, ia))
        raise AssertionError('an XRC SRQ was created')
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EOPNOTSUPP, ex.error_code


@t.case('everything destroyed cleanly')
def _():
    close_all(objs, mr, cq, pd, ctx)
    sh(f'rdma link delete {DEV}; ip link del cap0')


sys.exit(t.run())
