#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: build every prefix of the series, with the Rust choice
# (configs/base.config + rust.config) and with the C choice (base + c),
# and report per patch: builds or not, and the compiler warnings in
# kernel/nstree_rs/ and the files the patch touches.
#
# The prefixes are applied one after the other in $NSTREE_CACHE/trees/series,
# a copy of the pristine tree (mtimes preserved), whose build directories
# are seeded from the C ones: each step rebuilds only what the patch
# changed (and ccache has most of it).  Not part of `make test`.
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
T="$NSTREE_CACHE/trees/series"

[ -f "$(variant_build c base)/vmlinux" ] || die "build the C kernel first (make kernel VARIANT=c)"
log "copying the pristine tree to $T"
rm -rf "$T"
mkdir -p "$T"
rsync -a --exclude='/.build-*' --exclude='/.nstree-rs-version' "$PRISTINE/" "$T/"
for v in c rust; do
	log "seeding $T/.build-$v from the C build"
	rsync -a "$(variant_build c base)/" "$T/.build-$v/"
done

configure() { # configure VARIANT: allnoconfig + fragments, as build-kernel.sh
	local v=$1 b="$T/.build-$1"
	cat "$REPO/configs/base.config" "$REPO/configs/$v.config" >"$b/.nstree-allconfig"
	kmake "$T" "$b" -s KCONFIG_ALLCONFIG="$b/.nstree-allconfig" allnoconfig >/dev/null 2>&1
}

results=()
n=0 bad=0
for p in "$REPO"/patches/*.patch; do
	n=$((n + 1))
	name=$(basename "$p" .patch)
	if ! (cd "$T" && patch -p1 -s --no-backup-if-mismatch <"$p"); then
		results+=("$name: does not apply")
		bad=$((bad + 1))
		break
	fi
	line="$name:"
	for v in rust c; do
		configure $v
		choice=$(grep -E '^CONFIG_NSTREE_(C|RUST)=y' "$T/.build-$v/.config" | sed 's/CONFIG_NSTREE_//; s/=y//')
		blog="$LOGS/check-series-$n-$v.log"
		s=$(date +%s)
		if kmake "$T" "$T/.build-$v" -j"$JOBS" bzImage >"$blog" 2>&1; then
			w=$(grep -cE '^warning|: warning:' "$blog")
			line+=" $v(${choice:-none}): builds, $w warnings, $(($(date +%s) - s))s;"
		else
			line+=" $v(${choice:-none}): FAILS (see $blog);"
			bad=$((bad + 1))
		fi
	done
	log "$line"
	results+=("$line")
done
echo
echo "=== check-series: $n patches ==="
printf '%s\n' "${results[@]}"
[ $bad = 0 ] && echo "every patch builds with both choices" || echo "$bad failures"
exit $((bad > 0))
