#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-rc-acks.py: where sroce's requester asks for ACKs (AckReq), seen
through unmodified pyverbs and the device's counters, in loopback on one
device. A signaled WRITE asks, and is ACKed at once; so is an unsignaled
one of a QP that does not stream. A stream of unsignaled WRITEs asks only
every 32 packets: its ACKs are a fraction of its WRITEs, and the tail it
sent unasked is probed for its ACK (resent, asking) after a quarter of the
ACK timeout, with no ACK timeout. Every byte lands
(Documentation/design.rst)."""
import sys
import time

from ktap import Tests, sh
from roce import close_all, poll_cq, rc_connect, rc_qp, sroce_open

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.wr import SGE, SendWR  # noqa: E402

DEV = 'sroce0'
N = 40		# WRITEs in the stream: past the 4 doorbells that start one
ctx, pd, gidx, gid = sroce_open(DEV)
ACC = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
cq = CQ(ctx, 256)
src = MR(pd, 8 * N, ACC)
dst = MR(pd, 8 * N, ACC)
objs = []
COUNTERS = ('tx_packets', 'rc_ack_probes', 'rc_ack_timeouts',
            'rc_duplicate_requests')


def counter(name):
    with open(f'/sys/class/infiniband/{DEV}/ports/1/hw_counters/{name}') as f:
        return int(f.read())


def snap():
    return {n: counter(n) for n in COUNTERS}


def delta(c0):
    return {n: counter(n) - c0[n] for n in COUNTERS}


def pair():
    """Two connected RC QPs on the device, PSNs 0: a sends, b answers."""
    a = rc_qp(pd, cq, ACC, depth=64, sig_all=0)
    b = rc_qp(pd, cq, ACC, depth=64, sig_all=0)
    objs.extend((a, b))
    rc_connect(a, b.qp_num, gid, gidx)
    rc_connect(b, a.qp_num, gid, gidx)
    return a, b


def write(qp, i, signaled):
    """WRITE 8 bytes, slot @i of src to slot @i of dst: one doorbell."""
    wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(src.buf + 8 * i, 8, src.lkey)],
                send_flags=e.IBV_SEND_SIGNALED if signaled else 0)
    wr.set_wr_rdma(dst.rkey, dst.buf + 8 * i)
    qp.post_send(wr)


def fill(seed):
    data = bytes((seed + i * 7) & 0xff for i in range(8 * N))
    src.write(data, len(data))
    dst.write(bytes(8 * N), 8 * N)
    return data


def landed(data, n):
    assert dst.read(8 * n, 0) == data[:8 * n], 'WRITE data lost'
    got, _ = cq.poll(1)
    assert got == 0, 'an unsignaled WR completed'


def settle(c0, name, want, timeout=2.0):
    """Wait until counter @name has risen by @want (or give up)."""
    end = time.monotonic() + timeout
    while delta(c0)[name] < want and time.monotonic() < end:
        time.sleep(0.01)


def exactly(c0, packets, what):
    """Exactly @packets went since @c0, and no probe or ACK timeout, once
    a probe would have fired (an ACK is counted after it is sent)."""
    settle(c0, 'tx_packets', packets)
    time.sleep(0.1)
    d = delta(c0)
    assert d['tx_packets'] == packets, f'{d}: want {what}'
    assert d['rc_ack_probes'] == 0 and d['rc_ack_timeouts'] == 0, d


def each_acked(n, signaled, seed):
    """@n WRITEs on a new QP pair, one per doorbell (each polled for if
    @signaled): each asks, and gets its own ACK."""
    a, _b = pair()
    data = fill(seed)
    c0 = snap()
    for i in range(n):
        write(a, i, signaled)
        if signaled:
            w, = poll_cq(cq, 1)
            assert w.status == e.IBV_WC_SUCCESS, w.status
    exactly(c0, 2 * n, f'{n} WRITEs and {n} ACKs')
    landed(data, n)


@t.case('signaled WRITEs ask, and each is ACKed at once')
def _():
    each_acked(10, True, 1)


@t.case('a QP that does not stream asks at the end of each message')
def _():
    each_acked(3, False, 2)


@t.case(f'a stream of {N} unsignaled WRITEs: few ACKs, its tail probed')
def _():
    a, _b = pair()
    data = fill(3)
    c0 = snap()
    for i in range(N):
        write(a, i, False)
    settle(c0, 'rc_ack_probes', 1)
    time.sleep(0.1)
    d = delta(c0)
    print(f'# {N} unsignaled WRITEs: {d}')
    assert d['rc_ack_probes'] >= 1, f'{d}: the unasked tail was not probed'
    assert d['rc_ack_timeouts'] == 0, f'{d}: an ACK timed out'
    assert d['rc_duplicate_requests'] == d['rc_ack_probes'], \
        f'{d}: each probe is one duplicate, answered'
    # 4 doorbells that start the stream ask, then every 32nd packet, then
    # the probe: 47 packets. One ACK per WRITE would make 2 * N; the slack
    # is for probes of a poster that stalls for a quarter of the timeout.
    assert d['tx_packets'] <= N + N // 2, f'{d}: too many ACKs'
    landed(data, N)
    # The QP goes on: a signaled WRITE completes, and alone.
    c0 = snap()
    write(a, 0, True)
    w, = poll_cq(cq, 1)
    assert w.status == e.IBV_WC_SUCCESS and w.wr_id == 0, (w.status, w.wr_id)
    exactly(c0, 2, 'the WRITE and its ACK')


@t.case('everything destroyed cleanly')
def _():
    close_all(objs, src, dst, cq, pd, ctx)
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
