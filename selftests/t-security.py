#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-security.py: what keys open, through unmodified pyverbs on one device
(RC loopback): a peer reaches memory only through a valid rkey, within its
MR and its rights; an lkey or rkey of another process's MR, or of another
PD's, opens nothing (the other process's memory is compared byte for
byte); a deregistered MR's rkey is refused by the very next request; an
unprivileged user can open the device and move data but can neither add
nor delete a link. (hostile.py sends such requests as raw packets.)"""
import os
import shutil
import subprocess
import sys
import tempfile

from ktap import Tests, sh
from roce import ipv4_gid, poll_cq, rc_connect, rc_qp

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.cq import CQ  # noqa: E402
from pyverbs.device import Context  # noqa: E402
from pyverbs.mr import MR  # noqa: E402
from pyverbs.pd import PD  # noqa: E402
from pyverbs.wr import SGE, SendWR  # noqa: E402

here = os.path.dirname(os.path.realpath(__file__))
DEV = 'sroce0'
sh(f'rdma link add {DEV} type sroce netdev eth0')
ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
LEN = 1 << 16
PATTERN = bytes((i * 13 + 5) & 0xff for i in range(LEN))

ctx = Context(name=DEV)
gidx, gid = ipv4_gid(ctx)
pd = PD(ctx)
pd2 = PD(ctx)
cq = CQ(ctx, 256)
src = MR(pd, LEN, ACC)		# what requests send from and read into
mr = MR(pd, LEN, ACC)		# the target
mr_local = MR(pd, LEN, e.IBV_ACCESS_LOCAL_WRITE)
mr_pd2 = MR(pd2, LEN, ACC)
objs = []

# Another process with an MR of its own, full rights: it prints its
# address and keys, then on "check" says whether its memory is intact.
OTHER = f'''
import sys
import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
pattern = bytes((i * 13 + 5) & 0xff for i in range({LEN}))
ctx = Context(name="{DEV}")
pd = PD(ctx)
mr = MR(pd, {LEN}, {int(ACC)})
mr.write(pattern, {LEN})
print(mr.buf, mr.lkey, mr.rkey, flush=True)
sys.stdin.readline()
print("intact" if mr.read({LEN}, 0) == pattern else "changed", flush=True)
'''
other = subprocess.Popen([sys.executable, '-c', OTHER], text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
o_addr, o_lkey, o_rkey = map(int, other.stdout.readline().split())


def pair():
    a, b = rc_qp(pd, cq, ACC), rc_qp(pd, cq, ACC)
    rc_connect(a, b.qp_num, gid, gidx)
    rc_connect(b, a.qp_num, gid, gidx)
    objs.extend((a, b))
    return a, b


def post(opcode, lkey, rkey, addr, length=64, laddr=None):
    """One WR on a fresh pair; its completion status."""
    a, _ = pair()
    for m in (mr, mr_local, mr_pd2):
        m.write(PATTERN, LEN)
    wr = SendWR(wr_id=1, opcode=opcode, num_sge=1,
                sg=[SGE(src.buf if laddr is None else laddr, length, lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    if opcode in (e.IBV_WR_ATOMIC_FETCH_AND_ADD,
                  e.IBV_WR_ATOMIC_CMP_AND_SWP):
        wr.set_wr_atomic(rkey, addr, 1, 0)
    else:
        wr.set_wr_rdma(rkey, addr)
    a.post_send(wr)
    w, = poll_cq(cq, 1)
    return w.status


def expect(status, want):
    assert status == want, f'status {status}, wanted {want}'


def intact(*mrs):
    for m in mrs:
        assert m.read(LEN, 0) == PATTERN, 'memory behind a refused key changed'


@t.case('a valid rkey within its MR and rights: WRITE, READ, atomic work')
def _():
    src.write(b'\x5a' * LEN, LEN)
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, mr.rkey, mr.buf + 64),
           e.IBV_WC_SUCCESS)
    assert mr.read(64, 64) == b'\x5a' * 64
    expect(post(e.IBV_WR_RDMA_READ, src.lkey, mr.rkey, mr.buf + 128),
           e.IBV_WC_SUCCESS)
    assert src.read(64, 0) == PATTERN[128:192]
    expect(post(e.IBV_WR_ATOMIC_FETCH_AND_ADD, src.lkey, mr.rkey, mr.buf,
                length=8), e.IBV_WC_SUCCESS)


@t.case('one byte past the MR, or before it: REM_ACCESS_ERR, untouched')
def _():
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, mr.rkey, mr.buf + LEN - 63),
           e.IBV_WC_REM_ACCESS_ERR)
    intact(mr)
    expect(post(e.IBV_WR_RDMA_READ, src.lkey, mr.rkey, mr.buf - 1),
           e.IBV_WC_REM_ACCESS_ERR)
    intact(mr)


@t.case('an MR without the remote right: WRITE, READ, atomic refused')
def _():
    for op, n in ((e.IBV_WR_RDMA_WRITE, 64), (e.IBV_WR_RDMA_READ, 64),
                  (e.IBV_WR_ATOMIC_CMP_AND_SWP, 8)):
        expect(post(op, src.lkey, mr_local.rkey, mr_local.buf, length=n),
               e.IBV_WC_REM_ACCESS_ERR)
        intact(mr_local)


@t.case('another PD\'s rkey: REM_ACCESS_ERR; its lkey: LOC_PROT_ERR')
def _():
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, mr_pd2.rkey, mr_pd2.buf),
           e.IBV_WC_REM_ACCESS_ERR)
    expect(post(e.IBV_WR_RDMA_WRITE, mr_pd2.lkey, mr.rkey, mr.buf,
                laddr=mr_pd2.buf), e.IBV_WC_LOC_PROT_ERR)
    expect(post(e.IBV_WR_RDMA_READ, mr_pd2.lkey, mr.rkey, mr.buf,
                laddr=mr_pd2.buf), e.IBV_WC_LOC_PROT_ERR)
    intact(mr, mr_pd2)


@t.case('another process\'s rkey and lkey open nothing; its memory intact')
def _():
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, o_rkey, o_addr),
           e.IBV_WC_REM_ACCESS_ERR)
    expect(post(e.IBV_WR_ATOMIC_FETCH_AND_ADD, src.lkey, o_rkey, o_addr,
                length=8), e.IBV_WC_REM_ACCESS_ERR)
    # Its lkey names its MR, at its address (not mapped here: must not
    # matter, the key is refused before any byte is touched).
    expect(post(e.IBV_WR_RDMA_READ, o_lkey, mr.rkey, mr.buf,
                laddr=o_addr), e.IBV_WC_LOC_PROT_ERR)
    other.stdin.write('check\n')
    other.stdin.flush()
    said = other.stdout.readline().strip()
    assert said == 'intact', f'the other process says: {said}'
    assert other.wait(timeout=30) == 0


@t.case('a deregistered MR\'s rkey is refused by the very next request')
def _():
    m = MR(pd, LEN, ACC)
    addr, rkey = m.buf, m.rkey
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, rkey, addr),
           e.IBV_WC_SUCCESS)
    m.close()
    expect(post(e.IBV_WR_RDMA_WRITE, src.lkey, rkey, addr),
           e.IBV_WC_REM_ACCESS_ERR)
    m2 = MR(pd, LEN, ACC)
    objs.insert(0, m2)
    assert rkey not in (m2.rkey, m2.lkey), 'a new MR took the dead key'
    expect(post(e.IBV_WR_RDMA_READ, src.lkey, rkey, addr),
           e.IBV_WC_REM_ACCESS_ERR)


@t.case('keys do not follow one another: 64 MRs in a row, random key bytes')
def _():
    ms = [MR(pd, 4096, ACC) for _ in range(64)]
    try:
        low = [m.rkey & 0xff for m in ms]
        steps = {(b - a) & 0xff for a, b in zip(low, low[1:])}
        # A counter gives one step; 64 random bytes, about 56 values.
        assert len(steps) > 8 and len(set(low)) > 24, \
            f'the key bytes follow a pattern: {low}'
    finally:
        for m in ms:
            m.close()


UNPRIV = f'''
import sys
sys.path.insert(0, sys.argv[1])
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.wr import SGE, SendWR
from roce import ipv4_gid, poll_cq, rc_connect, rc_qp
acc = {int(ACC)}
ctx = Context(name="{DEV}")
gidx, gid = ipv4_gid(ctx)
pd = PD(ctx)
cq = CQ(ctx, 16)
a, b = rc_qp(pd, cq, acc), rc_qp(pd, cq, acc)
rc_connect(a, b.qp_num, gid, gidx)
rc_connect(b, a.qp_num, gid, gidx)
x, y = MR(pd, 4096, acc), MR(pd, 4096, acc)
x.write(b"unprivileged" * 8, 96)
wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[SGE(x.buf, 96, x.lkey)],
            send_flags=e.IBV_SEND_SIGNALED)
wr.set_wr_rdma(y.rkey, y.buf)
a.post_send(wr)
w, = poll_cq(cq, 1)
assert w.status == e.IBV_WC_SUCCESS, w.status
assert y.read(96, 0) == b"unprivileged" * 8
print("moved 96 bytes")
'''


def as_nobody(*cmd):
    return subprocess.run(['setpriv', '--reuid=65534', '--regid=65534',
                           '--clear-groups', *cmd],
                          capture_output=True, text=True)


@t.case('an unprivileged user opens the device and moves data')
def _():
    d = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(here, 'roce.py'), d)
        os.chmod(d, 0o755)
        r = as_nobody('ibv_devinfo', '-d', DEV)
        assert r.returncode == 0 and 'PORT_ACTIVE' in r.stdout, r.stderr
        r = as_nobody(sys.executable, '-c', UNPRIV, d)
        assert r.returncode == 0 and 'moved 96 bytes' in r.stdout, \
            r.stdout + r.stderr
    finally:
        shutil.rmtree(d)


@t.case('an unprivileged user can neither add nor delete a link')
def _():
    r = as_nobody('rdma', 'link', 'add', 'sroce9', 'type', 'sroce',
                  'netdev', 'eth0')
    assert r.returncode != 0 and 'not permitted' in r.stderr, \
        (r.returncode, r.stderr)
    assert 'sroce9' not in sh('rdma link show')
    r = as_nobody('rdma', 'link', 'delete', DEV)
    assert r.returncode != 0 and 'not permitted' in r.stderr, \
        (r.returncode, r.stderr)
    assert f'link {DEV}/1' in sh('rdma link show')


@t.case('everything destroyed cleanly, the device deleted')
def _():
    for o in reversed(objs):
        o.close()
    for o in (mr_pd2, mr_local, mr, src, cq, pd2, pd, ctx):
        o.close()
    sh(f'rdma link delete {DEV}')


sys.exit(t.run())
