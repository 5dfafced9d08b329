#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# t-middleware.sh: the middleware users run on RDMA, unmodified, from
# Debian's packages, between two sroce hosts: UCX (ucx_perftest over its
# ud_verbs and rc_verbs transports), libfabric (fi_pingpong over the verbs
# provider: msg and dgram endpoints, and rdm through ofi_rxm), with
# fi_pingpong's data check, and Open MPI over UCX (mpi-check.py: a
# ping-pong, puts and gets, and an allreduce that check their data).
# Documentation/middleware.rst says how each is set up.
#
#   h1: veth1 ── sroce_h1 ┐
#                         ├── veth pair
#   h2: veth2 ── sroce_h2 ┘
here=$(dirname "$(readlink -f "$0")")
. "$here/ktap.sh"
. "$here/lib.sh"

ktap_require root cmd:rdma cmd:ucx_perftest cmd:fi_pingpong cmd:mpirun \
	py:mpi4py module:sroce module:veth

ktap_plan 17

two_hosts || ktap_skip_all "no hosts"
ip1=$(host_ip 1)

# host_pair PORT NAME SERVER_CMD... -- CLIENT_CMD...: the server in h1,
# once it listens on TCP PORT, then the client in h2; their outputs go to
# $tmp/NAME-cli and $tmp/NAME-srv and are printed (client first); fails if
# either side does.
host_pair() {
	local port=$1 srv=$tmp/$2-srv cli=$tmp/$2-cli scmd=() rc=0
	shift 2
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	host_exec 1 "${scmd[@]}" >"$srv" 2>&1 &
	wait_listen 1 "$port" || { kill $! 2>/dev/null; cat "$srv"; return 1; }
	host_exec 2 "$@" >"$cli" 2>&1 || rc=1
	wait $! || rc=1
	cat "$cli"
	echo "-- server:"
	cat "$srv"
	return "$rc"
}

# ucx_pair TLS TEST TRANSPORT: ucx_perftest's server on h1 and its client
# on h2, each on its own device only, over the UCX transports TLS; the
# client runs TEST and must report its result, and both must say (at log
# level info) that their endpoint's lanes are TRANSPORT's on their device.
ucx_pair() {
	local tls=$1 test=$2 tp=$3 port=$((13000 + RANDOM % 3000))
	host_pair "$port" ucx \
		env UCX_TLS="$tls" UCX_NET_DEVICES=sroce_h1:1 UCX_LOG_LEVEL=info \
		timeout 90 ucx_perftest -p "$port" -- \
		env UCX_TLS="$tls" UCX_NET_DEVICES=sroce_h2:1 UCX_LOG_LEVEL=info \
		timeout 90 ucx_perftest "$ip1" -p "$port" -t "$test" -n 500 &&
		grep -q '^Final:' "$tmp/ucx-cli" &&
		grep -q "ep_cfg\[0\]: .*($tp/sroce_h2:1)" "$tmp/ucx-cli" &&
		grep -q "ep_cfg\[0\]: .*($tp/sroce_h1:1)" "$tmp/ucx-srv" &&
		! grep -E "ep_cfg\[0\]" "$tmp/ucx-cli" "$tmp/ucx-srv" |
			grep -vq "($tp/sroce_h"
}

# fi_pair PROV EP ARGS...: fi_pingpong's server on h1 and its client on
# h2, provider PROV, endpoint type EP, both with ARGS (and -c: every
# message's data is checked), each on its own device (the verbs provider
# names a device's datagram domain DEV-dgram); both must exit 0 and the
# client report its last size.
fi_pair() {
	local port=$((16000 + RANDOM % 2000)) sfx=
	[ "$2" = dgram ] && sfx=-dgram
	host_pair "$port" fi \
		timeout 120 fi_pingpong -c -p "$1" -e "$2" -d "sroce_h1$sfx" \
		-B "$port" "${@:3}" -- \
		timeout 120 fi_pingpong -c -p "$1" -e "$2" -d "sroce_h2$sfx" \
		-P "$port" "${@:3}" "$ip1" &&
		grep -qE '^[0-9]+[km]? +[0-9]+ +=[0-9]+ ' "$tmp/fi-cli"
}

rx0=$(counter 1 rx_packets)
for test in tag_lat tag_bw ucp_put_bw ucp_get; do
	ktap_check "UCX ud_verbs: ucx_perftest $test" \
		ucx_pair ud_verbs "$test" ud_verbs
done
for test in tag_lat tag_bw ucp_put_bw ucp_get; do
	ktap_check "UCX rc_verbs (ud_verbs for wire-up): ucx_perftest $test" \
		ucx_pair rc_verbs,ud_verbs:aux "$test" rc_verbs
done
ktap_check "... the UCX runs crossed sroce_h1 (rx_packets)" \
	counter_past 1 rx_packets $((rx0 + 10000))

ktap_check "libfabric verbs msg: fi_pingpong -c, 64 B to 1 MiB" \
	fi_pair verbs msg -I 50
ktap_check "libfabric verbs dgram: fi_pingpong -c" fi_pair verbs dgram -I 50
ktap_check "libfabric verbs;ofi_rxm rdm: fi_pingpong -c, 64 B to 1 MiB (eager, segmented, rendezvous by READ)" \
	fi_pair "verbs;ofi_rxm" rdm -I 50
# drops: receive drops for want of a WQE and RC retries exhausted, on both
drops() {
	echo "$(counter 1 rx_drop_no_wqe) $(counter 2 rx_drop_no_wqe)" \
		"$(counter 1 rc_retry_exceeded) $(counter 2 rc_retry_exceeded)"
}
ktap_expect "... no datagram dropped for want of a receive, no RC retry exhausted" \
	'^0 0 0 0$' drops

# mpi_job TLS [RMA]: mpi-check.py as an Open MPI job of two ranks, one on
# each host (mpirun in h1 starts the other in h2 through mpi-rsh), point
# to point, one-sided (unless RMA is 0) and collectives through UCX (pml
# ucx, osc ucx) on the UCX transports TLS, each rank on its own host's
# device
mpi_job() {
	host_exec 1 timeout 300 mpirun --allow-run-as-root -np 2 \
		--host "$(host_ip 1),$(host_ip 2)" \
		--mca plm_rsh_agent "$here/mpi-rsh" --mca pml ucx \
		--mca osc ucx --mca btl self,tcp -x UCX_TLS="$1" \
		-x MPI_CHECK_RMA="${2:-1}" \
		python3 "$here/mpi-check.py"
}

rx0=$(counter 2 rx_packets)
ktap_expect "Open MPI over UCX rc_verbs: ping-pong, put and get 1 B to 1 MiB, allreduce, checked" \
	'^mpi-check: ok' mpi_job rc_verbs,ud_verbs:aux
# One-sided over ud_verbs alone is left out: a 1 MiB put crashed UCX 1.13
# (middleware.rst).
ktap_expect "Open MPI over UCX ud_verbs: ping-pong 1 B to 1 MiB and allreduce, checked" \
	'^mpi-check: ok' mpi_job ud_verbs 0
ktap_check "... the MPI jobs crossed sroce_h2 (rx_packets)" \
	counter_past 2 rx_packets $((rx0 + 20000))

ktap_check "no verbs object left on either device" resources_back 1 2

ktap_finish
