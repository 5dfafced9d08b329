# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""roce.py: small verbs helpers shared by the Python selftests."""
import ipaddress


def ipv4_gid(ctx, port=1):
    """The index and GID of the port's first RoCE v2 IPv4-mapped GID."""
    for i in range(16):
        gid = ctx.query_gid(port, i)
        if ipaddress.IPv6Address(str(gid)).ipv4_mapped:
            return i, gid
    raise LookupError('no IPv4 GID on the port')
