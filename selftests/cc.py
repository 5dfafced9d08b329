#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""cc.py: sampling and arithmetic for t-dcqcn.sh (congestion control).

  cc.py sample --out FILE --bottleneck DEV [--handle H] [--interval S] PORT...
      Run in the bridge's namespace: every S seconds (0.1) append one line
      "t rx_bytes(PORT)... tx_bytes(DEV) backlog qlen drops marked early
      pdrop" to FILE (t in seconds, monotonic; counters cumulative), the
      byte counters from sysfs, the queue of DEV's qdisc with handle H
      (RED: backlog in bytes, packets, drops, ECN marks, early and limit
      drops) from one netlink dump, no exec. Until SIGTERM or SIGINT.

  cc.py analyze FILE --rate MBIT --kmin BYTES --kmax BYTES [--settle S]
                [--dat OUT]
      The run in FILE as shell assignments (name=value), for eval: each
      flow's span (first and last sample above 5% of the bottleneck
      rate), the window in which all flows were active and its steady
      part (from --settle seconds after the last flow started to the first
      end), and over that part: each flow's rate, the bottleneck's output
      rate and utilisation, Jain's fairness index, the queue (mean, 90th
      percentile, share of samples at most Kmax and within [Kmin, Kmax]);
      the same for the window before the last flow joined; drops and
      marks over the whole run; the last flow's convergence time. --dat
      writes the time series for plotting: t, each flow's rate and the
      total (Mbit/s), backlog (KB), drops, marks.

Rates are L2 (bytes as the veth counts them, Ethernet header included),
as htb counts them. A flow's rate is what its sender put on the wire
(the bridge port's rx_bytes): with no drops that is what crossed the
bottleneck; with drops it includes what was dropped and resent.
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time

RTM_GETQDISC = 38
NLM_F_REQUEST = 1
NLM_F_DUMP = 0x300
NLMSG_DONE = 3
NLMSG_ERROR = 2
TCA_KIND = 1
TCA_STATS2 = 7
TCA_STATS_QUEUE = 3
TCA_STATS_APP = 4


def attrs(buf):
    """Yield (type, payload) of the rtattrs in buf."""
    off = 0
    while off + 4 <= len(buf):
        ln, ty = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        yield ty & 0x3FFF, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


class QdiscStats:
    """One qdisc's queue and RED counters, by netlink dump."""

    def __init__(self, ifindex, handle):
        self.ifindex = ifindex
        self.handle = handle
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.seq = 0

    def read(self):
        """(backlog, qlen, drops, marked, early, pdrop), or Nones."""
        self.seq += 1
        tcm = struct.pack("BBHiIII", socket.AF_UNSPEC, 0, 0, 0, 0, 0, 0)
        hdr = struct.pack("IHHII", 16 + len(tcm), RTM_GETQDISC,
                          NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0)
        self.sock.send(hdr + tcm)
        found = (None,) * 6
        done = False
        while not done:
            data = self.sock.recv(65536)
            off = 0
            while off + 16 <= len(data):
                ln, ty, _, seq, _ = struct.unpack_from("IHHII", data, off)
                if ln < 16:
                    done = True
                    break
                msg = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if ty in (NLMSG_DONE, NLMSG_ERROR):
                    done = True
                    break
                _, _, _, ifi, handle, _, _ = struct.unpack_from("BBHiIII",
                                                                msg)
                if ifi != self.ifindex or handle != self.handle:
                    continue
                q = app = None
                for aty, pay in attrs(msg[20:]):
                    if aty != TCA_STATS2:
                        continue
                    for sty, spay in attrs(pay):
                        if sty == TCA_STATS_QUEUE:
                            q = struct.unpack_from("IIIII", spay)
                        elif sty == TCA_STATS_APP and len(spay) >= 16:
                            app = struct.unpack_from("IIII", spay)
                if q:
                    # gnet_stats_queue: qlen backlog drops requeues
                    # overlimits; tc_red_xstats: early pdrop other marked
                    early, pdrop, _, marked = app or (None,) * 4
                    found = (q[1], q[0], q[2], marked, early, pdrop)
        return found


def read_counter(path):
    with open(path) as f:
        return int(f.read())


def sample(args):
    stop = []
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: stop.append(1))
    net = "/sys/class/net"
    files = ["%s/%s/statistics/rx_bytes" % (net, p) for p in args.ports]
    files.append("%s/%s/statistics/tx_bytes" % (net, args.bottleneck))
    major, _, minor = args.handle.partition(":")
    handle = int(major, 16) << 16 | int(minor or "0", 16)
    qd = QdiscStats(read_counter("%s/%s/ifindex" % (net, args.bottleneck)),
                    handle)
    t0 = time.monotonic()
    nxt = t0
    with open(args.out, "w") as out:
        while not stop:
            t = time.monotonic()
            vals = [read_counter(f) for f in files]
            vals += ["-" if v is None else v for v in qd.read()]
            out.write("%.4f %s\n" % (t - t0, " ".join(map(str, vals))))
            out.flush()
            nxt += args.interval
            delay = nxt - time.monotonic()
            if delay < 0:       # fell behind (TCG): do not catch up
                nxt = time.monotonic()
                delay = 0
            time.sleep(delay)


