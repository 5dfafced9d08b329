#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-ud-verbs.py: UD traffic checked byte for byte, and every way a UD
send or receive can go wrong, through unmodified pyverbs on one device
(loopback): random payloads of every size up to the MTU with the GRH area,
src_qp and immediate data checked; inline and unsignaled sends; receives
through an SRQ; a bad lkey and a send over the MTU complete with their
error status and flush the rest; a receive buffer too small completes
with a length error and the QP takes the next datagram; a wrong Q_Key
or no posted receive drops the datagram and counts it; wc.sl tells IPv4
from IPv6 as ConnectX's does; posting to a QP in RESET is refused."""
import ipaddress
import os
import random
import sys

from ktap import Tests, sh
import roce
from roce import sroce_open

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import AH, AHAttr, GlobalRoute  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr  # noqa: E402
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr  # noqa: E402
from pyverbs.wr import SGE, RecvWR, SendWR  # noqa: E402

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


def counter(name):
    out = sh(f'rdma statistic show link {DEV}/1').split()
    return int(out[out.index(name) + 1])


def ud_qp(cq, srq=None, sig_all=False):
    return roce.ud_qp(pd, cq, QKEY, srq, sig_all)


def poll(cq, n):
    return roce.poll_cq(cq, n, tries=20000)


def send(qp, sge, wr_id, dqpn, qkey=QKEY, opcode=e.IBV_WR_SEND, imm=0,
         flags=e.IBV_SEND_SIGNALED, to=None):
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                send_flags=flags)
    if opcode == e.IBV_WR_SEND_WITH_IMM:
        wr.imm_data = imm
    wr.set_wr_ud(to or ah, dqpn, qkey)
    qp.post_send(wr)


scq = CQ(ctx, 256)
rcq = CQ(ctx, 256)
a = ud_qp(scq)
b = ud_qp(rcq)
smr = MR(pd, 1 << 16, ACC)
rmr = MR(pd, 1 << 16, ACC)


@t.case('random payloads 0..1024 bytes: every byte, GRH, src_qp, imm')
def _():
    for size in [0, 1, 2, 3, 4, 5, 63, 64, 65, 511, 1000, 1023, 1024] + \
            [rnd.randrange(MTU + 1) for _ in range(40)]:
        data = bytes(rnd.randrange(256) for _ in range(size))
        smr.write(data, size) if size else None
        rmr.write(b'\xee' * (GRH + MTU + 8), GRH + MTU + 8)
        b.post_recv(RecvWR(wr_id=size, num_sge=1,
                           sg=[SGE(rmr.buf, GRH + MTU, rmr.lkey)]))
        imm = rnd.randrange(1 << 32)
        send(a, SGE(smr.buf, size, smr.lkey), 0x100 + size, b.qp_num,
             opcode=e.IBV_WR_SEND_WITH_IMM, imm=imm)
        s, = poll(scq, 1)
        assert s.status == e.IBV_WC_SUCCESS, s.status
        assert s.opcode == e.IBV_WC_SEND and s.wr_id == 0x100 + size
        r, = poll(rcq, 1)
        assert r.status == e.IBV_WC_SUCCESS, r.status
        assert r.opcode == e.IBV_WC_RECV, r.opcode
        assert r.byte_len == GRH + size, (r.byte_len, size)
        assert r.src_qp == a.qp_num, (r.src_qp, a.qp_num)
        assert r.wc_flags & e.IBV_WC_GRH and r.wc_flags & e.IBV_WC_WITH_IMM
        assert r.imm_data == imm, (hex(r.imm_data), hex(imm))
        got = rmr.read(GRH + MTU + 8, 0)
        assert got[GRH:GRH + size] == data, f'payload of {size} differs'
        assert got[GRH + size:GRH + size + 8] == b'\xee' * 8, \
            f'wrote past {size} bytes'
        ip = got[20:40]	# IPv4 header in the last 20 bytes of the GRH
        assert ip[0] == 0x45 and ip[9] == 17, ip.hex()
        assert str(ipaddress.IPv4Address(ip[12:16])) == my_ip, ip.hex()


