#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-hostile.sh: malformed and adversarial RoCEv2 packets at live QPs of a
# device, from another namespace, while real traffic runs beside them:
# forged QPNs and source addresses, bad ICRCs and pads, keys, addresses
# and lengths outside MRs or their rights, lengths that wrap, opcodes out
# of sequence, PSNs far out of window, duplicates (READs and atomics
# replayed), unsolicited responses, ACKs and NAKs forged from another
# address or for PSNs never sent, IPv6 (an extension header too), UD to a
# multicast group nobody joined.
# Each gets the answer the IBTA prescribes (or is dropped and counted), no
# memory outside the rules changes, the traffic beside it is unharmed.
# The cases are in hostile.py.
#
#   h1: veth1 ── sroce_h1 (victim QPs, pyverbs)  <── raw frames ── veth2 :h2
#                   └── ibv_rc_pingpong, all along ──> sroce_h2
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:python3 module:sroce module:veth

hosts_create 2
sroce_add 1
sroce_add 2
python3 "$here/hostile.py"
