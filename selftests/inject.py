#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""inject.py: send hand-made RoCEv2 packets out of an interface, as raw
Ethernet frames, to test a receiver. The ICRC is computed here with
zlib's CRC-32, independently of sroce's implementation.

usage: inject.py IFACE DST_MAC SRC_IP DST_IP KIND [COUNT]

IFACE pcap:FILE appends the frames to the classic pcap FILE (made when
missing) instead of sending them, for testing packet checkers.

KIND: good        RC SEND ONLY, 8 bytes, correct ICRC
      masked      good, then the fields the ICRC masks changed (TTL or hop
                  limit, DSCP/ECN, BTH FECN/BECN): still correct
      bad-icrc    good with one payload bit flipped after the ICRC
      short       10 bytes of UDP payload
      tver        transport header version 1
      opcode      opcode 0x1f (reserved)
      length      3 bytes of payload and no pad
      ipopt       IPv4 with a 4-byte IP option (IPv4 only)
      garbage     COUNT datagrams of random length and bytes
      mad-long    UD SEND ONLY to QP1 with the GSI Q_Key, 300 bytes: longer
                  than any MAD
      pkey        good, but the BTH's P_Key is 0x1234, not the default
                  partition's
      pkey-limited  good, with P_Key 0x7fff: the default partition's
                  limited member
      ud          UD SEND ONLY to QP 0x123, Q_Key 0x1234, 8 bytes
      ud-long     the same with 4100 bytes: longer than any path MTU
      ud-ce[:QPN:QKEY]  a CE-marked UD SEND ONLY (to QP 0x123, Q_Key
                  0x1234 unless given, both in hex)
      frag        good, sent as two IP fragments (IPv4, or IPv6 with a
                  fragment header)
