#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""hostile.py: adversarial RoCEv2 packets at live QPs, for t-hostile.sh.

The victims are QPs of sroce_h1 (host h1, 10.77.0.1), made here with
pyverbs and connected to a peer that does not exist: QP FAKE_QPN at
10.77.0.2. This program plays that peer from host h2 with raw frames on
veth2 (a socket opened in h2's namespace), built and checksummed by
inject.py, and reads the victims' answers on the same socket. Each case
sends something a broken or malicious peer could send and checks the
answer the IBTA prescribes (ACK, or a NAK with its syndrome and PSN, or
silence), the counter that must move, the memory that must stay as it
was, and the victim's QP state. Meanwhile real traffic runs between
sroce_h1 and sroce_h2 on other QPs and must not notice.
"""
import ctypes
import ipaddress
import os
import select
import socket
import struct
import subprocess
import sys
import time

from ktap import Tests, sh

here = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, here)
from inject import Packet  # noqa: E402
from roce import ipv4_gid, rc_qp, rc_rtr, rc_rts, ud_qp  # noqa: E402

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.addr import GID  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.wr import RecvWR, SendWR, SGE  # noqa: E402

DEV = 'sroce_h1'
ME, PEER = '10.77.0.1', '10.77.0.2'
ME6, PEER6 = 'fd77::1', 'fd77::2'
FAKE_QPN = 0xfa4242
EPSN = 0x100			# every victim expects this PSN first
MTU = 1024
MR_LEN = 1 << 16
UD_QKEY = 0x11111111

# BTH opcodes (IBTA 9.2): RC, and UD SEND ONLY
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_ONLY = 0x00, 0x01, 0x02, 0x04
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_ONLY = 0x06, 0x07, 0x08, 0x0a
READ_REQ, READ_RESP_ONLY, ACK = 0x0c, 0x10, 0x11
READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST = 0x0d, 0x0e, 0x0f
CMP_SWAP, FETCH_ADD = 0x13, 0x14
UD_SEND_ONLY = 0x64
# AETH syndromes
NAK_SEQ, NAK_INVALID, NAK_ACCESS = 0x60, 0x61, 0x62
BAD_ICRC = b'\xde\xad\xbe\xef'

CLONE_NEWNET = 0x40000000
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26


def bth(op, psn, dqpn=None, pad=0, ackreq=1):
    """A BTH to @dqpn, by default the newest victim."""
    if dqpn is None:
        dqpn = victims[-1].qp_num
    return struct.pack('!BBHII', op, pad << 4, 0xffff, dqpn & 0xffffff,
                       ackreq << 31 | (psn & 0xffffff))


def reth(va, rkey, length):
    return struct.pack('!QII', va & (2**64 - 1), rkey, length)


def atmeth(va, rkey, swap_add, compare=0):
    return struct.pack('!QIQQ', va & (2**64 - 1), rkey, swap_add, compare)


def raw_socket_in(ns, iface):
    """An AF_PACKET socket on @iface of network namespace @ns."""
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    there = os.open(f'/run/netns/{ns}', os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), f'setns {ns}')
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(0x0003))
        s.bind((iface, 0))
        only_answers(s)
    finally:
        if libc.setns(home, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), 'setns back')
        os.close(there)
        os.close(home)
    return s


def only_answers(s):
    """Queue only RoCEv2 frames to FAKE_QPN on @s (a classic BPF filter),
    IPv4 or IPv6, so that the traffic beside cannot crowd the answers
    out."""
    insns = [
        (0x28, 0, 0, 12),		# 0 ldh [12]: ethertype
        (0x15, 0, 4, 0x0800),		# 1 jeq IPv4, else 6
        (0x30, 0, 0, 23),		# 2 ldb [23]: IP protocol
        (0x15, 0, 9, 17),		# 3 jeq UDP, else drop
        (0x20, 0, 0, 46),		# 4 ld [46]: BTH bytes 4..7 (IHL 5)
        (0x05, 0, 0, 4),		# 5 ja 10
        (0x15, 0, 6, 0x86dd),		# 6 jeq IPv6, else drop
        (0x30, 0, 0, 20),		# 7 ldb [20]: next header
        (0x15, 0, 4, 17),		# 8 jeq UDP, else drop
        (0x20, 0, 0, 66),		# 9 ld [66]: BTH bytes 4..7
        (0x54, 0, 0, 0xffffff),		# 10 and: the destination QPN
        (0x15, 0, 1, FAKE_QPN),		# 11 jeq
        (0x06, 0, 0, 0x40000),		# 12 ret: accept
        (0x06, 0, 0, 0),		# 13 ret: drop
    ]
    prog = b''.join(struct.pack('HBBI', *i) for i in insns)
    buf = ctypes.create_string_buffer(prog)
    fprog = struct.pack('HL', len(insns), ctypes.addressof(buf))
    s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    only_answers.keep = buf


def mac(ns, iface):
    out = sh(f'ip -n {ns} -br link show {iface}').split()
    return bytes.fromhex(out[2].replace(':', ''))


class Peer:
    """The fake peer on veth2: sends requests, collects the answers."""

    def __init__(self):
        self.s = raw_socket_in('h2', 'veth2')
        self.smac = mac('h2', 'veth2')
        self.dmac = mac('h1', 'veth1')

    def send(self, transport, src=None, icrc=None, dst=None, tos=0):
        v6 = ':' in (dst or src or '')
        p = Packet(src or (PEER6 if v6 else PEER), dst or (ME6 if v6 else ME),
                   transport)
        p.tos = tos
        self.s.send(p.frame(self.dmac, self.smac,
                            p.icrc() if icrc is None else icrc))

    def drain(self):
        while select.select([self.s], [], [], 0)[0]:
            self.s.recv(65536)

    def answers(self, qpn=FAKE_QPN, wait=1.0):
        """(opcode, psn, syndrome) of each packet to @qpn within @wait s."""
        got, end = [], time.monotonic() + wait
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.s], [], [], left)[0]:
                return got
            frame, addr = self.s.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                continue
            ip = frame[14:]
            if frame[12:14] == b'\x08\x00':
                ihl = (ip[0] & 15) * 4
                if ip[9] != 17 or socket.inet_ntoa(ip[12:16]) != ME:
                    continue
            elif frame[12:14] == b'\x86\xdd':
                ihl = 40
                if ip[6] != 17 or \
                   socket.inet_ntop(socket.AF_INET6, ip[8:24]) != ME6:
                    continue
            else:
                continue
            udp = ip[ihl:]
            if struct.unpack('!H', udp[2:4])[0] != 4791:
                continue
            tr = udp[8:]
            op = tr[0]
            dqpn = struct.unpack('!I', tr[4:8])[0] & 0xffffff
            psn = struct.unpack('!I', tr[8:12])[0] & 0xffffff
            syn = tr[12] if op in (ACK, 0x12, 0x0d, 0x0f, 0x10) else None
            if dqpn == qpn:
                got.append((op, psn, syn))


def counters():
    out = sh(f'rdma statistic show link {DEV}/1').split()
    return {out[i]: int(out[i + 1]) for i in range(2, len(out) - 1, 2)
            if out[i + 1].isdigit()}


ctx = Context(name=DEV)
gidx, _ = ipv4_gid(ctx)
peer_gid = GID(':'.join(
    ipaddress.ip_address(f'::ffff:{PEER}').exploded.split(':')))
gidx6 = next(i for i in range(16)
             if ipaddress.IPv6Address(str(ctx.query_gid(1, i))) ==
             ipaddress.IPv6Address(ME6))
peer_gid6 = GID(ipaddress.IPv6Address(PEER6).exploded)
pd = PD(ctx)
pd2 = PD(ctx)
cq = CQ(ctx, 64)
ALL = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
PATTERN = bytes((i * 7 + 3) & 0xff for i in range(MR_LEN))
mr = MR(pd, MR_LEN, ALL)
mr_ro = MR(pd, MR_LEN, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
mr_pd2 = MR(pd2, MR_LEN, ALL)
rbuf = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)	# receive buffers
peer = Peer()
victims = []


def reset_memory():
    for m in (mr, mr_ro, mr_pd2):
        m.write(PATTERN, MR_LEN)


def untouched():
    for m in (mr, mr_ro, mr_pd2):
        assert m.read(MR_LEN, 0) == PATTERN, 'an MR changed'


def victim(recv=0, v6=False):
    """A fresh RC QP in RTR, expecting EPSN from FAKE_QPN at PEER (or, with
    @v6, at PEER6)."""
    qp = rc_qp(pd, cq, ALL, depth=4)
    if v6:
        rc_rtr(qp, FAKE_QPN, peer_gid6, gidx6, rq_psn=EPSN)
    else:
        rc_rtr(qp, FAKE_QPN, peer_gid, gidx, rq_psn=EPSN)
    for _ in range(recv):
        qp.post_recv(RecvWR(num_sge=1, sg=[SGE(rbuf.buf, 64, rbuf.lkey)]))
    victims.append(qp)
    reset_memory()
    drain_cq()
    peer.drain()
    return qp


def drain_cq():
    while cq.poll()[0]:
        pass


def poll_one(wait=5.0):
    """The completions of the first poll of cq that finds any, within
    @wait seconds."""
    end = time.monotonic() + wait
    while True:
        n, wcs = cq.poll()
        if n or time.monotonic() > end:
            return wcs[:n]


def state(qp):
    attr, _ = qp.query(e.IBV_QP_STATE)
    return attr.qp_state


def nak(transport, syndrome, qp=None, psn=EPSN, counter=None, dst=None):
    """Send @transport to a fresh victim (or @qp); it must answer exactly
    one NAK @syndrome for @psn, touch no memory and go to the error state
    (a PSN sequence NAK leaves it in RTR)."""
    qp = qp or victim()
    c0 = counters()
    peer.send(transport() if callable(transport) else transport, dst=dst)
    got = peer.answers()
    assert got == [(ACK, psn, syndrome)], \
        f'answers {[(hex(o), hex(p), s and hex(s)) for o, p, s in got]}' \
        f', counters moved: {moved(c0)}, QP state {state(qp)}'
    untouched()
    want = e.IBV_QPS_RTR if syndrome == NAK_SEQ else e.IBV_QPS_ERR
    assert state(qp) == want, f'QP state {state(qp)}, not {want}'
    if counter:
        c1 = counters()
        assert c1[counter] == c0[counter] + 1, \
            f'{counter} {c0[counter]} -> {c1[counter]}'
    return qp


def moved(c0):
    c1 = counters()
    return {k: c1[k] - c0[k] for k in c1 if c1[k] != c0.get(k)}


def dropped(transport, counter, src=PEER, icrc=None):
    """@transport is dropped: no answer, no memory touched, @counter +1."""
    qp = victim()
    c0 = counters()
    peer.send(transport(), src=src, icrc=icrc)
    got = peer.answers(wait=0.5)
    assert not got, f'answered {got}'
    c1 = counters()
    assert c1[counter] == c0[counter] + 1, \
        f'{counter} {c0[counter]} -> {c1[counter]}'
    untouched()
    assert state(qp) == e.IBV_QPS_RTR, f'QP state {state(qp)}'
    return qp


# Real traffic between the two sroce devices, on their own QPs, all along.
if os.path.exists('/run/sroce-hostile-stop'):
    os.unlink('/run/sroce-hostile-stop')
traffic = subprocess.Popen(
    ['bash', '-c', f'''. {here}/lib.sh
        n=0
        while [ ! -e /run/sroce-hostile-stop ]; do
            pingpong ibv_rc_pingpong 2 sroce_h2 1 sroce_h1 4 {PEER} \
                -s 4096 -n 200 >/tmp/sroce-hostile-pp.log 2>&1 || {{
                cat /tmp/sroce-hostile-pp.log; echo "runs $n: FAILED"; exit 1; }}
            n=$((n + 1))
        done
        echo "runs $n"'''], stdout=subprocess.PIPE, text=True)


@t.case('the fake peer speaks RoCEv2: a WRITE in bounds is placed and ACKed')
def _():
    qp = victim()
    data = bytes(range(100, 132))
    peer.send(bth(WRITE_ONLY, EPSN) + reth(mr.buf + 4000, mr.rkey, 32) +
              data)
    got = peer.answers()
    assert got and got[0][0] == ACK and got[0][1] == EPSN and \
        got[0][2] < 0x20, f'answers {got}'
    assert mr.read(32, 4000) == data, 'data not placed'
    assert state(qp) == e.IBV_QPS_RTR


@t.case('a READ in bounds gets the MR\'s bytes back')
def _():
    victim()
    peer.send(bth(READ_REQ, EPSN) + reth(mr.buf + 100, mr.rkey, 8))
    got = peer.answers()
    assert got and got[0][:2] == (READ_RESP_ONLY, EPSN), f'answers {got}'


@t.case('forged QPN: dropped, rx_drop_no_qp')
def _():
    dropped(lambda: bth(WRITE_ONLY, EPSN, dqpn=0xabcdef) +
            reth(mr.buf, mr.rkey, 8) + bytes(8), 'rx_drop_no_qp')


@t.case('right QPN from another address: dropped, rx_drop_bad_addr')
def _():
    dropped(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 8) + bytes(8),
            'rx_drop_bad_addr', src='10.77.0.9')


@t.case('bad ICRC: dropped, rx_icrc_errors')
def _():
    dropped(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 8) + bytes(8),
            'rx_icrc_errors', icrc=b'\xde\xad\xbe\xef')


@t.case('pad longer than the payload: dropped, rx_drop_bad_length')
def _():
    dropped(lambda: bth(SEND_ONLY, EPSN, pad=3), 'rx_drop_bad_length')


@t.case('WRITE with a wrong rkey: NAK remote access, QP to error')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey ^ 0x80, 8) + bytes(8),
        NAK_ACCESS)


@t.case('WRITE past the MR\'s end: NAK remote access')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf + MR_LEN - 4, mr.rkey, 8) +
        bytes(8), NAK_ACCESS)


@t.case('WRITE before the MR\'s start: NAK remote access')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf - 8, mr.rkey, 8) + bytes(8),
        NAK_ACCESS)


@t.case('WRITE whose address + length wraps 2^64: NAK remote access')
def _():
    nak(lambda: bth(WRITE_FIRST, EPSN) + reth(2**64 - 512, mr.rkey, 0x7fffffff) +
        bytes(MTU), NAK_ACCESS)


@t.case('WRITE to an MR without remote write: NAK remote access')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr_ro.buf, mr_ro.rkey, 8) + bytes(8),
        NAK_ACCESS)


@t.case('WRITE with the rkey of another PD\'s MR: NAK remote access')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr_pd2.buf, mr_pd2.rkey, 8) +
        bytes(8), NAK_ACCESS)


@t.case('READ of 256 MiB from a 64 KiB MR: NAK remote access, no data')
def _():
    nak(lambda: bth(READ_REQ, EPSN) + reth(mr.buf, mr.rkey, 1 << 28), NAK_ACCESS)


@t.case('READ longer than 2^31: NAK invalid request')
def _():
    nak(lambda: bth(READ_REQ, EPSN) + reth(mr.buf, mr.rkey, 0x80000001),
        NAK_INVALID)


@t.case('atomic outside the MR: NAK remote access')
def _():
    nak(lambda: bth(FETCH_ADD, EPSN) + atmeth(mr.buf + MR_LEN, mr.rkey, 1),
        NAK_ACCESS)


@t.case('misaligned atomic: NAK invalid request')
def _():
    nak(lambda: bth(CMP_SWAP, EPSN) + atmeth(mr.buf + 4, mr.rkey, 1, 2),
        NAK_INVALID)


@t.case('atomic on an MR without remote atomic: NAK remote access')
def _():
    nak(lambda: bth(FETCH_ADD, EPSN) + atmeth(mr_ro.buf, mr_ro.rkey, 1),
        NAK_ACCESS)


@t.case('WRITE MIDDLE with no message open: NAK invalid request')
def _():
    nak(lambda: bth(WRITE_MIDDLE, EPSN) + bytes(MTU), NAK_INVALID)


@t.case('SEND LAST with no message open: NAK invalid request')
def _():
    nak(lambda: bth(SEND_LAST, EPSN) + bytes(8), NAK_INVALID, qp=victim(recv=1))


@t.case('WRITE ONLY carrying less than its RETH length: NAK invalid')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 64) + bytes(16),
        NAK_INVALID)


@t.case('WRITE FIRST shorter than the path MTU: NAK invalid request')
def _():
    nak(lambda: bth(WRITE_FIRST, EPSN) + reth(mr.buf, mr.rkey, 4 * MTU) +
        bytes(16), NAK_INVALID)


@t.case('pad making the payload shorter than the RETH says: NAK invalid')
def _():
    nak(lambda: bth(WRITE_ONLY, EPSN, pad=3) + reth(mr.buf, mr.rkey, 16) +
        bytes(16), NAK_INVALID)


@t.case('SEND larger than the receive buffer: NAK invalid request')
def _():
    nak(lambda: bth(SEND_ONLY, EPSN) + bytes(256), NAK_INVALID,
        qp=victim(recv=1))


@t.case('SEND with no receive posted: RNR NAK, the QP lives on')
def _():
    qp = victim()
    c0 = counters()
    peer.send(bth(SEND_ONLY, EPSN) + bytes(8))
    got = peer.answers()
    assert len(got) == 1 and got[0][:2] == (ACK, EPSN) and \
        got[0][2] & 0xe0 == 0x20, f'answers {got}'
    assert counters()['rc_rnr_naks_sent'] == c0['rc_rnr_naks_sent'] + 1
    assert state(qp) == e.IBV_QPS_RTR


@t.case('PSN far ahead: one NAK sequence error per gap, then resumes')
def _():
    qp = victim()
    far = bth(WRITE_ONLY, EPSN + 0x400000) + reth(mr.buf, mr.rkey, 8) + \
        bytes(8)
    nak(far, NAK_SEQ, qp=qp, counter='rc_seq_naks_sent')
    peer.send(far)
    assert not peer.answers(wait=0.5), 'a second NAK for the same gap'
    data = b'resumed!'
    peer.send(bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 8) + data)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN) and got[0][2] < 0x20, got
    assert mr.read(8, 0) == data
    assert state(qp) == e.IBV_QPS_RTR


@t.case('PSN behind (a duplicate): ACKed again, memory not written')
def _():
    qp = victim()
    c0 = counters()
    peer.send(bth(WRITE_ONLY, EPSN - 5) + reth(mr.buf, mr.rkey, 8) +
              b'dupdupdu')
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN - 1) and got[0][2] < 0x20, got
    assert counters()['rc_duplicate_requests'] == \
        c0['rc_duplicate_requests'] + 1
    untouched()
    assert state(qp) == e.IBV_QPS_RTR


def corrupt_dropped(packet):
    """@packet, sent with a bad ICRC, gets no answer and counts as corrupt.
    Returns the counters after it."""
    c0 = counters()
    peer.send(packet, icrc=BAD_ICRC)
    assert not peer.answers(wait=0.5), 'a corrupt packet was answered'
    c1 = counters()
    assert c1['rx_icrc_errors'] == c0['rx_icrc_errors'] + 1, moved(c0)
    return c1


def nothing_wrong_since(c1):
    """No corrupt, duplicate or unhandled packet and no NAK since @c1."""
    c2 = counters()
    for name in ('rx_icrc_errors', 'rc_seq_naks_sent',
                 'rc_duplicate_requests', 'rx_drop_unhandled'):
        assert c2[name] == c1[name], f'{name} moved: {moved(c1)}'


def write_opened(at, length, first):
    """A WRITE FIRST of @length bytes at mr.buf + @at, ACKed."""
    peer.send(bth(WRITE_FIRST, EPSN) + reth(mr.buf + at, mr.rkey, length) +
              first)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN) and got[0][2] < 0x20, got


# A WRITE's middle and last packets have their ICRC checked as they are
# copied (recv.c): a corrupt one must still be dropped, counted as corrupt
# and nothing else, unanswered, and leave no trace once the message is over.
@t.case('WRITE MIDDLE with a bad ICRC: dropped, the resent one placed')
def _():
    qp = victim()
    at, first, mid, last = 4096, b'\x11' * MTU, b'\x22' * MTU, b'\x33' * MTU
    write_opened(at, 3 * MTU, first)
    c1 = corrupt_dropped(bth(WRITE_MIDDLE, EPSN + 1, ackreq=0) +
                         b'\x5a' * MTU)
    peer.send(bth(WRITE_MIDDLE, EPSN + 1, ackreq=0) + mid)
    peer.send(bth(WRITE_LAST, EPSN + 2) + last)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN + 2) and got[0][2] < 0x20, got
    assert mr.read(3 * MTU, at) == first + mid + last, 'message not placed'
    end = at + 3 * MTU
    assert mr.read(at, 0) == PATTERN[:at] and \
        mr.read(MR_LEN - end, end) == PATTERN[end:], 'bytes outside changed'
    for m in (mr_ro, mr_pd2):
        assert m.read(MR_LEN, 0) == PATTERN, 'another MR changed'
    nothing_wrong_since(c1)
    assert state(qp) == e.IBV_QPS_RTR


@t.case('WRITE MIDDLE with a bad ICRC and a PSN ahead: no NAK, counted')
def _():
    qp = victim()
    write_opened(0, 3 * MTU, bytes(MTU))
    c0 = counters()
    peer.send(bth(WRITE_MIDDLE, EPSN + 2) + bytes(MTU), icrc=BAD_ICRC)
    assert not peer.answers(wait=0.5), 'a corrupt packet was answered'
    c1 = counters()
    assert c1['rx_icrc_errors'] == c0['rx_icrc_errors'] + 1 and \
        c1['rc_seq_naks_sent'] == c0['rc_seq_naks_sent'], moved(c0)
    assert state(qp) == e.IBV_QPS_RTR


@t.case('WRITE MIDDLE with a bad ICRC and a forged QPN: rx_icrc_errors only')
def _():
    victim()
    c0 = counters()
    peer.send(bth(WRITE_MIDDLE, EPSN, dqpn=0xabcdef) + bytes(MTU),
              icrc=BAD_ICRC)
    assert not peer.answers(wait=0.5)
    c1 = counters()
    assert c1['rx_icrc_errors'] == c0['rx_icrc_errors'] + 1 and \
        c1['rx_drop_no_qp'] == c0['rx_drop_no_qp'], moved(c0)
    untouched()


def send_opened(qp, buflen, first):
    """A receive of @buflen bytes at rbuf's start posted to @qp, and a SEND
    FIRST carrying @first, ACKed."""
    rbuf.write(PATTERN[:4096], 4096)
    qp.post_recv(RecvWR(num_sge=1, sg=[SGE(rbuf.buf, buflen, rbuf.lkey)]))
    peer.send(bth(SEND_FIRST, EPSN) + first)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN) and got[0][2] < 0x20, got


# So are a SEND's: the receive buffer ends up with the message, and past
# its end with what it had.
@t.case('SEND MIDDLE with a bad ICRC: dropped, the resent one placed')
def _():
    qp = victim()
    first, mid, last = b'\x11' * MTU, b'\x22' * MTU, b'\x33' * 512
    send_opened(qp, 4096, first)
    c1 = corrupt_dropped(bth(SEND_MIDDLE, EPSN + 1, ackreq=0) +
                         b'\x5a' * MTU)
    assert cq.poll()[0] == 0, 'a completion appeared'
    peer.send(bth(SEND_MIDDLE, EPSN + 1, ackreq=0) + mid)
    peer.send(bth(SEND_LAST, EPSN + 2) + last)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN + 2) and got[0][2] < 0x20, got
    msg = first + mid + last
    wcs = poll_one()
    assert len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and \
        wcs[0].opcode == e.IBV_WC_RECV and wcs[0].byte_len == len(msg), \
        f'completions {[(w.status, w.opcode, w.byte_len) for w in wcs]}'
    assert rbuf.read(len(msg), 0) == msg, 'message not placed'
    assert rbuf.read(4096 - len(msg), len(msg)) == PATTERN[len(msg):4096], \
        'bytes past the message changed'
    untouched()
    nothing_wrong_since(c1)
    assert state(qp) == e.IBV_QPS_RTR


# A corrupt packet that would overrun the receive buffer is only corrupt:
# the intact one gets the NAK and the error completion.
@t.case('SEND MIDDLE with a bad ICRC past the receive buffer: no NAK')
def _():
    qp = victim()
    send_opened(qp, MTU + 512, bytes(MTU))
    corrupt_dropped(bth(SEND_MIDDLE, EPSN + 1) + b'\x5a' * MTU)
    assert cq.poll()[0] == 0, 'a completion appeared'
    assert state(qp) == e.IBV_QPS_RTR
    nak(bth(SEND_MIDDLE, EPSN + 1) + bytes(MTU), NAK_INVALID, qp=qp,
        psn=EPSN + 1)
    wcs = poll_one()
    assert len(wcs) == 1 and wcs[0].status == e.IBV_WC_LOC_LEN_ERR, \
        f'completions {[(w.status, w.opcode) for w in wcs]}'


@t.case('READ response MIDDLE with a bad ICRC: dropped, the READ completes')
def _():
    qp = victim()
    rc_rts(qp, sq_psn=0x700, timeout=18, retry=7)	# ~1 s: Python is slow
    at, parts = 8192, [bytes([v]) * MTU for v in (0x44, 0x55, 0x66)]
    aeth = b'\x1f\x00\x00\x01'
    wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1,
                sg=[SGE(mr.buf + at, 3 * MTU, mr.lkey)])
    wr.set_wr_rdma(0x1234, 0x10000)	# the fake peer's memory: any
    c0 = counters()
    qp.post_send(wr)
    peer.send(bth(READ_RESP_FIRST, 0x700) + aeth + parts[0])
    peer.send(bth(READ_RESP_MIDDLE, 0x701) + b'\x5a' * MTU, icrc=BAD_ICRC)
    time.sleep(0.3)
    assert counters()['rx_icrc_errors'] == c0['rx_icrc_errors'] + 1, \
        moved(c0)
    assert cq.poll()[0] == 0, 'the READ completed early'
    peer.send(bth(READ_RESP_MIDDLE, 0x701) + parts[1])
    peer.send(bth(READ_RESP_LAST, 0x702) + aeth + parts[2])
    wcs = poll_one()
    assert len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS and \
        wcs[0].opcode == e.IBV_WC_RDMA_READ, \
        f'completions {[(w.status, w.opcode) for w in wcs]}'
    assert mr.read(3 * MTU, at) == b''.join(parts), 'READ data not placed'
    end = at + 3 * MTU
    assert mr.read(at, 0) == PATTERN[:at] and \
        mr.read(MR_LEN - end, end) == PATTERN[end:], 'bytes outside changed'
    assert counters()['rx_icrc_errors'] == c0['rx_icrc_errors'] + 1
    assert state(qp) == e.IBV_QPS_RTS


@t.case('unsolicited ACK and READ response: ignored, no completion')
def _():
    qp = victim()
    rc_rts(qp, sq_psn=0x500)
    c0 = counters()
    peer.send(bth(ACK, 0x500) + b'\x1f\x00\x00\x01')
    peer.send(bth(READ_RESP_ONLY, 0x4ff) + b'\x1f\x00\x00\x01' + bytes(8))
    assert not peer.answers(wait=0.5)
    assert cq.poll()[0] == 0, 'a completion appeared'
    assert state(qp) == e.IBV_QPS_RTS
    m = moved(c0)	# the traffic beside moves rx_ and tx_packets
    assert m.pop('rx_packets', 0) >= 2 and not m.pop('tx_packets', 0) < 0 \
        and not m, f'counters moved: {m}'
    untouched()


@t.case('UD SEND with the wrong Q_Key: dropped, rx_drop_qkey')
def _():
    qp = ud_qp(pd, cq, UD_QKEY)
    qp.post_recv(RecvWR(num_sge=1, sg=[SGE(rbuf.buf, 1024, rbuf.lkey)]))
    victims.append(qp)
    c0 = counters()
    deth = struct.pack('!IB3s', UD_QKEY ^ 1, 0, (FAKE_QPN).to_bytes(3, 'big'))
    peer.send(bth(UD_SEND_ONLY, 1, dqpn=qp.qp_num, ackreq=0) + deth +
              bytes(16))
    time.sleep(0.3)
    assert counters()['rx_drop_qkey'] == c0['rx_drop_qkey'] + 1
    assert cq.poll()[0] == 0, 'a completion appeared'


@t.case('IPv6: a WRITE in bounds is placed and ACKed, over IPv6')
def _():
    qp = victim(v6=True)
    data = bytes(range(60, 92))
    peer.send(bth(WRITE_ONLY, EPSN) + reth(mr.buf + 300, mr.rkey, 32) +
              data, dst=ME6)
    got = peer.answers()
    assert got and got[0][:2] == (ACK, EPSN) and got[0][2] < 0x20, \
        f'answers {got}'
    assert mr.read(32, 300) == data, 'data not placed'
    assert state(qp) == e.IBV_QPS_RTR


@t.case('IPv6: a wrong rkey gets NAK remote access; IPv4 to it is dropped')
def _():
    qp = victim(v6=True)
    c0 = counters()
    # the QP's peer is at PEER6: the same request over IPv4 is not its peer
    peer.send(bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 8) + bytes(8))
    assert not peer.answers(wait=0.5)
    assert counters()['rx_drop_bad_addr'] == c0['rx_drop_bad_addr'] + 1
    nak(lambda: bth(WRITE_ONLY, EPSN, dqpn=qp.qp_num) +
        reth(mr.buf, mr.rkey ^ 0x80, 8) + bytes(8), NAK_ACCESS, qp=qp,
        dst=ME6)


@t.case('IPv6 with an extension header: dropped, rx_drop_bad_ip')
def _():
    victim(v6=True)
    c0 = counters()
    p = Packet(PEER6, ME6, bth(WRITE_ONLY, EPSN) + reth(mr.buf, mr.rkey, 8) +
               bytes(8))
    frame = bytearray(p.frame(peer.dmac, peer.smac, p.icrc()))
    # a hop-by-hop options header (8 bytes, PadN) between IPv6 and UDP
    ip = 14
    hbh = bytes([17, 0, 1, 4, 0, 0, 0, 0])
    frame[ip + 6] = 0			# next header: hop-by-hop
    plen = struct.unpack('!H', frame[ip + 4:ip + 6])[0] + 8
    frame[ip + 4:ip + 6] = struct.pack('!H', plen)
    frame[ip + 40:ip + 40] = hbh
    peer.s.send(bytes(frame))
    assert not peer.answers(wait=0.5)
    time.sleep(0.2)
    assert counters()['rx_drop_bad_ip'] == c0['rx_drop_bad_ip'] + 1, \
        moved(c0)
    untouched()


@t.case('a READ asked for again: answered again, from memory, no more')
def _():
    qp = victim()
    req = bth(READ_REQ, EPSN) + reth(mr.buf + 64, mr.rkey, 2 * MTU)
    peer.send(req)
    first = peer.answers()
    assert [a[:2] for a in first] == [(READ_RESP_FIRST, EPSN),
                                     (0x0f, EPSN + 1)], f'answers {first}'
    c0 = counters()
    peer.send(req)			# the same READ: a duplicate
    again = peer.answers()
    assert [a[:2] for a in again] == [a[:2] for a in first], \
        f'answers {again}'
    # its second half only, asked for by PSN: the rest of the range
    peer.send(bth(READ_REQ, EPSN + 1) +
              reth(mr.buf + 64 + MTU, mr.rkey, MTU))
    assert [a[:2] for a in peer.answers()] == [(READ_RESP_ONLY, EPSN + 1)]
    # a duplicate asking for more than the READ it repeats: nothing
    peer.send(bth(READ_REQ, EPSN + 1) + reth(mr.buf, mr.rkey, 3 * MTU))
    assert not peer.answers(wait=0.5), 'a duplicate READ grew'
    assert counters()['rc_duplicate_requests'] >= \
        c0['rc_duplicate_requests'] + 3
    untouched()
    assert state(qp) == e.IBV_QPS_RTR


@t.case('an atomic asked for again: the same original value, done once')
def _():
    qp = victim()
    before = struct.unpack('<Q', mr.read(8, 512))[0]
    req = bth(FETCH_ADD, EPSN) + atmeth(mr.buf + 512, mr.rkey, 5)
    peer.send(req)
    got = peer.answers()
    assert got and got[0][:2] == (0x12, EPSN), f'answers {got}'
    peer.send(req)			# replayed
    again = peer.answers()
    assert again and again[0][:2] == (0x12, EPSN), f'answers {again}'
    after = struct.unpack('<Q', mr.read(8, 512))[0]
    assert after == (before + 5) % 2**64, f'{before:#x} -> {after:#x}'
    assert state(qp) == e.IBV_QPS_RTR


def requester():
    """A victim in RTS with one RDMA WRITE of 8 bytes outstanding at PSN
    0x900 (its peer does not exist: nothing answers it)."""
    qp = victim()
    rc_rts(qp, sq_psn=0x900, timeout=18, retry=7)
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(mr.buf, 8, mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(0x1234, 0x10000)
    qp.post_send(wr)
    return qp


@t.case('ACK, NAK and RNR NAK forged from another address: dropped')
def _():
    qp = requester()
    c0 = counters()
    for syn in (0x1f, NAK_ACCESS, 0x21):	# ACK, NAK, RNR NAK
        peer.send(bth(ACK, 0x900) + bytes([syn, 0, 0, 1]), src='10.77.0.9')
    time.sleep(0.3)
    assert counters()['rx_drop_bad_addr'] == c0['rx_drop_bad_addr'] + 3, \
        moved(c0)
    assert cq.poll()[0] == 0, 'a completion appeared'
    assert state(qp) == e.IBV_QPS_RTS


@t.case('ACK and NAK from the peer\'s address for PSNs never sent: ignored')
def _():
    qp = requester()
    for psn, syn in ((0x905, 0x1f), (0x8f0, NAK_ACCESS), (0x950, 0x21),
                     (0x123456, NAK_INVALID)):
        peer.send(bth(ACK, psn) + bytes([syn, 0, 0, 1]))
    time.sleep(0.3)
    assert cq.poll()[0] == 0, 'a completion appeared'
    assert state(qp) == e.IBV_QPS_RTS
    # the real answer still completes the WRITE
    peer.send(bth(ACK, 0x900) + b'\x1f\x00\x00\x01')
    wcs = poll_one()
    assert len(wcs) == 1 and wcs[0].status == e.IBV_WC_SUCCESS, \
        f'completions {[w.status for w in wcs]}'


@t.case('a WQE that fails locally behind one unanswered: that one is '
        'resent until ACKed and completes, then the failed one errs')
def _():
    qp = victim()
    rc_rts(qp, sq_psn=0xa00, timeout=18, retry=7)	# ~1 s
    good = SendWR(wr_id=1, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                  sg=[SGE(mr.buf, 8, mr.lkey)],
                  send_flags=e.IBV_SEND_SIGNALED)
    good.set_wr_rdma(0x1234, 0x10000)
    bad = SendWR(wr_id=2, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                 sg=[SGE(mr.buf, 8, mr.lkey ^ 0x80)],	# no such MR
                 send_flags=e.IBV_SEND_SIGNALED)
    bad.set_wr_rdma(0x1234, 0x10008)
    c0 = counters()
    qp.post_send(good)
    qp.post_send(bad)
    # The first WRITE went and got no answer: its ACK timer resends it,
    # failed WQE behind it or not.
    got = [a for a in peer.answers(wait=3.5) if a[1] == 0xa00]
    assert len(got) >= 2 and all(a[0] == WRITE_ONLY for a in got), \
        f'the WRITE went {len(got)} times in 3.5 s: {got}, ' \
        f'counters moved: {moved(c0)}'
    assert cq.poll()[0] == 0, 'a completion appeared before the ACK'
    peer.send(bth(ACK, 0xa00) + b'\x1f\x00\x00\x01')
    wcs, end = [], time.monotonic() + 5
    while len(wcs) < 2 and time.monotonic() < end:
        n, more = cq.poll()
        wcs += more[:n]
    assert [(w.wr_id, w.status) for w in wcs] == \
        [(1, e.IBV_WC_SUCCESS), (2, e.IBV_WC_LOC_PROT_ERR)], \
        f'completions {[(w.wr_id, w.status) for w in wcs]}'
    assert state(qp) == e.IBV_QPS_ERR, f'QP state {state(qp)}'


@t.case('UD to a multicast group no QP of the device joined: dropped')
def _():
    # A CQ of its own: the requesters of the cases before may still end
    # (retries exceeded) into the shared one.
    ucq = CQ(ctx, 4)
    qp = ud_qp(pd, ucq, UD_QKEY)
    qp.post_recv(RecvWR(num_sge=1, sg=[SGE(rbuf.buf, 1024, rbuf.lkey)]))
    victims.append(qp)
    c0 = counters()
    deth = struct.pack('!IB3s', UD_QKEY, 0, (FAKE_QPN).to_bytes(3, 'big'))
    peer.send(bth(UD_SEND_ONLY, 1, dqpn=0xffffff, ackreq=0) + deth +
              bytes(16), dst='224.0.0.1')
    time.sleep(0.3)
    assert counters()['rx_drop_no_qp'] == c0['rx_drop_no_qp'] + 1, \
        moved(c0)
    assert ucq.poll()[0] == 0, 'a completion appeared'


@t.case('200 hostile packets at one victim in a burst: the device lives')
def _():
    qp = victim()
    for i in range(200):
        peer.send(bth(WRITE_ONLY, EPSN + 0x400000 + i) +
                  reth(2**64 - 4, mr.rkey ^ i, 0xffffffff) + bytes(8))
        peer.send(bth(0x1f, EPSN, pad=i & 3) + bytes(i & 31))
    time.sleep(0.5)
    untouched()
    assert state(qp) in (e.IBV_QPS_RTR, e.IBV_QPS_ERR)
    assert 'ACTIVE' in sh(f'rdma link show {DEV}/1')


@t.case('real traffic on other QPs kept flowing throughout')
def _():
    open('/run/sroce-hostile-stop', 'w').close()
    out, _ = traffic.communicate(timeout=120)
    print('# ' + out.strip().replace('\n', '\n# '))
    assert traffic.returncode == 0, 'ibv_rc_pingpong failed'
    assert int(out.split()[-1]) >= 1, 'no pingpong run finished'


@t.case('every drop is on show in rdma statistic')
def _():
    print('# ' + sh(f'rdma statistic show link {DEV}/1').strip())
    c = counters()
    for name in ('rx_drop_no_qp', 'rx_drop_bad_addr', 'rx_icrc_errors',
                 'rx_drop_bad_length', 'rx_drop_bad_opcode', 'rx_drop_qkey',
                 'rc_seq_naks_sent', 'rc_rnr_naks_sent',
                 'rc_duplicate_requests'):
        assert c.get(name, 0) > 0, f'{name} is {c.get(name)}'


try:
    rc = t.run()
finally:
    if traffic.poll() is None:
        open('/run/sroce-hostile-stop', 'w').close()
        traffic.wait(timeout=120)
    for q in victims:
        q.close()
    for m in (mr, mr_ro, mr_pd2, rbuf):
        m.close()
    cq.close()
    pd2.close()
    pd.close()
    ctx.close()
sys.exit(rc)