@t.case('inline send of 200 bytes; unsignaled sends complete nothing')
def _():
    data = bytes(rnd.randrange(256) for _ in range(200))
    smr.write(data, 200)
    for i in range(2):
        b.post_recv(RecvWR(wr_id=i, num_sge=1,
                           sg=[SGE(rmr.buf + 2048 * i, GRH + 256,
                                   rmr.lkey)]))
    send(a, SGE(smr.buf, 200, smr.lkey), 1, b.qp_num,
         flags=e.IBV_SEND_INLINE | e.IBV_SEND_SIGNALED)
    send(a, SGE(smr.buf, 200, smr.lkey), 2, b.qp_num, flags=0)
    r = poll(rcq, 2)
    assert [w.byte_len for w in r] == [GRH + 200] * 2
    assert rmr.read(200, GRH) == data and rmr.read(200, 2048 + GRH) == data
    s, = poll(scq, 1)
    assert s.wr_id == 1, s.wr_id
    n, _ = scq.poll(1)
    assert n == 0, 'the unsignaled send completed'


@t.case('receives through an SRQ')
def _():
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    c = ud_qp(rcq, srq=srq)
    for i in range(3):
        srq.post_recv(RecvWR(wr_id=0x500 + i, num_sge=1,
                             sg=[SGE(rmr.buf + 1024 * i, GRH + 64,
                                     rmr.lkey)]))
    for i in range(3):
        send(a, SGE(smr.buf, 64, smr.lkey), i, c.qp_num)
    poll(scq, 3)
    r = poll(rcq, 3)
    assert [w.wr_id for w in r] == [0x500, 0x501, 0x502], r
    assert all(w.qp_num == c.qp_num for w in r)
    c.close()
    srq.close()


@t.case('wrong Q_Key: dropped and counted, no completion')
def _():
    b.post_recv(RecvWR(wr_id=7, num_sge=1,
                       sg=[SGE(rmr.buf, GRH + 64, rmr.lkey)]))
    before = counter('rx_drop_qkey')
    send(a, SGE(smr.buf, 64, smr.lkey), 8, b.qp_num, qkey=QKEY + 1)
    poll(scq, 1)
    assert counter('rx_drop_qkey') == before + 1
    n, _ = rcq.poll(1)
    assert n == 0
    send(a, SGE(smr.buf, 64, smr.lkey), 9, b.qp_num)	# takes WQE 7
    poll(scq, 1)
    r, = poll(rcq, 1)
    assert r.wr_id == 7


@t.case('wc.sl gives the packet type of a datagram, as on ConnectX: 2 '
        'for RoCE v2 over IPv4, 1 over IPv6')
def _():
    v6 = '2001:db8:79::1'
    sh(f'ip -6 addr add {v6}/64 dev eth0 nodad')
    try:
        roce.wait_gids(DEV, 'eth0')
        i6 = next(i for i in range(16)
                  if ipaddress.IPv6Address(str(ctx.query_gid(1, i))) ==
                  ipaddress.IPv6Address(v6))
        ah6 = AH(pd, attr=AHAttr(gr=GlobalRoute(dgid=ctx.query_gid(1, i6),
                                                sgid_index=i6),
                                 is_global=1, port_num=1))
        for to, sl, version in ((ah, 2, 4), (ah6, 1, 6)):
            rmr.write(b'\xee' * (GRH + 64), GRH + 64)
            b.post_recv(RecvWR(wr_id=0x51, num_sge=1,
                               sg=[SGE(rmr.buf, GRH + 64, rmr.lkey)]))
            send(a, SGE(smr.buf, 64, smr.lkey), 0x52, b.qp_num, to=to)
            s, = poll(scq, 1)
            assert s.status == e.IBV_WC_SUCCESS, s.status
            r, = poll(rcq, 1)
            assert r.status == e.IBV_WC_SUCCESS, r.status
            got = rmr.read(GRH, 0)
            # the IP header: at byte 20 for IPv4, at byte 0 for IPv6
            assert got[0 if version == 6 else 20] >> 4 == version, got.hex()
            assert r.sl == sl, f'IPv{version}: sl {r.sl}, not {sl}'
        ah6.close()
    finally:
        sh(f'ip -6 addr del {v6}/64 dev eth0')


@t.case('no receive posted: dropped and counted')
def _():
    before = counter('rx_drop_no_wqe')
    send(a, SGE(smr.buf, 64, smr.lkey), 10, b.qp_num)
    poll(scq, 1)
    assert counter('rx_drop_no_wqe') == before + 1


def lives_on(c, cq, sender):
    """@c is still in RTS and takes the next datagram (from @sender)."""
    attr, _ = c.query(e.IBV_QP_STATE)
    assert attr.qp_state == e.IBV_QPS_RTS, attr.qp_state
    c.post_recv(RecvWR(wr_id=0x11fe, num_sge=1,
                       sg=[SGE(rmr.buf, GRH + 64, rmr.lkey)]))
    send(sender, SGE(smr.buf, 64, smr.lkey), 0x11ff, c.qp_num)
    got = {x.wr_id: x for x in poll(cq, 2 if sender is c else 1)}
    r = got[0x11fe]
    assert r.status == e.IBV_WC_SUCCESS and r.byte_len == GRH + 64, \
        (r.status, r.byte_len)
    if sender is not c:
        poll(scq, 1)


