#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-rc-events.py: the asynchronous events of RC QPs and SRQs, and MR
re-registration, through
unmodified pyverbs on one device (loopback): the SRQ limit event fires once
when the SRQ drops below its limit and disarms it; a QP on an SRQ that
enters the error state reports the last WQE reached; a responder that
refuses a request reports an access error (bad rkey) or an invalid request
(misaligned atomic) while the requester's WR completes with the matching
status and no event; moving a QP to error by hand raises nothing else;
a SEND with invalidate of a user MR's rkey is an invalid request;
ibv_rereg_mr of the rights, the translation or the PD keeps the keys, which
then open what the call set."""
import ctypes
import mmap
import select
import sys

from ktap import Tests, sh
from roce import (async_fd, close_all, poll_cq, rc_connect, rc_qp,
                  sroce_open, wait_gids)

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.qp import QPAttr  # noqa: E402
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr  # noqa: E402
from pyverbs.wr import SGE, RecvWR, SendWR  # noqa: E402

DEV = 'sroce0'
ctx, pd, gidx, gid = sroce_open(DEV)
ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
cq = CQ(ctx, 256)
mr = MR(pd, 1 << 16, ACC)
objs = []
bufs = []


AFD = async_fd()
# The GID table fills after the device registers: wait for it, then drop
# the GID_CHANGE events it raised, so that the cases count only their own.
wait_gids(DEV, 'eth0')
while select.select([AFD], [], [], 0.2)[0]:
    ev = ctx.get_async_event()
    assert ev.event_type == e.IBV_EVENT_GID_CHANGE, ev.event_type
    ev.ack()


def expect_events(want, timeout=5.0):
    """Exactly the events in @want arrive (in any order), then no more."""
    got = []
    while True:
        wait = timeout if len(got) < len(want) else 0.5
        if not select.select([AFD], [], [], wait)[0]:
            break
        ev = ctx.get_async_event()
        got.append(ev.event_type)
        ev.ack()
    assert sorted(got) == sorted(want), f'events {got}, wanted {want}'


def pair(srq=None):
    a, b = rc_qp(pd, cq, ACC, srq=None), rc_qp(pd, cq, ACC, srq=srq)
    objs.extend((a, b))
    rc_connect(a, b.qp_num, gid, gidx)
    rc_connect(b, a.qp_num, gid, gidx)
    return a, b


def poll(n):
    return poll_cq(cq, n)


def to_err(qp):
    a = QPAttr()
    a.qp_state = e.IBV_QPS_ERR
    qp.modify(a, e.IBV_QP_STATE)


def send(qp, wr_id):
    qp.post_send(SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf, 64, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))


@t.case('SRQ limit: one event when it drops below the limit, then disarmed')
def _():
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    objs.append(srq)
    for i in range(8):
        srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                             sg=[SGE(mr.buf + 4096, 1024, mr.lkey)]))
    srq.modify(SrqAttr(srq_limit=4), e.IBV_SRQ_LIMIT)
    a, b = pair(srq)
    for i in range(4):	# 8 -> 4: not below the limit yet
        send(a, i)
        poll(2)
    expect_events([])
    assert srq.query().srq_limit == 4
    send(a, 4)		# 4 -> 3
    poll(2)
    expect_events([e.IBV_EVENT_SRQ_LIMIT_REACHED])
    assert srq.query().srq_limit == 0, 'the limit did not disarm'
    send(a, 5)		# 3 -> 2: disarmed, no second event
    poll(2)
    expect_events([])
    # A QP on an SRQ moved to error: the last WQE reached, nothing else.
    to_err(b)
    expect_events([e.IBV_EVENT_QP_LAST_WQE_REACHED])
    to_err(a)
    poll(0)
    expect_events([])


@t.case('bad rkey: requester REM_ACCESS_ERR, responder QP_ACCESS_ERR')
def _():
    a, b = pair()
    wr = SendWR(wr_id=7, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, 64, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(mr.rkey ^ 0x100, mr.buf)
    a.post_send(wr)
    w, = poll(1)
    assert w.wr_id == 7 and w.status == e.IBV_WC_REM_ACCESS_ERR, w.status
    expect_events([e.IBV_EVENT_QP_ACCESS_ERR])
    assert b.query(e.IBV_QP_STATE)[0].qp_state == e.IBV_QPS_ERR
    assert a.query(e.IBV_QP_STATE)[0].qp_state == e.IBV_QPS_ERR


@t.case('misaligned atomic: requester REM_INV_REQ_ERR, responder QP_REQ_ERR')
def _():
    a, b = pair()
    wr = SendWR(wr_id=8, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                sg=[SGE(mr.buf, 8, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_atomic(mr.rkey, mr.buf + 4, 1, 0)
    a.post_send(wr)
    w, = poll(1)
    assert w.wr_id == 8 and w.status == e.IBV_WC_REM_INV_REQ_ERR, w.status
    expect_events([e.IBV_EVENT_QP_REQ_ERR])


@t.case('SEND with invalidate of a user MR\'s rkey: REM_INV_REQ_ERR at both '
        'ends, responder QP_REQ_ERR, the MR still open')
def _():
    m = MR(pd, 4096, ACC)
    objs.insert(0, m)
    a, b = pair()
    b.post_recv(RecvWR(wr_id=10, num_sge=1,
                       sg=[SGE(mr.buf + 8192, 64, mr.lkey)]))
    a.post_send(SendWR(wr_id=11, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                       imm_data=m.rkey, sg=[SGE(mr.buf, 64, mr.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED))
    got = {w.wr_id: w for w in poll(2)}
    # IBTA 10.6.6: only fast-registration MRs and type 2 windows can be
    # invalidated remotely.
    assert got[10].status == e.IBV_WC_REM_INV_REQ_ERR, got[10].status
    assert got[11].status == e.IBV_WC_REM_INV_REQ_ERR, got[11].status
    expect_events([e.IBV_EVENT_QP_REQ_ERR])
    a, b = pair()
    wr = SendWR(wr_id=12, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, 64, mr.lkey)], send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(m.rkey, m.buf)
    a.post_send(wr)
    w, = poll(1)
    assert w.status == e.IBV_WC_SUCCESS, w.status


def write_via(qp, rkey, addr, data, want, events, lmr=None):
    """An RDMA WRITE of @data from @qp to @addr through @rkey."""
    lmr = lmr or mr
    lmr.write(data, len(data))
    wr = SendWR(wr_id=9, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(lmr.buf, len(data), lmr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, addr)
    qp.post_send(wr)
    w, = poll_cq(lcq if lmr is not mr else cq, 1)
    assert w.status == want, (w.status, want)
    expect_events(events)


lcq = None
DATA = bytes(range(256)) * 4


@t.case('ibv_rereg_mr of the rights keeps the keys, which get the new rights')
def _():
    m = MR(pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
    objs.insert(0, m)
    keys = (m.lkey, m.rkey)
    a, b = pair()
    write_via(a, m.rkey, m.buf + 100, DATA, e.IBV_WC_REM_ACCESS_ERR,
              [e.IBV_EVENT_QP_ACCESS_ERR])
    # As ConnectX and rxe: the keys stay, so a peer that has them goes on.
    m.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, ACC)
    assert (m.lkey, m.rkey) == keys, f'keys {keys} became {m.lkey, m.rkey}'
    a, b = pair()
    write_via(a, m.rkey, m.buf + 100, DATA, e.IBV_WC_SUCCESS, [])
    assert m.read(len(DATA), 100) == DATA, 'WRITE through the key lost'
    m.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, pd, 0, 0, e.IBV_ACCESS_LOCAL_WRITE)
    write_via(a, m.rkey, m.buf + 100, DATA, e.IBV_WC_REM_ACCESS_ERR,
              [e.IBV_EVENT_QP_ACCESS_ERR])


@t.case('ibv_rereg_mr of the translation keeps the keys: RDMA lands in the '
        'new buffer')
def _():
    m = MR(pd, 8192, ACC)
    objs.insert(0, m)
    keys = (m.lkey, m.rkey)
    buf = mmap.mmap(-1, 8192)
    bufs.append(buf)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    m.rereg(e.IBV_REREG_MR_CHANGE_TRANSLATION, pd, addr, 8192, 0)
    assert (m.lkey, m.rkey) == keys, f'keys {keys} became {m.lkey, m.rkey}'
    a, b = pair()
    write_via(a, m.rkey, addr + 100, DATA, e.IBV_WC_SUCCESS, [])
    assert buf[100:100 + len(DATA)] == DATA, 'the new buffer lacks the data'


@t.case('ibv_rereg_mr of the PD keeps the keys: the new PD\'s QPs reach '
        'them, the old one\'s get REM_ACCESS_ERR')
def _():
    global lcq
    m = MR(pd, 8192, ACC)
    objs.insert(0, m)
    pd2 = PD(ctx)
    objs.insert(0, pd2)
    lcq = CQ(ctx, 16)
    objs.insert(1, lcq)
    m2 = MR(pd2, 8192, ACC)
    objs.insert(1, m2)
    keys = (m.lkey, m.rkey)
    m.rereg(e.IBV_REREG_MR_CHANGE_PD, pd2, 0, 0, 0)
    assert (m.lkey, m.rkey) == keys, f'keys {keys} became {m.lkey, m.rkey}'
    a, b = pair()
    write_via(a, m.rkey, m.buf, DATA, e.IBV_WC_REM_ACCESS_ERR,
              [e.IBV_EVENT_QP_ACCESS_ERR])
    a2, b2 = rc_qp(pd2, lcq, ACC), rc_qp(pd2, lcq, ACC)
    objs.extend((a2, b2))
    rc_connect(a2, b2.qp_num, gid, gidx)
    rc_connect(b2, a2.qp_num, gid, gidx)
    write_via(a2, m.rkey, m.buf, DATA, e.IBV_WC_SUCCESS, [], lmr=m2)
    assert m.read(len(DATA), 0) == DATA, 'WRITE through the key lost'


@t.case('everything destroyed cleanly')
def _():
    close_all(objs, mr, cq, pd, ctx)
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