"""
import ipaddress
import os
import random
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791


def csum16(data):
    if len(data) & 1:
        data += b'\0'
    s = sum(struct.unpack(f'!{len(data) // 2}H', data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icrc(ip, udp, transport):
    """The RoCEv2 ICRC (IBTA Annex A17), as the 4 bytes that end the
    packet: CRC-32 over 8 bytes of ones, then the IP header (IPv4 or IPv6),
    the UDP header and the transport headers and payload up to the ICRC,
    with the fields a router may change masked to ones: IPv4 TOS, TTL and
    header checksum; IPv6 traffic class, flow label and hop limit; the UDP
    checksum; the BTH's FECN/BECN/reserved byte. Shared with icrc-check.py.
    """
    ip = bytearray(ip)
    if ip[0] >> 4 == 6:
        ip[0] |= 0x0f
        ip[1:4] = b'\xff\xff\xff'
        ip[7] = 0xff
    else:
        ip[1] = 0xff
        ip[8] = 0xff
        ip[10:12] = b'\xff\xff'
    u = bytearray(udp[:8])
    u[6:8] = b'\xff\xff'
    t = bytearray(transport)
    t[4] = 0xff
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + ip + u + t))


def bth(opcode=0x04, pad=0, tver=0, dqpn=0x100, psn=1, fecn=0, becn=0,
        pkey=0xffff):
    return struct.pack('!BBHBBHBBH', opcode, (pad << 4) | tver, pkey,
                       (fecn << 7) | (becn << 6), dqpn >> 16,
                       dqpn & 0xffff, 0, psn >> 16, psn & 0xffff)


def deth(qkey, sqpn):
    return struct.pack('!IB3s', qkey, 0, sqpn.to_bytes(3, 'big'))


class Packet:
    def __init__(self, src, dst, transport, sport=0xc001):
        self.src = ipaddress.ip_address(src)
        self.dst = ipaddress.ip_address(dst)
        self.v6 = self.src.version == 6
        self.transport = transport
        self.sport = sport
        self.tos = 0
        self.ttl = 64
        self.options = b''

    def udp(self, payload, checksum):
        hdr = struct.pack('!HHHH', self.sport, ROCE_PORT, 8 + len(payload), 0)
        if not checksum:
            return hdr + payload
        pseudo = (self.src.packed + self.dst.packed +
                  struct.pack('!IxxxB', 8 + len(payload), 17))
        c = csum16(pseudo + hdr + payload) or 0xffff
        return hdr[:6] + struct.pack('!H', c) + payload

    def ip(self, udp):
        if self.v6:
            return struct.pack('!IHBB', 6 << 28 | self.tos << 20,
                               len(udp), 17, self.ttl) + \
                self.src.packed + self.dst.packed
        ihl = 5 + len(self.options) // 4
        hdr = struct.pack('!BBHHHBBH4s4s', 4 << 4 | ihl, self.tos,
                          ihl * 4 + len(udp), 0x1234, 0x4000, self.ttl, 17,
                          0, self.src.packed, self.dst.packed) + self.options
        return hdr[:10] + struct.pack('!H', csum16(hdr)) + hdr[12:]

    def icrc(self):
        """CRC over the masked pseudo packet: IBTA Annex A17."""
        udp = self.udp(self.transport + b'\0' * 4, False)
        return icrc(self.ip(udp), udp[:8], self.transport)

    def frame(self, dmac, smac, icrc):
        udp = self.udp(self.transport + icrc, self.v6)
        etype = 0x86dd if self.v6 else 0x0800
        return dmac + smac + struct.pack('!H', etype) + self.ip(udp) + udp

    def fragments(self, dmac, smac, icrc):
        """The frame's IP datagram as two fragments: its first 16 bytes of
        UDP, then the rest."""
        udp = self.udp(self.transport + icrc, self.v6)
        eth = dmac + smac + struct.pack('!H', 0x86dd if self.v6 else 0x0800)
        out = []
        for off, part, more in ((0, udp[:16], 1), (2, udp[16:], 0)):
            if self.v6:
                frag = struct.pack('!BBHI', 17, 0, off << 3 | more, 0x5eed)
                hdr = struct.pack('!IHBB', 6 << 28, 8 + len(part), 44,
                                  self.ttl) + \
                    self.src.packed + self.dst.packed + frag
            else:
                hdr = struct.pack('!BBHHHBBH4s4s', 0x45, self.tos,
                                  20 + len(part), 0x5eed, more << 13 | off,
                                  self.ttl, 17, 0, self.src.packed,
                                  self.dst.packed)
                hdr = hdr[:10] + struct.pack('!H', csum16(hdr)) + hdr[12:]
            out.append(eth + hdr + part)
        return out


class PcapWriter:
    """send() appends an Ethernet frame to a classic pcap file."""
    def __init__(self, path):
        self.path = path
        if not os.path.exists(path):
            with open(path, 'wb') as f:
                f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0,
                                    65535, 1))

    def send(self, frame):
        t = time.time()
        with open(self.path, 'ab') as f:
            f.write(struct.pack('<IIII', int(t), int(t % 1 * 1e6),
                                len(frame), len(frame)) + frame)


def main():
    iface, dmac, src, dst, kind = sys.argv[1:6]
    count = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    dmac = bytes.fromhex(dmac.replace(':', ''))
    if iface.startswith('pcap:'):
        s = PcapWriter(iface[5:])
        smac = bytes.fromhex('020000000002')
    else:
        with open(f'/sys/class/net/{iface}/address') as f:
            smac = bytes.fromhex(f.read().strip().replace(':', ''))
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((iface, 0))
    rnd = random.Random(int.from_bytes(os.urandom(4), 'little'))
    payload = bytes(range(8))

    for _ in range(count):
        p = Packet(src, dst, bth() + payload)
        if kind == 'good':
            icrc = p.icrc()
        elif kind == 'masked':
            icrc = p.icrc()
            p.ttl, p.tos = 3, 0xb9		# DSCP 46, ECN CE
            p.transport = bth(fecn=1, becn=1) + payload
        elif kind == 'bad-icrc':
            icrc = p.icrc()
            p.transport = p.transport[:-1] + bytes([p.transport[-1] ^ 1])
        elif kind == 'short':
            p.transport, icrc = bth()[:6], b'\0' * 4
        elif kind == 'tver':
            p.transport = bth(tver=1) + payload
            icrc = p.icrc()
        elif kind == 'opcode':
            p.transport = bth(opcode=0x1f) + payload
            icrc = p.icrc()
        elif kind == 'length':
            p.transport = bth() + payload[:3]
            icrc = p.icrc()
        elif kind == 'ipopt':
            p.options = b'\x01\x01\x01\x00'	# NOP NOP NOP EOL
            icrc = p.icrc()
        elif kind == 'mad-long':
            p.transport = bth(opcode=0x64, dqpn=1) + deth(0x80010000, 1) + \
                bytes(300)
            icrc = p.icrc()
        elif kind in ('pkey', 'pkey-limited'):
            p.transport = bth(pkey=0x1234 if kind == 'pkey' else 0x7fff) + \
                payload
            icrc = p.icrc()
        elif kind in ('ud', 'ud-long') or kind.startswith('ud-ce'):
            dqpn, qkey = 0x123, 0x1234
            if kind.startswith('ud-ce:'):
                dqpn, qkey = (int(x, 16) for x in kind.split(':')[1:3])
            n = 4100 if kind == 'ud-long' else 8
            p.transport = bth(opcode=0x64, dqpn=dqpn) + deth(qkey, 0x42) + \
                bytes(n)
            if kind.startswith('ud-ce'):
                p.tos = 0x03
            icrc = p.icrc()
        elif kind == 'frag':
            for f in p.fragments(dmac, smac, p.icrc()):
                s.send(f)
            continue
        elif kind == 'garbage':
            n = rnd.randrange(0, 200)
            p.transport = bytes(rnd.randrange(256) for _ in range(n))
            icrc = b''
        else:
            sys.exit(f'unknown kind {kind}')
        s.send(p.frame(dmac, smac, icrc))


if __name__ == '__main__':
    main()
