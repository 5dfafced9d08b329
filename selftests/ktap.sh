# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ktap.sh: KTAP output for the shell selftests; sourced.
#
#   ktap_plan N              announce N test cases
#   ktap_check DESC CMD...   one case: passes when CMD exits 0
#   ktap_expect DESC ERE CMD...  passes when CMD exits 0 and prints a line
#                            matching ERE (output shown on failure)
#   ktap_refuse DESC ERE CMD...  passes when CMD FAILS and prints ERE
#   ktap_skip DESC REASON    one skipped case
#   ktap_require WHAT...     skip the whole test (exit 4) unless each WHAT
#                            holds: root, cmd:NAME, module:NAME, py:MODULE
#                            (python3 imports it), bin:NAME (a C helper in
#                            build/selftests, made by make -C selftests)
#   ktap_skip_all REASON     skip the whole test (exit 4)
#   ktap_relay NAME FILE     the kselftest-harness TAP of program NAME, in
#                            FILE, as cases of ours ("NAME: case"), its
#                            diagnostics as ours
#   ktap_planned_in FILE     the number of cases a harness TAP announced
#   ktap_finish              exit 0 (all passed), 1 (failure) or 4 (all
#                            skipped); a case count below the plan fails
#
# A case that could not run is never reported as passing.

ktap_n=0
ktap_planned=0
ktap_failed=0
ktap_skipped=0

ktap_plan() {
	ktap_planned=$1
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_skip_all() {
	echo "KTAP version 1"
	echo "1..0 # SKIP $1"
	exit 4
}

ktap_require() {
	local w why= bin
	bin=$(readlink -f "$(dirname "$0")/../build/selftests")
	for w in "$@"; do
		case $w in
		root)	[ "$(id -u)" -eq 0 ] || why="needs root" ;;
		cmd:*)	command -v "${w#cmd:}" >/dev/null || why="needs ${w#cmd:}" ;;
		module:*)
			modinfo "${w#module:}" >/dev/null 2>&1 ||
				why="needs kernel module ${w#module:}" ;;
		py:*)	python3 -c "import ${w#py:}" 2>/dev/null ||
				why="needs python3 module ${w#py:}" ;;
		bin:*)	[ -x "$bin/${w#bin:}" ] ||
				why="no $bin/${w#bin:}: make -C selftests all" ;;
		esac
		[ -z "$why" ] || ktap_skip_all "$why"
	done
}

ktap_diag() { sed 's/^/# /'; }

ktap_ok() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $*"
}

ktap_fail() {
	ktap_n=$((ktap_n + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_n $*"
}

ktap_skip() {
	ktap_n=$((ktap_n + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_n $1 # SKIP $2"
}

ktap_check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_ok "$desc"
	else
		printf '%s\n' "\$ $*" "$out" | ktap_diag
		ktap_fail "$desc"
	fi
}

# ktap_outcome DESC ERE WANT_OK CMD...: CMD's exit status is success iff
# WANT_OK is 1, and its output matches ERE.
ktap_outcome() {
	local desc=$1 re=$2 want=$3 out rc ok
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	ok=$(( (rc == 0) == want ))
	if [ "$ok" -eq 1 ] && grep -qE -- "$re" <<<"$out"; then
		ktap_ok "$desc"
	else
		printf '%s\n' "\$ $* (exit $rc; wanted $([ "$want" -eq 1 ] ||
			echo 'failure with ')/$re/)" "$out" | ktap_diag
		ktap_fail "$desc"
	fi
}

ktap_expect() {
	local desc=$1 re=$2
	shift 2
	ktap_outcome "$desc" "$re" 1 "$@"
}

ktap_refuse() {
	local desc=$1 re=$2
	shift 2
	ktap_outcome "$desc" "$re" 0 "$@"
}

ktap_relay() {
	local line re_ok='^(not )?ok [0-9]+ (.*)$'
	while IFS= read -r line; do
		if [[ $line =~ $re_ok ]]; then
			local name=${BASH_REMATCH[2]}
			if [[ $name == *"# SKIP"* ]]; then
				ktap_skip "$1: ${name%%# SKIP*}" "${name#*# SKIP}"
			elif [ -n "${BASH_REMATCH[1]}" ]; then
				ktap_fail "$1: $name"
			else
				ktap_ok "$1: $name"
			fi
		elif [[ $line == "TAP version"* || $line =~ ^1\.\.[0-9]+$ ]]; then
			continue
		elif [[ $line == "#"* ]]; then
			echo "$line"
		else
			echo "# $line"
		fi
	done <"$2"
}

ktap_planned_in() { sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$1" | head -n1; }

ktap_finish() {
	while [ "$ktap_n" -lt "$ktap_planned" ]; do
		ktap_fail "planned case did not run"
	done
	echo "# totals: $((ktap_n - ktap_failed - ktap_skipped)) pass, $ktap_failed fail, $ktap_skipped skip"
	[ "$ktap_failed" -eq 0 ] || exit 1
	[ "$ktap_skipped" -lt "$ktap_n" ] || exit 4
	exit 0
}
