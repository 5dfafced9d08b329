#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fuzz-rings.sh: the ring fuzzer (c/fuzz_rings.c) against two hosts'
# devices, sroce_h1 and sroce_h2, while a chaos actor deletes and adds
# them again; afterwards both devices are there and move data
# (ibv_rc_pingpong between the hosts), nothing of the fuzzer is left on
# them, and the module unloads. The fuzzer's own lines ("# ...": its seed,
# progress, summary) are the diagnostics. Not in TEST_PROGS: `make
# fuzz-rings` (selftests/fuzz-rings) boots the debug kernel for it.
#
#   FUZZ_RINGS_TIME   seconds of fuzzing (default 60)
#   FUZZ_RINGS_SEED   the seed to replay (default: a new one, printed)
#   FUZZ_RINGS_PROCS  worker processes (default 3)
#   FUZZ_RINGS_CHAOS  mean seconds between device deletions (default 20;
#                     0: none)
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
time=${FUZZ_RINGS_TIME:-60}
procs=${FUZZ_RINGS_PROCS:-3}
chaos=${FUZZ_RINGS_CHAOS:-20}
seed=${FUZZ_RINGS_SEED:-}

ktap_require root cmd:rdma cmd:ibv_rc_pingpong module:sroce module:veth
if [ ! -x "$bin/fuzz_rings" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP no $bin/fuzz_rings: make -C selftests all"
	exit 4
fi

hosts_create 2
sroce_add 1
sroce_add 2
resources_mark 1 2

ktap_plan 5
args=(-t "$time" -p "$procs" -c "$chaos" -d sroce_h1,sroce_h2)
[ -n "$seed" ] && args+=(-s "$seed")
# The fuzzer stops by itself (its children get 240 s for it); a hang in
# the kernel outlives even SIGKILL, and the VM's timeout ends it.
timeout -k 30 $((time + 420)) "$bin/fuzz_rings" "${args[@]}"
rc=$?
ktap_check "fuzz_rings ran ${time} s, its processes ended cleanly (exit $rc)" \
	test "$rc" = 0

# devices_back: both devices exist (the chaos actor adds back what it
# deleted); add any that is missing, so that the checks below can run.
devices_back() {
	local i ok=0
	for i in 1 2; do
		rdma link show "sroce_h$i/1" >/dev/null 2>&1 && continue
		echo "sroce_h$i is missing"
		ok=1
		host_exec "$i" rdma link add "sroce_h$i" type sroce netdev "veth$i"
	done
	return $ok
}
ktap_check "both devices are there" devices_back
ktap_check "ibv_rc_pingpong between the hosts" \
	pingpong ibv_rc_pingpong 1 sroce_h1 2 sroce_h2 4 10.77.0.1 -n 100
ktap_check "no PD, CQ, QP or MR left on the devices" resources_back 1 2

unload() {
	hosts_cleanup
	modprobe -r sroce && ! grep -q '^sroce ' /proc/modules
}
ktap_check "modprobe -r sroce" unload
ktap_finish
