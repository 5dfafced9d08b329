#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mpi-check.py: an MPI job of two or more ranks (mpirun runs it): a
ping-pong between ranks 0 and 1 at sizes from 1 byte to 1 MiB, every
message's bytes checked on arrival; one-sided puts and gets between them
(an MPI window, fences), checked at the target and at the origin, unless
MPI_CHECK_RMA=0; and an allreduce (sum) of 64-bit vectors whose result
every rank checks. Rank 0 prints a line per part and
the half round trip of the 8-byte ping-pong; the job fails (exit 1) on
any mismatch.

In the selftests' hosts (network namespaces hN, each with its device
sroce_hN), a rank that is not told otherwise uses its own host's device:
in the RDMA subsystem's shared mode every namespace sees every device."""
import array
import os
import subprocess
import sys
import time

ns = subprocess.run(['ip', 'netns', 'identify', str(os.getpid())],
                    capture_output=True, text=True).stdout.strip()
if ns:
    os.environ.setdefault('UCX_NET_DEVICES', f'sroce_{ns}:1')

from mpi4py import MPI  # noqa: E402  (MPI_Init reads UCX_NET_DEVICES)

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
ITERS = 20
SIZES = [1, 8, 1000, 4096, 65536, 1 << 20]
errors = 0


BASE = bytes(range(256)) * (max(SIZES) // 256 + 2)


def payload(n, it, side):
    """The bytes of message @it of @n bytes from @side (0 or 1)."""
    k = (it * 37 + side * 101 + n) % 256
    return BASE[k:k + n]


def pingpong(n, iters):
    """@iters round trips of @n bytes, checked at both ends; returns the
    mean half round trip in usec (rank 0) and the mismatches seen."""
    bad = 0
    buf = bytearray(n)
    comm.Barrier()
    t0 = time.perf_counter()
    for it in range(iters):
        if rank == 0:
            comm.Send([payload(n, it, 0), MPI.BYTE], dest=1, tag=it)
            comm.Recv([buf, MPI.BYTE], source=1, tag=it)
            bad += bytes(buf) != payload(n, it, 1)
        elif rank == 1:
            comm.Recv([buf, MPI.BYTE], source=0, tag=it)
            bad += bytes(buf) != payload(n, it, 0)
            comm.Send([payload(n, it, 1), MPI.BYTE], dest=0, tag=it)
    return (time.perf_counter() - t0) / iters / 2 * 1e6, bad


for n in SIZES:
    usec, bad = pingpong(n, ITERS)
    bad = comm.allreduce(bad, op=MPI.SUM)
    errors += bad
    if rank == 0:
        print(f'ping-pong {n} bytes: {ITERS} round trips, '
              f'{bad} mismatched, {usec:.1f} usec half round trip')

usec, bad = pingpong(8, 500)
errors += comm.allreduce(bad, op=MPI.SUM)
if rank == 0:
    print(f'latency 8 bytes: {usec:.2f} usec')

# One-sided: rank 0 puts into rank 1's window (checked there), and gets
# from it what rank 1 wrote there itself (checked at rank 0).
rma = os.environ.get('MPI_CHECK_RMA', '1') != '0'
win_buf = bytearray(max(SIZES))
win = MPI.Win.Create(win_buf, comm=comm)
for n in SIZES if rma else []:
    bad = 0
    win.Fence()
    if rank == 0:
        win.Put([payload(n, 1, 0), MPI.BYTE], 1)
    win.Fence()
    if rank == 1:
        bad += bytes(win_buf[:n]) != payload(n, 1, 0)
        win_buf[:n] = payload(n, 2, 1)
    win.Fence()
    got = bytearray(n)
    if rank == 0:
        win.Get([got, MPI.BYTE], 1)
    win.Fence()
    if rank == 0:
        bad += bytes(got) != payload(n, 2, 1)
    bad = comm.allreduce(bad, op=MPI.SUM)
    errors += bad
    if rank == 0:
        print(f'put and get {n} bytes: {bad} mismatched')
win.Free()

N = 100000
for rnd in range(3):
    mine = array.array('q', (rank * 1000003 + i * (rnd + 1)
                             for i in range(N)))
    got = array.array('q', bytes(8 * N))
    comm.Allreduce([mine, MPI.INT64_T], [got, MPI.INT64_T], op=MPI.SUM)
    ranks = sum(range(size))
    bad = sum(1 for i in range(N)
              if got[i] != ranks * 1000003 + size * i * (rnd + 1))
    bad = comm.allreduce(bad, op=MPI.SUM)
    errors += bad
    if rank == 0:
        print(f'allreduce of {N} int64 over {size} ranks, round {rnd}: '
              f'{bad} wrong')

if rank == 0:
    print(f'mpi-check: {"FAILED" if errors else "ok"} ({errors} errors)')
sys.exit(1 if errors else 0)
