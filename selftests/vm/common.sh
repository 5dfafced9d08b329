# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared settings for the VM test bed scripts; sourced, never run.
#
# Everything downloaded or generated is cached outside the checkout, in
# $SROCE_CACHE (default ~/.cache/sroce), and reused by later runs.

SROCE_CACHE=${SROCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sroce}
export SROCE_CACHE
SROCE_DEFAULT_KERNEL=${SROCE_DEFAULT_KERNEL:-6.1}

vm_log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
vm_die() { vm_log "error: $*"; exit 1; }

# vm_lock NAME: serialise one cache-filling step across concurrent runs.
vm_lock() {
	mkdir -p "$SROCE_CACHE/locks"
	exec 9>"$SROCE_CACHE/locks/$1"
	flock 9
}

# vm_apt_suite SUITE [TYPES]: make apt see SUITE (and deb-src when asked),
# derived from the machine's own Debian source entry so that no mirror host
# name is ever written by us.
vm_apt_suite() {
	local suite=$1 types=${2:-deb} src=/etc/apt/sources.list.d/debian.sources
	local dst=/etc/apt/sources.list.d/sroce-$suite.sources
	[ -f "$dst" ] && return 0
	[ -f "$src" ] || vm_die "no $src to derive an apt source for $suite from"
	awk -v suite="$suite" -v types="$types" '
		BEGIN { RS = ""; ORS = "\n\n" }
		/Suites:[^\n]*bookworm( |\n|$)/ && !done {
			sub(/Types:[^\n]*/, "Types: " types)
			sub(/Suites:[^\n]*/, "Suites: " suite)
			print; done = 1
		}' "$src" >"$dst.tmp"
	[ -s "$dst.tmp" ] || { rm -f "$dst.tmp"; vm_die "cannot derive apt source for $suite"; }
	mv "$dst.tmp" "$dst"
	apt-get -q update >/dev/null || vm_die "apt-get update failed after adding $suite"
}
