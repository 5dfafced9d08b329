#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-races.sh: a QP's owner changes its state and attributes under its
# engines: c/races.c's cases (a responder moved to RESET or ERROR while it
# answers a READ sends nothing more; READs in flight while the responder's
# path MTU and responder resources change, round after round; WRITEs whose
# packets hold the source MR's pages in a qdisc while the MR is
# deregistered and its buffer unmapped; paced
# datagrams while address handles come and go on the same CPU), each a
# case here, and its exit status; then nothing is left on the devices.
# Both devices' rates are capped (cc/rpg_max_rate) so that what they
# send is paced: h2's READ responses (a READ of 64 MiB lasts seconds, and
# the pacer's timer is armed when the state changes) and h1's datagrams
# (sent from the pacer's softirq while the test churns address handles).
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma cmd:tc module:sroce module:veth module:sch_netem \
	bin:races

two_hosts

echo 200 >/sys/class/infiniband/sroce_h1/cc/rpg_max_rate
echo 200 >/sys/class/infiniband/sroce_h2/cc/rpg_max_rate
# dereg_in_flight holds h1's packets in a qdisc for 500 ms.
export RACES_HOLD="ip netns exec h1 tc qdisc replace dev veth1 root netem delay 500ms"
export RACES_RELEASE="ip netns exec h1 tc qdisc del dev veth1 root"
# What the qdisc took: packets sent on, dropped, and queued.
export RACES_QUEUED='ip netns exec h1 tc -s qdisc show dev veth1 |
	awk "/Sent/ { n += \$4 + \$7 } /backlog/ { n += \$3 } END { print n + 0 }"'
timeout 900 "$bin/races" >"$tmp/races" 2>&1
rc=$?
n=$(ktap_planned_in "$tmp/races")
ktap_plan $((${n:-0} + 2))
ktap_relay races "$tmp/races"
ktap_check "races exited 0 (it said: $rc)" test "$rc" = 0
ktap_check "no PD, CQ, QP or MR left on the sroce devices" resources_back 1 2
ktap_finish