def load(path, nflows):
    rows = []
    with open(path) as f:
        for line in f:
            v = line.split()
            if len(v) != nflows + 8:
                continue            # a line cut short by the kill
            rows.append([float(x) if x != "-" else 0.0 for x in v])
    return rows


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 0.0


def window(rows, nflows, a, b, cap, kmin, kmax, prefix, active=None):
    """Assignments for the samples in [a, b]; Jain's index over the first
    @active flows (default all)."""
    w = [r for r in rows if a <= r[0] <= b]
    out = {}
    if len(w) < 3:
        out[prefix + "samples"] = len(w)
        return out
    dt = w[-1][0] - w[0][0]
    rates = [(w[-1][1 + i] - w[0][1 + i]) * 8 / dt / 1e6
             for i in range(nflows)]
    outrate = (w[-1][1 + nflows] - w[0][1 + nflows]) * 8 / dt / 1e6
    back = sorted(r[2 + nflows] for r in w)
    out[prefix + "samples"] = len(w)
    out[prefix + "from"] = "%.2f" % a
    out[prefix + "to"] = "%.2f" % b
    for i, x in enumerate(rates):
        out["%srate%d" % (prefix, i + 1)] = "%.2f" % x
    out[prefix + "out"] = "%.2f" % outrate
    out[prefix + "util"] = "%.3f" % (outrate / cap)
    out[prefix + "jain"] = "%.3f" % jain(rates[:active or nflows])
    out[prefix + "q_mean"] = "%.0f" % (sum(back) / len(back))
    out[prefix + "q_p90"] = "%.0f" % back[min(len(back) - 1,
                                              int(0.9 * len(back)))]
    out[prefix + "q_max"] = "%.0f" % back[-1]
    out[prefix + "q_le_kmax"] = "%.3f" % (
        sum(1 for q in back if q <= kmax) / len(back))
    out[prefix + "q_in_band"] = "%.3f" % (
        sum(1 for q in back if kmin <= q <= kmax) / len(back))
    out[prefix + "drops"] = "%d" % (w[-1][4 + nflows] - w[0][4 + nflows])
    out[prefix + "marks"] = "%d" % (w[-1][5 + nflows] - w[0][5 + nflows])
    return out


