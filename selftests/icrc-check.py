#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""icrc-check.py: check the ICRC of every RoCEv2 packet in a capture.

usage: icrc-check.py [--want-src IP]... FILE
       icrc-check.py --flip FILE OUT

Reads a classic pcap (microsecond or nanosecond, either byte order) or a
pcapng file of Ethernet frames (tcpdump -i IFACE -w FILE), takes every
IPv4 or IPv6 UDP datagram to port 4791 and recomputes its ICRC with
inject.py's icrc() (zlib's CRC-32, independent of sroce's code). Prints
the packets per source address, and per BTH opcode under each, each bad
one, and a total line.

Fails (exit 1) on any bad ICRC, on a datagram too short to hold a BTH and
an ICRC, on no RoCEv2 packet at all, or when a source given with
--want-src sent none.

--flip copies FILE to OUT with one bit flipped in the first RoCEv2
packet's BTH (its destination QP), for proving that a check fails.
"""
import ipaddress
import os
import struct
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from inject import ROCE_PORT, icrc  # noqa: E402

LINKTYPE_ETHERNET = 1

OPCODES = {
    0x00: 'SEND_FIRST', 0x01: 'SEND_MIDDLE', 0x02: 'SEND_LAST',
    0x03: 'SEND_LAST_IMM', 0x04: 'SEND_ONLY', 0x05: 'SEND_ONLY_IMM',
    0x06: 'RDMA_WRITE_FIRST', 0x07: 'RDMA_WRITE_MIDDLE',
    0x08: 'RDMA_WRITE_LAST', 0x09: 'RDMA_WRITE_LAST_IMM',
    0x0a: 'RDMA_WRITE_ONLY', 0x0b: 'RDMA_WRITE_ONLY_IMM',
    0x0c: 'RDMA_READ_REQUEST', 0x0d: 'RDMA_READ_RESPONSE_FIRST',
    0x0e: 'RDMA_READ_RESPONSE_MIDDLE', 0x0f: 'RDMA_READ_RESPONSE_LAST',
    0x10: 'RDMA_READ_RESPONSE_ONLY', 0x11: 'ACKNOWLEDGE',
    0x12: 'ATOMIC_ACKNOWLEDGE', 0x13: 'COMPARE_SWAP', 0x14: 'FETCH_ADD',
    0x16: 'SEND_LAST_INV', 0x17: 'SEND_ONLY_INV',
}
TRANSPORTS = {0x00: 'RC', 0x20: 'UC', 0x40: 'RD', 0x60: 'UD', 0x80: 'CNP'}


def opcode_name(op):
    if op == 0x81:
        return 'CNP'
    name = OPCODES.get(op & 0x1f, f'0x{op & 0x1f:02x}')
    return f'{TRANSPORTS.get(op & 0xe0, f"0x{op & 0xe0:02x}")}_{name}'


def pcap_records(data):
    """(offset of the frame in data, frame bytes) for each Ethernet frame
    of a classic pcap or pcapng file."""
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        end = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        end = '>'
    elif magic == b'\x0a\x0d\x0d\x0a':
        yield from pcapng_records(data)
        return
    else:
        raise ValueError('not a pcap or pcapng file')
    linktype = struct.unpack(end + 'I', data[20:24])[0] & 0x0fffffff
    if linktype != LINKTYPE_ETHERNET:
        raise ValueError(f'link type {linktype}, not Ethernet')
    off = 24
    while off + 16 <= len(data):
        caplen, wirelen = struct.unpack(end + 'II', data[off + 8:off + 16])
        if caplen < wirelen:
            raise ValueError(f'frame at {off} cut to {caplen} of '
                             f'{wirelen} bytes: capture with -s 0')
        yield off + 16, data[off + 16:off + 16 + caplen]
        off += 16 + caplen


def pcapng_records(data):
    off, end, linktypes = 0, '<', []
    while off + 12 <= len(data):
        btype = data[off:off + 4]
        if btype == b'\x0a\x0d\x0d\x0a':
            end = '<' if data[off + 8:off + 12] == b'\x4d\x3c\x2b\x1a' else '>'
            linktypes = []
        btype, blen = struct.unpack(end + 'II', data[off:off + 8])
        body = off + 8
        if btype == 1:			# interface description
            linktypes.append(struct.unpack(end + 'H', data[body:body + 2])[0])
        elif btype == 6:		# enhanced packet
            ifid, _, _, caplen, wirelen = struct.unpack(
                end + 'IIIII', data[body:body + 20])
            if linktypes[ifid] != LINKTYPE_ETHERNET:
                raise ValueError(f'link type {linktypes[ifid]}, not Ethernet')
            if caplen < wirelen:
                raise ValueError(f'frame at {body + 20} cut to {caplen} of '
                                 f'{wirelen} bytes: capture with -s 0')
            yield body + 20, data[body + 20:body + 20 + caplen]
        elif btype == 3:		# simple packet
            if linktypes[0] != LINKTYPE_ETHERNET:
                raise ValueError(f'link type {linktypes[0]}, not Ethernet')
            wirelen = struct.unpack(end + 'I', data[body:body + 4])[0]
            yield body + 4, data[body + 4:body + 4 + wirelen]
        if blen < 12:
            raise ValueError(f'bad pcapng block length at {off}')
        off += blen


def roce(frame):
    """(source address, IP header, UDP header, UDP payload, offset of the
    UDP payload in frame) of a RoCEv2 datagram, or None."""
    etype, off = struct.unpack('!H', frame[12:14])[0], 14
    while etype in (0x8100, 0x88a8):		# VLAN tags
        etype = struct.unpack('!H', frame[off + 2:off + 4])[0]
        off += 4
    if etype == 0x0800:
        if len(frame) < off + 20:
            return None
        ihl = (frame[off] & 0x0f) * 4
        total = struct.unpack('!H', frame[off + 2:off + 4])[0]
        frag = struct.unpack('!H', frame[off + 6:off + 8])[0] & 0x3fff
        if frame[off + 9] != 17 or frag:
            return None
        src = ipaddress.ip_address(frame[off + 12:off + 16])
        ip, udp_off, ip_end = frame[off:off + ihl], off + ihl, off + total
    elif etype == 0x86dd:
        if len(frame) < off + 40 or frame[off + 6] != 17:
            return None
        plen = struct.unpack('!H', frame[off + 4:off + 6])[0]
        src = ipaddress.ip_address(frame[off + 8:off + 24])
        ip, udp_off, ip_end = frame[off:off + 40], off + 40, off + 40 + plen
    else:
        return None
    udp = frame[udp_off:udp_off + 8]
    if len(udp) < 8 or struct.unpack('!H', udp[2:4])[0] != ROCE_PORT:
        return None
    # Trim by the UDP length: Ethernet may pad a short frame.
    ulen = struct.unpack('!H', udp[4:6])[0]
    if ulen < 8 or udp_off + ulen > min(ip_end, len(frame)):
        raise ValueError(f'UDP length {ulen} beyond the packet')
    return src, ip, udp, frame[udp_off + 8:udp_off + ulen], udp_off + 8


def check(path, want):
    with open(path, 'rb') as f:
        data = f.read()
    ops, srcs, bad, n = Counter(), Counter(), 0, 0
    for i, (_, frame) in enumerate(pcap_records(data), 1):
        r = roce(frame)
        if r is None:
            continue
        src, ip, udp, payload, _ = r
        n += 1
        srcs[str(src)] += 1
        if len(payload) < 12 + 4:
            print(f'frame {i}: from {src}: {len(payload)} bytes of UDP '
                  'payload, too short for a BTH and an ICRC')
            bad += 1
            continue
        op = opcode_name(payload[0])
        ops[str(src), op] += 1
        want_icrc = icrc(ip, udp, payload[:-4])
        if payload[-4:] != want_icrc:
            print(f'frame {i}: from {src}: {op} PSN '
                  f'{int.from_bytes(payload[9:12], "big")}: bad ICRC '
                  f'{payload[-4:].hex()}, want {want_icrc.hex()}')
            bad += 1
    for src, c in sorted(srcs.items()):
        print(f'from {src}: {c} packets')
        for (s, op), c in sorted(ops.items()):
            if s == src:
                print(f'  {op}: {c}')
    print(f'{n} RoCEv2 packets, {n - bad} good ICRC, {bad} bad')
    ok = n > 0 and bad == 0
    if n == 0:
        print('no RoCEv2 packet in the capture')
    for w in want:
        if srcs[str(ipaddress.ip_address(w))] == 0:
            print(f'no RoCEv2 packet from {w}')
            ok = False
    return ok


def flip(path, out):
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    for off, frame in pcap_records(bytes(data)):
        r = roce(frame)
        if r is not None and len(r[3]) >= 16:
            at = off + r[4] + 7			# the BTH's destination QP
            data[at] ^= 0x01
            with open(out, 'wb') as f:
                f.write(data)
            print(f'flipped a bit at file offset {at}')
            return True
    print('no RoCEv2 packet to flip a bit in')
    return False


def main():
    args, want = sys.argv[1:], []
    if args[:1] == ['--flip'] and len(args) == 3:
        sys.exit(0 if flip(args[1], args[2]) else 1)
    while args[:1] == ['--want-src'] and len(args) > 2:
        want.append(args[1])
        args = args[2:]
    if len(args) != 1:
        sys.exit(__doc__.split('\n\n')[1])
    try:
        ok = check(args[0], want)
    except (OSError, ValueError) as e:
        print(f'{args[0]}: {e}')
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
