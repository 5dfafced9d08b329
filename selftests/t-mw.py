#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-mw.py: memory windows through unmodified pyverbs, on one device in
loopback. Type 1: ibv_bind_mw, RDMA through the window's rkey inside its
range and rights, rebinding under a new key, unbinding. Type 2: bound by
IBV_WR_BIND_MW to the QP that posts it, reached only through that QP,
closed by LOCAL_INV or by a SEND with invalidate. The errors: every wrong
bind (IBV_WC_MW_BIND_ERR), LOCAL_INV of a type 1 window, deregistering
an MR windows are bound to (EBUSY), and a process that exits with its
windows bound."""
import subprocess
import sys
import textwrap

from ktap import Tests, sh
from roce import close_all, poll_cq, rc_connect, rc_qp, sroce_open

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR, MW, MWBind, MWBindInfo  # noqa: E402
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: E402
from pyverbs.wr import SGE, RecvWR, SendWR  # noqa: E402

DEV = 'sroce0'
ctx, pd, gidx, gid = sroce_open(DEV)
ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
RW = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
cq = CQ(ctx, 256)
src = MR(pd, 1 << 16, ACC)			# what the peer writes from
mr = MR(pd, 1 << 16, ACC | e.IBV_ACCESS_MW_BIND)	# what windows open
objs = []
DATA = bytes(range(256)) * 4


def pair():
    a, b = rc_qp(pd, cq, ACC), rc_qp(pd, cq, ACC)
    objs.extend((a, b))
    rc_connect(a, b.qp_num, gid, gidx)
    rc_connect(b, a.qp_num, gid, gidx)
    return a, b


def rdma(qp, op, rkey, addr, n=len(DATA), wr_id=1):
    """An RDMA WRITE or READ from @qp through @rkey; its status."""
    if op == e.IBV_WR_RDMA_WRITE:
        src.write(DATA[:n], n)
    wr = SendWR(wr_id=wr_id, opcode=op, num_sge=1, sg=[SGE(src.buf, n,
                                                         src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(rkey, addr)
    qp.post_send(wr)
    w, = poll_cq(cq, 1)
    return w.status


def bind1(qp, mw, m, off, length, access):
    """ibv_bind_mw of type 1 window @mw over @m[off:off+length]; its
    completion's status."""
    qp.bind_mw(mw, MWBind(MWBindInfo(m, m.buf + off, length, access),
                          e.IBV_SEND_SIGNALED, wr_id=7))
    w, = poll_cq(cq, 1)
    assert w.opcode == e.IBV_WC_BIND_MW, w.opcode
    return w.status


