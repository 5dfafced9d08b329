#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""t-verbs.py: the provider's first verbs through pyverbs (unmodified
python3-pyverbs from Debian): open a context, query the device, port and
GIDs, allocate and free protection domains."""
import ipaddress
import re
import sys

from ktap import Tests, sh

t = Tests()
t.require_root()
t.require_pyverbs()
t.require_module('sroce')

import pyverbs.enums as e  # noqa: E402
from pyverbs.device import Context, get_device_list  # noqa: E402
from pyverbs.pd import PD  # noqa: E402

IFACE = 'eth0'
DEV = 'sroce0'
V6 = '2001:db8:77::1'

def case(desc, fn):
    t.case(desc)(fn)


def main():
    sh(f'ip -6 addr add {V6}/64 dev {IFACE} nodad')
    sh(f'rdma link add {DEV} type sroce netdev {IFACE}')
    v4 = re.search(r'inet (\S+)/', sh(f'ip -4 addr show dev {IFACE}')).group(1)
    mac = sh(f'cat /sys/class/net/{IFACE}/address').strip()
    ctx = {}

    def open_ctx():
        names = [d.name.decode() for d in get_device_list()]
        assert DEV in names, names
        ctx['c'] = Context(name=DEV)
    case('get_device_list finds the device; Context opens (ABI accepted)',
         open_ctx)

    def query_device():
        a = ctx['c'].query_device()
        assert a.vendor_id == 0xffffff, hex(a.vendor_id)
        assert a.max_pd == 0x10000, a.max_pd
        assert a.phys_port_cnt == 1, a.phys_port_cnt
        eui = mac.split(':')
        eui = eui[:3] + ['ff', 'fe'] + eui[3:]
        eui[0] = '%02x' % (int(eui[0], 16) ^ 2)
        want = ''.join(eui)
        # pyverbs hands the __be64 over as the integer read in host order
        got = a.node_guid.to_bytes(8, sys.byteorder).hex()
        assert got == want, (got, want)
    case('query_device: vendor, max_pd, ports, node GUID from the MAC',
         query_device)

    def query_port():
        p = ctx['c'].query_port(1)
        assert p.state == e.IBV_PORT_ACTIVE, p.state
        assert p.link_layer == e.IBV_LINK_LAYER_ETHERNET, p.link_layer
        assert p.active_mtu == e.IBV_MTU_1024, p.active_mtu
        assert p.max_mtu == e.IBV_MTU_4096, p.max_mtu
        assert p.gid_tbl_len == 128, p.gid_tbl_len
        assert p.pkey_tbl_len == 1, p.pkey_tbl_len
        assert p.port_cap_flags & e.IBV_PORT_CM_SUP, p.port_cap_flags
    case('query_port: ACTIVE, Ethernet, MTUs, table sizes, CM support',
         query_port)

    def gids():
        found = set()
        for i in range(128):
            try:
                g = ctx['c'].query_gid(1, i)
            except Exception:
                break
            s = str(g)
            if s.replace(':', '').strip('0') == '':
                continue
            found.add(ipaddress.IPv6Address(s))
        want4 = ipaddress.IPv6Address('::ffff:' + v4)
        want6 = ipaddress.IPv6Address(V6)
        assert want4 in found, (want4, found)
        assert want6 in found, (want6, found)
    case('query_gid: IPv4-mapped and IPv6 GIDs of the netdev', gids)

    def pkey():
        assert ctx['c'].query_pkey(1, 0) == 0xffff
    case('query_pkey: index 0 is the full default P_Key', pkey)

    def pds():
        def user_pds():    # kernel PDs (the MAD layer's) show [owner]
            out = sh(f'rdma resource show pd dev {DEV}')
            return [l for l in out.splitlines()
                    if 'pdn' in l and 'comm [' not in l]
        many = [PD(ctx['c']) for _ in range(200)]
        n = len(user_pds())
        assert n == 200, n
        for pd in many:
            pd.close()
        assert not user_pds(), user_pds()
    case('200 PDs allocated, counted by rdma resource, all freed', pds)

    def close_ctx():
        ctx['c'].close()
        sh(f'rdma link delete {DEV}')
    case('context closes and the device deletes cleanly', close_ctx)

    return t.run()


if __name__ == '__main__':
    sys.exit(main())
