#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-verbs-ex.py: the extended verbs through unmodified pyverbs, on one
device (loopback): ibv_create_cq_ex with the wc_flags it supports (and
EOPNOTSUPP for timestamps and the rest), polled with start_poll/next_poll/
end_poll and read_*; ibv_create_qp_ex with send_ops_flags (and EOPNOTSUPP
for operations a QP type cannot do); the ibv_wr_* API on UD QPs: sends
with SGEs, SGE lists, inline data and immediate data checked byte for
byte, batches that are posted whole or not at all (an error anywhere,
wr_abort, a QP not yet in RTS), unsignaled sends, and flushes in the
error state; RC QPs made with the ex API, with every RC operation, in
RESET and in the error state."""
import errno
import ipaddress
import os
import random
import socket
import sys

from ktap import Skip, Tests, sh
from roce import sroce_open, ud_to_rts

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import AH, AHAttr, GlobalRoute  # noqa: E402
from pyverbs.cq import CQEX, CqInitAttrEx, PollCqAttr  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: E402
from pyverbs.qp import (DataBuffer, QPAttr, QPCap, QPEx,  # noqa: E402
                        QPInitAttrEx)
from pyverbs.wr import SGE, RecvWR  # noqa: E402

DEV = 'sroce0'
QKEY = 0x1234
MTU = 1024
GRH = 40
ctx, pd, gidx, gid = sroce_open(DEV)
my_ip = str(ipaddress.IPv6Address(str(gid)).ipv4_mapped)
rnd = random.Random(int.from_bytes(os.urandom(4), 'little'))
ACC = e.IBV_ACCESS_LOCAL_WRITE
ah = AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=gid, sgid_index=gidx),
                        is_global=1, port_num=1))
UD_OPS = e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_SEND_WITH_IMM
RC_OPS = (UD_OPS | e.IBV_QP_EX_WITH_RDMA_WRITE |
          e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | e.IBV_QP_EX_WITH_RDMA_READ |
          e.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
          e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
          e.IBV_QP_EX_WITH_SEND_WITH_INV | e.IBV_QP_EX_WITH_LOCAL_INV |
          e.IBV_QP_EX_WITH_BIND_MW)
STD_WC = (e.IBV_WC_EX_WITH_BYTE_LEN | e.IBV_WC_EX_WITH_IMM |
          e.IBV_WC_EX_WITH_QP_NUM | e.IBV_WC_EX_WITH_SRC_QP |
          e.IBV_WC_EX_WITH_SLID | e.IBV_WC_EX_WITH_SL |
          e.IBV_WC_EX_WITH_DLID_PATH_BITS)


def errno_of(fn):
    """Run fn, which must fail; return its errno."""
    try:
        fn()
    except PyverbsRDMAError as ex:
        return ex.error_code
    except PyverbsError as ex:	# PyverbsRDMAErrno: errno in the text
        return ex
    raise AssertionError('succeeded')


def cqex(wc_flags=STD_WC, **kw):
    return CQEX(ctx, CqInitAttrEx(cqe=256, wc_flags=wc_flags, **kw))


def qp_ex(cq, qp_type=e.IBV_QPT_UD, ops=UD_OPS, sig_all=0, rts=True,
          mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS):
    cap = QPCap(max_send_wr=16, max_recv_wr=64, max_send_sge=4,
                max_recv_sge=4, max_inline_data=256)
    qp = QPEx(ctx, QPInitAttrEx(qp_type=qp_type, scq=cq, rcq=cq, cap=cap,
                                pd=pd, sq_sig_all=sig_all, comp_mask=mask,
                                send_ops_flags=ops))
    if qp_type == e.IBV_QPT_UD and rts:
        ud_to_rts(qp, QKEY)
    return qp


def to_err(qp):
    """RESET goes to INIT first (Linux allows RESET to INIT or RESET only)."""
    attr, _ = qp.query(e.IBV_QP_STATE)
    if attr.qp_state == e.IBV_QPS_RESET:
        a = QPAttr()
        a.qp_state = e.IBV_QPS_INIT
        a.pkey_index = 0
        a.port_num = 1
        mask = e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
        if qp.qp_type == e.IBV_QPT_UD:
            a.qkey = QKEY
            mask |= e.IBV_QP_QKEY
        else:
            a.qp_access_flags = 0
            mask |= e.IBV_QP_ACCESS_FLAGS
        qp.modify(a, mask)
    a = QPAttr()
    a.qp_state = e.IBV_QPS_ERR
    qp.modify(a, e.IBV_QP_STATE)


class Wc:
    """One completion read through the ibv_cq_ex accessors."""
    def __init__(self, cq):
        self.wr_id = cq.wr_id
        self.status = cq.status
        self.opcode = cq.read_opcode()
        self.byte_len = cq.read_byte_len()
        self.imm = socket.ntohl(cq.read_imm_data())
        self.qp_num = cq.read_qp_num()
        self.src_qp = cq.read_src_qp()
        self.wc_flags = cq.read_wc_flags()
        self.vendor_err = cq.read_vendor_err()
        self.slid = cq.read_slid()
        self.sl = cq.read_sl()
        self.dlid_path_bits = cq.read_dlid_path_bits()

    def __repr__(self):
        return f'Wc({self.__dict__})'


def poll(cq, n, tries=20000):
    """Exactly n completions, taken in batches of start/next/end_poll."""
    wcs = []
    while len(wcs) < n and tries:
        tries -= 1
        if cq.start_poll(PollCqAttr()):
            continue
        wcs.append(Wc(cq))
        while len(wcs) < n and cq.poll_next() == 0:
            wcs.append(Wc(cq))
        cq.end_poll()
    assert len(wcs) == n, f'{len(wcs)} of {n} completions: {wcs}'
    return wcs


def empty(cq):
    if cq.start_poll(PollCqAttr()) == 0:
        w = Wc(cq)
        cq.end_poll()
        raise AssertionError(f'unexpected completion {w}')


def recv(qp, mr, wr_id, off=0, length=GRH + MTU):
    qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1,
                        sg=[SGE(mr.buf + off, length, mr.lkey)]))


scq = cqex()
rcq = cqex()
a = qp_ex(scq)
b = qp_ex(rcq, ops=e.IBV_QP_EX_WITH_SEND)
smr = MR(pd, 1 << 16, ACC)
rmr = MR(pd, 1 << 16, ACC)


@t.case('create_cq_ex: standard wc_flags; timestamps and the rest: EOPNOTSUPP')
def _():
    cqex(STD_WC).close()
    cqex(0).close()
    for f in (e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
              e.IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
              e.IBV_WC_EX_WITH_CVLAN, e.IBV_WC_EX_WITH_FLOW_TAG,
              e.IBV_WC_EX_WITH_TM_INFO):
        err = errno_of(lambda: cqex(STD_WC | f))
        assert err == errno.EOPNOTSUPP or 'Errno: 95' in str(err), (f, err)
    err = errno_of(lambda: cqex(comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
                                flags=e.IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN))
    assert err == errno.EOPNOTSUPP or 'Errno: 95' in str(err), err
    cqex(comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS,
         flags=e.IBV_CREATE_CQ_ATTR_SINGLE_THREADED).close()


@t.case('create_qp_ex: send_ops_flags per QP type; others EOPNOTSUPP')
def _():
    for qpt, ops in ((e.IBV_QPT_UD, UD_OPS), (e.IBV_QPT_RC, RC_OPS),
                     (e.IBV_QPT_UC, UD_OPS | e.IBV_QP_EX_WITH_RDMA_WRITE |
                      e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
                      e.IBV_QP_EX_WITH_LOCAL_INV |
                      e.IBV_QP_EX_WITH_BIND_MW)):
        qp_ex(scq, qpt, ops, rts=False).close()
    for qpt, op in ((e.IBV_QPT_UD, e.IBV_QP_EX_WITH_RDMA_WRITE),
                    (e.IBV_QPT_UD, e.IBV_QP_EX_WITH_TSO),
                    (e.IBV_QPT_UC, e.IBV_QP_EX_WITH_RDMA_READ),
                    (e.IBV_QPT_UD, e.IBV_QP_EX_WITH_LOCAL_INV),
                    (e.IBV_QPT_UD, e.IBV_QP_EX_WITH_BIND_MW),
                    (e.IBV_QPT_RC, e.IBV_QP_EX_WITH_ATOMIC_WRITE)):
        err = errno_of(lambda: qp_ex(scq, qpt, e.IBV_QP_EX_WITH_SEND | op,
                                     rts=False))
        assert err == errno.EOPNOTSUPP or 'Errno: 95' in str(err), \
            (qpt, op, err)
    # Without SEND_OPS_FLAGS: an ordinary QP through the ex call.
    qp_ex(scq, e.IBV_QPT_UD, 0, mask=e.IBV_QP_INIT_ATTR_PD |
          e.IBV_QP_INIT_ATTR_CREATE_FLAGS, rts=False).close()


@t.case('wr_send + set_ud_addr + set_sge: payloads 0..1024, every byte')
def _():
    for size in [0, 1, 63, 64, 65, 1000, 1024] + \
            [rnd.randrange(MTU + 1) for _ in range(10)]:
        data = bytes(rnd.randrange(256) for _ in range(size))
        if size:
            smr.write(data, size)
        rmr.write(b'\xee' * (GRH + MTU + 8), GRH + MTU + 8)
        recv(b, rmr, size)
        a.wr_start()
        a.wr_id = 0x100 + size
        a.wr_flags = e.IBV_SEND_SIGNALED
        a.wr_send()
        a.wr_set_ud_addr(ah, b.qp_num, QKEY)
        a.wr_set_sge(SGE(smr.buf, size, smr.lkey))
        a.wr_complete()
        s, = poll(scq, 1)
        assert s.status == e.IBV_WC_SUCCESS and s.wr_id == 0x100 + size, s
        assert s.opcode == e.IBV_WC_SEND and s.qp_num == a.qp_num, s
        r, = poll(rcq, 1)
        assert r.status == e.IBV_WC_SUCCESS and r.wr_id == size, r
        assert r.opcode == e.IBV_WC_RECV and r.byte_len == GRH + size, r
        assert r.qp_num == b.qp_num and r.src_qp == a.qp_num, r
        assert r.wc_flags == e.IBV_WC_GRH, r
        got = rmr.read(GRH + MTU + 8, 0)
        assert got[GRH:GRH + size] == data, f'payload of {size} differs'
        assert got[GRH + size:GRH + size + 8] == b'\xee' * 8, size
        assert str(ipaddress.IPv4Address(got[32:36])) == my_ip


@t.case('wr_send_imm, SGE list, inline data and inline list in one batch')
def _():
    parts = [bytes(rnd.randrange(256) for _ in range(n))
             for n in (100, 0, 37, 200)]
    off = 0
    sges, bufs = [], []
    for p in parts:	# SGEs from the first 2 KiB, inline from the next
        if p:
            smr.write(p, len(p), off)
            smr.write(p, len(p), 2048 + off)
        sges.append(SGE(smr.buf + off, len(p), smr.lkey))
        bufs.append(DataBuffer(smr.buf + 2048 + off, len(p)))
        off += 512
    whole = b''.join(parts)
    for i in range(4):
        recv(b, rmr, 0x200 + i, off=2048 * i)
    a.wr_start()
    a.wr_flags = e.IBV_SEND_SIGNALED
    a.wr_id = 1
    a.wr_send_imm(0xdeadbeef)
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_set_sge_list(4, sges)
    a.wr_id = 2
    a.wr_send()
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_set_inline_data(smr.buf + 2048, 100)
    a.wr_id = 3
    a.wr_flags = e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE
    a.wr_send_imm(7)
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_set_inline_data_list(4, bufs)
    a.wr_id = 4
    a.wr_send()	# the address may come after the data
    a.wr_set_inline_data(smr.buf + 2048 + 1536, 200)
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    # Inline data is copied at once: overwriting its source is harmless.
    smr.write(b'\0' * 2048, 2048, 2048)
    a.wr_complete()
    s = poll(scq, 4)
    assert [w.wr_id for w in s] == [1, 2, 3, 4], s
    assert all(w.status == e.IBV_WC_SUCCESS for w in s), s
    r = poll(rcq, 4)
    assert [w.wr_id for w in r] == [0x200, 0x201, 0x202, 0x203], r
    lens = [GRH + len(whole), GRH + 100, GRH + len(whole), GRH + 200]
    assert [w.byte_len for w in r] == lens, r
    assert r[0].wc_flags == e.IBV_WC_GRH | e.IBV_WC_WITH_IMM, r[0]
    assert r[0].imm == 0xdeadbeef and r[2].imm == 7, r
    assert r[1].wc_flags == e.IBV_WC_GRH, r[1]
    want = [whole, parts[0], whole, parts[3]]
    for i, w in enumerate(want):
        got = rmr.read(len(w), 2048 * i + GRH)
        assert got == w, f'message {i} differs'


@t.case('unsignaled sends complete nothing; sq_sig_all signals them all')
def _():
    for i in range(3):
        recv(b, rmr, 0x300 + i, off=1024 * i)
    a.wr_start()
    for i in range(2):
        a.wr_id = 0x310 + i
        a.wr_flags = 0
        a.wr_send()
        a.wr_set_ud_addr(ah, b.qp_num, QKEY)
        a.wr_set_sge(SGE(smr.buf, 8, smr.lkey))
    a.wr_id = 0x312
    a.wr_flags = e.IBV_SEND_SIGNALED
    a.wr_send()
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_set_sge(SGE(smr.buf, 8, smr.lkey))
    a.wr_complete()
    s, = poll(scq, 1)
    assert s.wr_id == 0x312, s
    poll(rcq, 3)
    empty(scq)
    c = qp_ex(scq, sig_all=1)
    recv(b, rmr, 0x320)
    c.wr_start()
    c.wr_id = 0x321
    c.wr_flags = 0
    c.wr_send()
    c.wr_set_ud_addr(ah, b.qp_num, QKEY)
    c.wr_complete()
    s, = poll(scq, 1)
    assert s.wr_id == 0x321 and s.status == e.IBV_WC_SUCCESS, s
    r, = poll(rcq, 1)
    assert r.byte_len == GRH, r
    c.close()


def bad_batch(build, err):
    """A batch whose last WR is wrong fails whole: nothing is sent."""
    recv(b, rmr, 0x400)
    a.wr_start()
    a.wr_id = 0x401
    a.wr_flags = e.IBV_SEND_SIGNALED
    a.wr_send()
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_set_sge(SGE(smr.buf, 8, smr.lkey))
    a.wr_id = 0x402
    build()
    try:
        a.wr_complete()
    except PyverbsRDMAError as ex:
        assert ex.error_code == err, (ex.error_code, err)
    else:
        raise AssertionError('wr_complete accepted a bad batch')
    empty(scq)
    empty(rcq)
    # The QP is fine and the ring was not advanced: the next batch goes.
    a.wr_start()
    a.wr_id = 0x403
    a.wr_send()
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_complete()
    s, = poll(scq, 1)
    assert s.wr_id == 0x403 and s.status == e.IBV_WC_SUCCESS, s
    r, = poll(rcq, 1)
    assert r.wr_id == 0x400 and r.byte_len == GRH, r


@t.case('a batch with a bad WR posts nothing (EINVAL), then the QP goes on')
def _():
    def too_many_sges():
        a.wr_send()
        a.wr_set_ud_addr(ah, b.qp_num, QKEY)
        # More than any QP gets (the kernel may grant more than asked).
        a.wr_set_sge_list(33, [SGE(smr.buf, 1, smr.lkey)] * 33)

    def inline_too_long():
        a.wr_send()
        a.wr_set_ud_addr(ah, b.qp_num, QKEY)
        a.wr_set_inline_data(smr.buf, 4096)

    def no_address():
        a.wr_send()
        a.wr_set_sge(SGE(smr.buf, 8, smr.lkey))

    def rdma_on_ud():
        a.wr_rdma_write(0x1234, smr.buf)
        a.wr_set_sge(SGE(smr.buf, 8, smr.lkey))

    def atomic_on_ud():
        a.wr_atomic_fetch_add(0x1234, smr.buf, 1)

    def local_inv():
        a.wr_local_inv(0x1234)

    for build in (too_many_sges, inline_too_long, no_address, rdma_on_ud,
                  atomic_on_ud, local_inv):
        bad_batch(build, errno.EINVAL)


@t.case('wr_abort posts nothing; posting before RTS fails (EINVAL)')
def _():
    a.wr_start()
    a.wr_id = 0x501
    a.wr_flags = e.IBV_SEND_SIGNALED
    a.wr_send()
    a.wr_set_ud_addr(ah, b.qp_num, QKEY)
    a.wr_abort()
    empty(scq)
    c = qp_ex(scq, rts=False)
    c.wr_start()
    c.wr_id = 0x502
    c.wr_send()
    c.wr_set_ud_addr(ah, b.qp_num, QKEY)
    try:
        c.wr_complete()
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EINVAL, ex.error_code
    else:
        raise AssertionError('wr_complete in RESET accepted')
    # Nothing reached the ring: moving to error flushes nothing.
    to_err(c)
    empty(scq)
    c.close()


@t.case('UD in the error state: a batch is flushed (IBV_WC_WR_FLUSH_ERR)')
def _():
    c = qp_ex(scq)
    to_err(c)
    c.wr_start()
    for i in range(3):
        c.wr_id = 0x600 + i
        c.wr_flags = 0
        c.wr_send()
        c.wr_set_ud_addr(ah, b.qp_num, QKEY)
        c.wr_set_sge(SGE(smr.buf, 8, smr.lkey))
    c.wr_complete()
    w = poll(scq, 3)
    assert [x.wr_id for x in w] == [0x600, 0x601, 0x602], w
    assert all(x.status == e.IBV_WC_WR_FLUSH_ERR for x in w), w
    c.close()


def rc_batch(qp, mr):
    qp.wr_start()
    qp.wr_flags = e.IBV_SEND_SIGNALED
    qp.wr_id = 0x701
    qp.wr_rdma_write(0x1234, 0x10000)
    qp.wr_set_sge(SGE(mr.buf, 64, mr.lkey))
    qp.wr_id = 0x702
    qp.wr_rdma_write_imm(0x1234, 0x10000, 5)
    qp.wr_set_inline_data(mr.buf, 16)
    qp.wr_id = 0x703
    qp.wr_rdma_read(0x1234, 0x10000)
    qp.wr_set_sge(SGE(mr.buf, 64, mr.lkey))
    qp.wr_id = 0x704
    qp.wr_atomic_cmp_swp(0x1234, 0x10008, 1, 2)
    qp.wr_set_sge(SGE(mr.buf, 8, mr.lkey))
    qp.wr_id = 0x705
    qp.wr_atomic_fetch_add(0x1234, 0x10010, 3)
    qp.wr_set_sge(SGE(mr.buf, 8, mr.lkey))
    qp.wr_id = 0x706
    qp.wr_send_inv(0x5678)
    qp.wr_id = 0x707
    qp.wr_send_imm(9)
    qp.wr_complete()


@t.case('RC from the ex API: every RC operation; RESET refuses the batch')
def _():
    c = qp_ex(scq, e.IBV_QPT_RC, RC_OPS, rts=False)
    try:
        rc_batch(c, smr)
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EINVAL, ex.error_code
    else:
        raise AssertionError('wr_complete in RESET accepted')
    to_err(c)
    empty(scq)
    c.close()


@t.case('RC in the error state: a batch of every operation is flushed')
def _():
    c = qp_ex(scq, e.IBV_QPT_RC, RC_OPS, rts=False)
    to_err(c)
    try:
        rc_batch(c, smr)
    except PyverbsRDMAError as ex:
        c.close()
        if ex.error_code == errno.EOPNOTSUPP:
            raise Skip('this kernel has no RC send doorbell yet')
        raise
    w = poll(scq, 7)
    assert [x.wr_id for x in w] == list(range(0x701, 0x708)), w
    assert all(x.status == e.IBV_WC_WR_FLUSH_ERR for x in w), w
    c.close()


@t.case('everything destroyed cleanly')
def _():
    for o in (a, b, ah, smr, rmr, scq, rcq, pd, ctx):
        o.close()
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
