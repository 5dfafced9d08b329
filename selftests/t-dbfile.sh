#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-dbfile.sh: the doorbell file. The dbfile program's cases (it rings only
# its context's QPs; EINVAL, EIO and ENOTTY for the rest; a QP destroyed
# while another thread rings it), then a file held by a running process
# across the device's deletion and across `rmmod sroce`: both complete,
# the file answers EIO from then on, also once sroce is loaded again, and
# it pins only sroce_dbfile. And
# ibv_rc_pingpong over each doorbell: the file, and the legacy command
# that SROCE_LEGACY_DOORBELL asks for.
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

bin=$(readlink -f "$here/../build/selftests")
ktap_require root cmd:rdma module:sroce module:veth
if [ ! -x "$bin/dbfile" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP no $bin/dbfile: make -C selftests all"
	exit 4
fi

tmp=$(mktemp -d)
trap 'rdma link delete sroce0 2>/dev/null; ip link del vdb0 2>/dev/null
	rm -rf "$tmp"' EXIT

modprobe -a sroce veth ib_uverbs || exit 1
ip link add vdb0 type veth peer name vdb1 || exit 1
ip addr add 10.75.0.1/24 dev vdb0
ip link set vdb0 up
ip link set vdb1 up
rdma link add sroce0 type sroce netdev vdb0 || exit 1

timeout 120 "$bin/dbfile" -d sroce0 >"$tmp/dbfile" 2>&1
rc=$?
n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tmp/dbfile" | head -n1)
ktap_plan $((${n:-0} + 16))

ktap_relay dbfile "$tmp/dbfile"
ktap_check "dbfile exited 0 (it said: $rc)" test "$rc" = 0

# pp [VAR=VALUE...]: ibv_rc_pingpong on sroce0 with itself, in that
# environment
pp() {
	local g i
	g=$(rdma_gid "" sroce0 10.75.0.1)
	env "$@" timeout 60 ibv_rc_pingpong -d sroce0 -g "$g" -n 2000 \
		-p 18515 >"$tmp/srv" 2>&1 &
	for i in $(seq 50); do
		[ -n "$(ss -Hltn "sport = :18515")" ] && break
		sleep 0.1
	done
	env "$@" timeout 60 ibv_rc_pingpong -d sroce0 -g "$g" -n 2000 \
		-p 18515 127.0.0.1 >"$tmp/cli" 2>&1
	wait
	cat "$tmp/srv" "$tmp/cli"
	[ "$(cat "$tmp/srv" "$tmp/cli" | grep -c 'iters in')" -eq 2 ]
}
ktap_check "ibv_rc_pingpong, doorbell file" pp
ktap_check "ibv_rc_pingpong, legacy doorbell" pp SROCE_LEGACY_DOORBELL=1

# A holder: `dbfile -H` in the background, on fifos (fds 7 and 8 here,
# which the subshells of ktap_check inherit), ringing when asked.
hold_start() {
	local line
	rm -f "$tmp/in" "$tmp/out"
	mkfifo "$tmp/in" "$tmp/out"
	"$bin/dbfile" -d sroce0 -H <"$tmp/in" >"$tmp/out" 2>&1 &
	hold_pid=$!
	exec 7>"$tmp/in" 8<"$tmp/out"
	read -r -t 30 -u 8 line && [ "$line" = ready ] ||
		echo "# holder said: $line"
}
# hold_ring ERRNO: the holder's ring gets ERRNO (0: it rang)
hold_ring() {
	local line
	echo >&7
	read -r -t 30 -u 8 line
	echo "ring: $line (wanted $1)"
	[ "$line" = "$1" ]
}
# hold_stop: end the holder (EOF on its stdin); hold_rc is its status
hold_stop() {
	exec 7>&-
	timeout 30 tail --pid="$hold_pid" -f /dev/null
	wait "$hold_pid"
	hold_rc=$?
	exec 8<&-
}
refcnt() { awk -v m="$1" '$1 == m { print $3 }' /proc/modules; }

hold_start
ktap_check "a held doorbell file rings its QP" hold_ring 0
ktap_check "rdma link delete with the file held completes" \
	timeout 60 rdma link delete sroce0
ktap_check "... then the file answers EIO" hold_ring 5
hold_stop
ktap_check "... and its holder exits 0 (it said: $hold_rc)" test "$hold_rc" = 0

ktap_check "sroce0 again" rdma link add sroce0 type sroce netdev vdb0
hold_start
ktap_check "a new holder rings" hold_ring 0
ktap_check "rmmod sroce with the file held completes" timeout 60 rmmod sroce
ktap_check "... then the file answers EIO" hold_ring 5
# Two files: the holder's own, and the one its provider opened for the QP.
ktap_check "... its files hold sroce_dbfile" test "$(refcnt sroce_dbfile)" = 2
ktap_refuse "... which cannot be removed under it" 'in use' \
	rmmod sroce_dbfile
ktap_check "sroce loads again with the old file held" modprobe sroce
ktap_check "... which still answers EIO" hold_ring 5
hold_stop
ktap_check "... and its holder exits 0 (it said: $hold_rc)" test "$hold_rc" = 0
ktap_check "then sroce_dbfile goes with sroce, and both load again" \
	eval 'modprobe -r sroce && ! grep -q "^sroce_dbfile " /proc/modules &&
		modprobe sroce'

ktap_finish