def bind2(qp, mw, m, off, length, access):
    """IBV_WR_BIND_MW of type 2 window @mw; (status, new rkey)."""
    wr = SendWR(wr_id=8, opcode=e.IBV_WR_BIND_MW,
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_bind_wr(mw, MWBindInfo(m, m.buf + off, length, access))
    qp.post_send(wr)
    w, = poll_cq(cq, 1)
    return w.status, wr.rkey


def write_read(qp, rkey, off):
    """From @qp, WRITE DATA through @rkey to @off in the MR and READ it
    back; both must succeed and move the bytes."""
    assert rdma(qp, e.IBV_WR_RDMA_WRITE, rkey, mr.buf + off) == \
        e.IBV_WC_SUCCESS
    assert mr.read(len(DATA), off) == DATA
    src.write(bytes(len(DATA)), len(DATA))
    assert rdma(qp, e.IBV_WR_RDMA_READ, rkey, mr.buf + off) == \
        e.IBV_WC_SUCCESS
    assert src.read(len(DATA), 0) == DATA


def local_inv(qp, rkey):
    wr = SendWR(wr_id=9, opcode=e.IBV_WR_LOCAL_INV,
                send_flags=e.IBV_SEND_SIGNALED)
    wr.imm_data = rkey		# shares its field with invalidate_rkey
    qp.post_send(wr)
    w, = poll_cq(cq, 1)
    return w.status


@t.case('type 1: ibv_bind_mw, then a WRITE through the window lands in '
        'the MR, a READ brings it back')
def _():
    mw = MW(pd, e.IBV_MW_TYPE_1)
    objs.insert(0, mw)
    a, b = pair()
    old = mw.rkey
    assert bind1(a, mw, mr, 4096, 8192, RW) == e.IBV_WC_SUCCESS
    assert mw.rkey != old and mw.rkey >> 8 == old >> 8, (old, mw.rkey)
    write_read(b, mw.rkey, 4096 + 100)


@t.case('type 1: outside its range (inside the MR): REM_ACCESS_ERR')
def _():
    mw = objs[0]
    a, b = pair()
    assert rdma(b, e.IBV_WR_RDMA_WRITE, mw.rkey,
                mr.buf + 4096 + 8192 - 100) == e.IBV_WC_REM_ACCESS_ERR


@t.case('type 1: rebound write-only under a new key: the old key is '
        'dead, a READ is refused, a WRITE works')
def _():
    mw = objs[0]
    a, b = pair()
    old = mw.rkey
    assert bind1(a, mw, mr, 0, 4096, e.IBV_ACCESS_REMOTE_WRITE) == \
        e.IBV_WC_SUCCESS
    assert mw.rkey != old
    assert rdma(b, e.IBV_WR_RDMA_WRITE, mw.rkey, mr.buf) == e.IBV_WC_SUCCESS
    assert rdma(b, e.IBV_WR_RDMA_WRITE, old, mr.buf + 4096) == \
        e.IBV_WC_REM_ACCESS_ERR
    a, b = pair()
    assert rdma(b, e.IBV_WR_RDMA_READ, mw.rkey, mr.buf) == \
        e.IBV_WC_REM_ACCESS_ERR


@t.case('type 1: unbound (length 0): its key opens nothing')
def _():
    mw = objs[0]
    a, b = pair()
    assert bind1(a, mw, mr, 0, 0, 0) == e.IBV_WC_SUCCESS
    assert rdma(b, e.IBV_WR_RDMA_WRITE, mw.rkey, mr.buf) == \
        e.IBV_WC_REM_ACCESS_ERR


@t.case('type 1: LOCAL_INV of it: LOC_QP_OP_ERR')
def _():
    mw = objs[0]
    a, b = pair()
    assert local_inv(a, mw.rkey) == e.IBV_WC_LOC_QP_OP_ERR


@t.case('type 2: IBV_WR_BIND_MW, then WRITE and READ through it, from the '
        'peer of the QP that bound it')
def _():
    mw = MW(pd, e.IBV_MW_TYPE_2)
    objs.insert(0, mw)
    a, b = pair()
    status, rkey = bind2(a, mw, mr, 8192, 4096, RW)
    assert status == e.IBV_WC_SUCCESS, status
    write_read(b, rkey, 8192)
    # Another QP of the PD does not reach it.
    c, d = pair()
    assert rdma(d, e.IBV_WR_RDMA_WRITE, rkey, mr.buf + 8192) == \
        e.IBV_WC_REM_ACCESS_ERR
    # Bound already: a second bind fails.
    status, _ = bind2(a, mw, mr, 8192, 4096, RW)
    assert status == e.IBV_WC_MW_BIND_ERR, status


@t.case('type 2: LOCAL_INV closes it; bound again, a SEND with invalidate '
        'closes it and the receive says so')
def _():
    # A new one: the last is still bound, to a QP that went to error.
    mw = MW(pd, e.IBV_MW_TYPE_2)
    objs.insert(0, mw)
    a, b = pair()
    status, rkey = bind2(a, mw, mr, 8192, 4096, RW)
    assert status == e.IBV_WC_SUCCESS, status
    assert local_inv(a, rkey) == e.IBV_WC_SUCCESS
    assert rdma(b, e.IBV_WR_RDMA_WRITE, rkey, mr.buf + 8192) == \
        e.IBV_WC_REM_ACCESS_ERR
    a, b = pair()
    status, rkey = bind2(a, mw, mr, 8192, 4096, RW)
    assert status == e.IBV_WC_SUCCESS, status
    a.post_recv(RecvWR(wr_id=10, num_sge=1,
                       sg=[SGE(src.buf + 32768, 64, src.lkey)]))
    b.post_send(SendWR(wr_id=11, opcode=e.IBV_WR_SEND_WITH_INV, num_sge=1,
                       imm_data=rkey, sg=[SGE(src.buf, 64, src.lkey)],
                       send_flags=e.IBV_SEND_SIGNALED))
    got = {w.wr_id: w for w in poll_cq(cq, 2)}
    assert got[11].status == e.IBV_WC_SUCCESS, got[11].status
    r = got[10]
    assert r.status == e.IBV_WC_SUCCESS, r.status
    # pyverbs gives the invalidated rkey as imm_data (one union)
    assert r.wc_flags & e.IBV_WC_WITH_INV and r.imm_data == rkey, \
        (r.wc_flags, r.imm_data, rkey)
    assert rdma(b, e.IBV_WR_RDMA_WRITE, rkey, mr.buf + 8192) == \
        e.IBV_WC_REM_ACCESS_ERR


@t.case('type 2: LOCAL_INV under a stream of WRITEs through the window: no '
        'byte lands after it completes (20 rounds)')
def _():
    n, size = 64, 1024
    for rnd in range(20):
        mw = MW(pd, e.IBV_MW_TYPE_2)
        objs.insert(0, mw)
        a, b = rc_qp(pd, cq, ACC, depth=n + 4), rc_qp(pd, cq, ACC,
                                                      depth=n + 4)
        objs.extend((a, b))
        rc_connect(a, b.qp_num, gid, gidx)
        rc_connect(b, a.qp_num, gid, gidx)
        status, rkey = bind2(a, mw, mr, 0, n * size, RW)
        assert status == e.IBV_WC_SUCCESS, status
        mr.write(bytes(n * size), n * size)
        src.write(bytes([rnd + 1]) * size, size)
        for i in range(n):
            wr = SendWR(wr_id=100 + i, opcode=e.IBV_WR_RDMA_WRITE,
                        num_sge=1, sg=[SGE(src.buf, size, src.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(rkey, mr.buf + i * size)
            b.post_send(wr)
        inv = SendWR(wr_id=9, opcode=e.IBV_WR_LOCAL_INV,
                     send_flags=e.IBV_SEND_SIGNALED)
        inv.imm_data = rkey
        a.post_send(inv)
        wcs = []
        while not any(w.wr_id == 9 for w in wcs):
            wcs += poll_cq(cq, 1)
        assert [w.status for w in wcs if w.wr_id == 9] == [0], wcs
        after = mr.read(n * size, 0)
        # The rest of the stream: written before, refused, or flushed.
        while len(wcs) < n + 1:
            wcs += poll_cq(cq, 1)
        assert mr.read(n * size, 0) == after, \
            f'round {rnd}: bytes landed after LOCAL_INV completed'


@t.case('wrong binds complete with IBV_WC_MW_BIND_ERR: an MR without '
        'MW_BIND, a range past the MR, a zero-based window')
def _():
    plain = MR(pd, 8192, ACC)
    objs.insert(0, plain)
    for m, off, length, acc in ((plain, 0, 4096, RW),
                                (mr, 60000, 8192, RW),
                                (mr, 0, 4096, RW | e.IBV_ACCESS_ZERO_BASED)):
        mw = MW(pd, e.IBV_MW_TYPE_2)
        objs.insert(0, mw)
        a, b = pair()
        status, _ = bind2(a, mw, m, off, length, acc)
        assert status == e.IBV_WC_MW_BIND_ERR, (status, off, length, acc)


@t.case('an MR a window is bound to cannot be deregistered (EBUSY); '
        'after the window goes, it can')
def _():
    m = MR(pd, 8192, ACC | e.IBV_ACCESS_MW_BIND)
    mw = MW(pd, e.IBV_MW_TYPE_1)
    a, b = pair()
    assert bind1(a, mw, m, 0, 4096, RW) == e.IBV_WC_SUCCESS
    try:
        m.close()
        raise AssertionError('dereg of a bound MR succeeded')
    except PyverbsRDMAError as err:
        assert 'Device or resource busy' in str(err) or \
            getattr(err, 'error_code', 0) == 16, err
    mw.close()
    m.close()


@t.case('a process that exits with windows bound: everything freed')
def _():
    prog = textwrap.dedent(f'''
        import pyverbs.enums as e
        from pyverbs.device import Context
        from pyverbs.pd import PD
        from pyverbs.cq import CQ
        from pyverbs.mr import MR, MW, MWBind, MWBindInfo
        from roce import ipv4_gid, poll_cq, rc_connect, rc_qp
        ctx = Context(name='{DEV}')
        pd = PD(ctx)
        cq = CQ(ctx, 16)
        gidx, gid = ipv4_gid(ctx)
        m = MR(pd, 8192, {ACC | e.IBV_ACCESS_MW_BIND})
        a, b = rc_qp(pd, cq, {ACC}), rc_qp(pd, cq, {ACC})
        rc_connect(a, b.qp_num, gid, gidx)
        rc_connect(b, a.qp_num, gid, gidx)
        for t in (e.IBV_MW_TYPE_1, e.IBV_MW_TYPE_2):
            mw = MW(pd, t)
            info = MWBindInfo(m, m.buf, 4096, {RW})
            if t == e.IBV_MW_TYPE_1:
                a.bind_mw(mw, MWBind(info, e.IBV_SEND_SIGNALED))
            else:
                from pyverbs.wr import SendWR
                wr = SendWR(opcode=e.IBV_WR_BIND_MW,
                            send_flags=e.IBV_SEND_SIGNALED)
                wr.set_bind_wr(mw, info)
                a.post_send(wr)
            assert poll_cq(cq, 1)[0].status == 0
        import os
        print(os.getpid(), flush=True)
        os._exit(0)
        ''')
    here = sys.path[0]
    pid = subprocess.run([sys.executable, '-c', prog], check=True, cwd=here,
                         env={'PYTHONPATH': here}, capture_output=True,
                         text=True).stdout.split()[-1]
    for kind in ('mr', 'qp', 'pd', 'cq'):
        out = sh(f'rdma resource show {kind}')
        assert f'pid {pid} ' not in out, f'{kind} left by {pid}: {out}'


@t.case('everything destroyed cleanly')
def _():
    close_all(objs, mr, src, cq, pd, ctx)
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