@t.case('receive buffer too small: IBV_WC_LOC_LEN_ERR, the QP lives on')
def _():
    c = ud_qp(rcq)
    c.post_recv(RecvWR(wr_id=11, num_sge=1,
                       sg=[SGE(rmr.buf, GRH + 10, rmr.lkey)]))
    send(a, SGE(smr.buf, 64, smr.lkey), 12, c.qp_num)
    poll(scq, 1)
    r, = poll(rcq, 1)
    assert r.status == e.IBV_WC_LOC_LEN_ERR, r.status
    # A peer's datagram that does not fit ends only its receive WQE.
    lives_on(c, rcq, a)
    c.close()


@t.case('a QP sending to itself into a short buffer: length error, no '
        'deadlock, the QP lives on')
def _():
    c = ud_qp(rcq)
    c.post_recv(RecvWR(wr_id=0x5e1f, num_sge=1,
                       sg=[SGE(rmr.buf, GRH + 4, rmr.lkey)]))
    send(c, SGE(smr.buf, 64, smr.lkey), 0x5e20, c.qp_num)
    w = poll(rcq, 2)
    got = sorted((x.wr_id, x.status) for x in w)
    assert got == [(0x5e1f, e.IBV_WC_LOC_LEN_ERR),
                   (0x5e20, e.IBV_WC_SUCCESS)], got
    lives_on(c, rcq, c)
    c.close()


@t.case('send over the MTU: IBV_WC_LOC_LEN_ERR, QP to error, rest flushed')
def _():
    c = ud_qp(scq)
    send(c, SGE(smr.buf, MTU + 1, smr.lkey), 13, b.qp_num)
    send(c, SGE(smr.buf, 8, smr.lkey), 14, b.qp_num)
    w = poll(scq, 2)
    assert w[0].status == e.IBV_WC_LOC_LEN_ERR, w[0].status
    assert w[1].status == e.IBV_WC_WR_FLUSH_ERR, w[1].status
    attr, _ = c.query(e.IBV_QP_STATE)
    assert attr.qp_state == e.IBV_QPS_ERR, attr.qp_state
    c.close()


@t.case('bad lkey: IBV_WC_LOC_PROT_ERR; an lkey of another PD too')
def _():
    c = ud_qp(scq)
    send(c, SGE(smr.buf, 8, smr.lkey ^ 0x100), 15, b.qp_num)
    s, = poll(scq, 1)
    assert s.status == e.IBV_WC_LOC_PROT_ERR, s.status
    c.close()
    pd2 = PD(ctx)
    other = MR(pd2, 4096, ACC)
    c = ud_qp(scq)
    send(c, SGE(other.buf, 8, other.lkey), 16, b.qp_num)
    s, = poll(scq, 1)
    assert s.status == e.IBV_WC_LOC_PROT_ERR, s.status
    c.close()
    other.close()
    pd2.close()


@t.case('drain: a receive posted to a QP in error is flushed at once')
def _():
    c = ud_qp(rcq)
    a_ = QPAttr()
    a_.qp_state = e.IBV_QPS_ERR
    c.modify(a_, e.IBV_QP_STATE)
    c.post_recv(RecvWR(wr_id=0xd4a1, num_sge=1,
                       sg=[SGE(rmr.buf, 64, rmr.lkey)]))
    r, = poll(rcq, 1)
    assert r.wr_id == 0xd4a1 and r.status == e.IBV_WC_WR_FLUSH_ERR, \
        (hex(r.wr_id), r.status)
    send(c, SGE(smr.buf, 8, smr.lkey), 0xd4a2, b.qp_num)
    s, = poll(rcq, 1)
    assert s.wr_id == 0xd4a2 and s.status == e.IBV_WC_WR_FLUSH_ERR, \
        (hex(s.wr_id), s.status)
    c.close()


@t.case('posting to a QP in RESET is refused')
def _():
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=scq, rcq=scq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    try:
        send(qp, SGE(smr.buf, 8, smr.lkey), 17, b.qp_num)
    except Exception:
        pass
    else:
        raise AssertionError('post_send to RESET accepted')
    qp.close()


@t.case('everything destroyed cleanly')
def _():
    for o in (a, b, ah, smr, rmr, scq, rcq, pd, ctx):
        o.close()
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
