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

# vm_apt_suite SUITE [TYPES]: make apt-get and apt-cache in this script see
# SUITE (and deb-src when asked) through a private apt configuration under
# the cache ($APT_CONFIG); the machine's own apt sources are never touched.
# The entry is derived from the machine's Debian source entry, so that no
# mirror host name is ever written by us.
vm_apt_suite() {
	local suite=$1 types=${2:-deb} src=/etc/apt/sources.list.d/debian.sources
	local dir=$SROCE_CACHE/apt
	local dst=$dir/sources.list.d/$suite-${types//[^a-z]/}.sources
	export APT_CONFIG=$dir/apt.conf
	[ -f "$dst" ] && [ -f "$APT_CONFIG" ] && return 0
	[ -f "$src" ] || vm_die "no $src to derive an apt source for $suite from"
	vm_lock apt
	mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/sources.list"
	cat >"$APT_CONFIG" <<-EOF
		Dir::Etc::sourcelist "$dir/sources.list";
		Dir::Etc::sourceparts "$dir/sources.list.d";
		Dir::State::Lists "$dir/lists";
		Dir::Cache "$dir/cache";
		APT::Sandbox::User "root";
	EOF
	if [ ! -f "$dst" ]; then
		awk -v suite="$suite" -v types="$types" '
			BEGIN { RS = ""; ORS = "\n\n" }
			/Suites:[^\n]*bookworm( |\n|$)/ && !done {
				sub(/Types:[^\n]*/, "Types: " types)
				sub(/Suites:[^\n]*/, "Suites: " suite)
				gsub(/(^|\n)#[^\n]*/, "")
				print; done = 1
			}' "$src" >"$dst.tmp"
		[ -s "$dst.tmp" ] || { rm -f "$dst.tmp"; vm_die "cannot derive apt source for $suite"; }
		mv "$dst.tmp" "$dst"
		apt-get -q update >/dev/null ||
			{ rm -f "$dst"; vm_die "apt-get update failed after adding $suite"; }
	fi
	exec 9>&-
}