def analyze(args):
    nf = args.flows
    rows = load(args.file, nf)
    res = {"samples": len(rows)}
    if len(rows) < 10:
        res["ok"] = 0
        emit(res)
        return
    cap = args.rate
    # per-sample rates (Mbit/s)
    series = []
    for p, r in zip(rows, rows[1:]):
        dt = r[0] - p[0]
        if dt <= 0:
            continue
        rates = [(r[1 + i] - p[1 + i]) * 8 / dt / 1e6 for i in range(nf)]
        series.append((r[0], rates, r, p))
    res["interval_mean"] = "%.3f" % ((rows[-1][0] - rows[0][0]) /
                                     (len(rows) - 1))
    thr = 0.05 * cap
    spans = []
    for i in range(nf):
        act = [t for t, rates, _, _ in series if rates[i] > thr]
        spans.append((act[0], act[-1]) if act else None)
        res["start%d" % (i + 1)] = "%.2f" % act[0] if act else "-"
        res["end%d" % (i + 1)] = "%.2f" % act[-1] if act else "-"
    res["drops"] = "%d" % (rows[-1][4 + nf] - rows[0][4 + nf])
    res["marks"] = "%d" % (rows[-1][5 + nf] - rows[0][5 + nf])
    res["early"] = "%d" % (rows[-1][6 + nf] - rows[0][6 + nf])
    res["pdrop"] = "%d" % (rows[-1][7 + nf] - rows[0][7 + nf])
    res["q_max_run"] = "%.0f" % max(r[2 + nf] for r in rows)
    if all(spans):
        last = max(s[0] for s in spans)
        end = min(s[1] for s in spans)
        first_end = min(s[1] for s in spans[:-1])
        early_start = max(s[0] for s in spans[:-1])
        res["all_from"] = "%.2f" % last
        res["all_len"] = "%.2f" % (end - last)
        res.update(window(rows, nf, last + args.settle, end - 0.2, cap,
                          args.kmin, args.kmax, "st_"))
        # before the last flow joined: its second half
        a = early_start + (last - early_start) / 2
        res.update(window(rows, nf, max(a, early_start + 0.5),
                          min(last, first_end) - 0.2, cap, args.kmin,
                          args.kmax, "pre_", nf - 1))
        # the last flow's convergence: the first sample after which its
        # 1 s trailing mean stays at least 80% of the fair share for 2 s
        # (or to the end of the window)
        fair = cap / nf
        res["fair"] = "%.2f" % fair
        conv = None
        tr = [r for r in rows if last - 1 <= r[0] <= end]

        def trailing(k):
            j = k
            while j > 0 and tr[k][0] - tr[j - 1][0] <= 1.0:
                j -= 1
            dt = tr[k][0] - tr[j][0]
            if dt < 0.5:
                return None
            return (tr[k][nf] - tr[j][nf]) * 8 / dt / 1e6

        ok_from = None
        for k in range(len(tr)):
            if tr[k][0] < last:
                continue
            m = trailing(k)
            if m is not None and m >= 0.8 * fair:
                if ok_from is None:
                    ok_from = tr[k][0]
                if tr[k][0] - ok_from >= 2.0 or k == len(tr) - 1:
                    conv = ok_from - last
                    break
            else:
                ok_from = None
        res["conv"] = "%.2f" % conv if conv is not None else "-"
    res["ok"] = 1 if all(spans) else 0
    emit(res)
    if args.dat:
        with open(args.dat, "w") as f:
            f.write("# t " + " ".join("flow%d" % (i + 1) for i in range(nf)) +
                    " total_out backlog_kb drops marks\n")
            for t, rates, r, p in series:
                out = (r[1 + nf] - p[1 + nf]) * 8 / (r[0] - p[0]) / 1e6
                f.write("%.3f %s %.2f %.1f %d %d\n" % (
                    t, " ".join("%.2f" % x for x in rates), out,
                    r[2 + nf] / 1000, r[4 + nf] - rows[0][4 + nf],
                    r[5 + nf] - rows[0][5 + nf]))


def emit(res):
    for k, v in res.items():
        print("%s=%s" % (k, v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--out", required=True)
    s.add_argument("--bottleneck", required=True)
    s.add_argument("--handle", default="10:")
    s.add_argument("--interval", type=float, default=0.1)
    s.add_argument("ports", nargs="+")
    a = sub.add_parser("analyze")
    a.add_argument("file")
    a.add_argument("--flows", type=int, default=3)
    a.add_argument("--rate", type=float, required=True, help="Mbit/s")
    a.add_argument("--kmin", type=float, required=True, help="bytes")
    a.add_argument("--kmax", type=float, required=True, help="bytes")
    a.add_argument("--settle", type=float, default=3.0)
    a.add_argument("--dat")
    args = ap.parse_args()
    if args.cmd == "sample":
        sample(args)
    else:
        analyze(args)


if __name__ == "__main__":
    sys.exit(main())
