#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-mcast.sh: UD multicast on one device (the datagrams loop back through
# the IP layer as multicast does), checked by c/ud_mcast.c.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"

bin=$here/../build/selftests/ud_mcast
ktap_require root cmd:rdma module:sroce
[ -x "$bin" ] || { echo "KTAP version 1"; echo "1..0 # SKIP $bin not built (make -C selftests)"; exit 4; }

ip -6 addr add 2001:db8:77::1/64 dev eth0 nodad
rdma link add sroce0 type sroce netdev eth0 || exit 1
"$bin" sroce0
rc=$?
rdma link delete sroce0
exit $rc
