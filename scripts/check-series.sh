#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: every prefix of the series, as a maintainer would take
# it, checked patch by patch:
#
#  - applied with `git am` onto the base tree;
#  - built with the Rust choice (configs/base.config + rust.config) and
#    with the C choice (base + c.config): 0 warnings in what the patch
#    touches, or the patch fails;
#  - the Rust files the series has at that step (the rust/kernel
#    abstractions and the crate): rustfmt --check (the tree's
#    .rustfmt.toml) and clippy (the kernel's CLIPPY=1 build), clean;
#  - checkpatch --strict on the patch;
# then, on the whole series: a build without KUnit (CONFIG_KUNIT=n), one
# boot of each choice to the probe marker, and the C choice's objects
# against the pristine tree's.  Prints a table, one row per patch with its
# `git patch-id --stable`, and fails on any finding.
#
# The tree is $NSTREE_CACHE/trees/series, a git copy of the pristine tree
# whose build directories are seeded from the C builds (seed_copy and
# seed_fixup in env.sh): each step rebuilds only what the patch changed.  Not part of
# `make test` (about half an hour).
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
T="$NSTREE_CACHE/trees/series"
mapfile -t SERIES < <(series_patches "$REPO" | grep -v "/patches/selftests/")

[ -f "$(variant_build c base)/vmlinux" ] || die "build the C kernel first (make kernel VARIANT=c)"
# The C-identical steps compare with the C kernel, which must carry the
# same upstream fixes as the series' first patches: bring it up to date
# (apply_fixes once, then an incremental build).
"$(dirname "$0")/build-kernel.sh" c base >/dev/null || die "the C kernel does not build"
[ -e "${SERIES[0]}" ] || die "no patches in $REPO/patches (make patches)"
git_q() { git -c user.name=nstree-rs -c user.email=nstree-rs@localhost "$@"; }
# The series tree is a git tree: without LOCALVERSION, scripts/setlocalversion
# appends "+" to its release, and UTS_RELEASE (kernel/sys.o) would differ
# from the pristine tree's.  Set, even empty, it appends nothing.
export LOCALVERSION=

# REUSE=1: the tree and build directories of the previous run, reset to
# "base" (the builds stay warm).
if [ "${REUSE:-0}" = 1 ] && [ -d "$T/.git" ] && [ -d "$T/.build-rust" ]; then
	log "reusing $T, reset to base"
	git_q -C "$T" reset -q --hard base
	git_q -C "$T" clean -qfd -e '/.build-*'
else
	log "copying the pristine tree to $T"
	rm -rf "$T"
	mkdir -p "$T"
	rsync -a --exclude='/.build-*' --exclude='/.nstree-rs-version' --exclude='/.nstree-fixes.patch' \
		"$PRISTINE/" "$T/"
	# As Debian ships it: without the upstream fixes (rust-tree.sh).
	if [ -s "$PRISTINE/.nstree-fixes.patch" ]; then
		patch -s -R -p1 --no-backup-if-mismatch -d "$T" <"$PRISTINE/.nstree-fixes.patch" || die "could not revert the fixes"
	fi
	git_q -C "$T" init -q -b series
	printf '/.build-*\n' >>"$T/.git/info/exclude"
	git_q -C "$T" add -A -f
	git_q -C "$T" commit -q -m base
	git_q -C "$T" tag base
	for v in c rust; do
		seed_copy "$(variant_build c base)" "$T/.build-$v"
	done
fi

# configure VARIANT [FRAGMENT...]: allnoconfig + fragments, checked.  An
# option the tree does not have yet at this step of the series (the KUnit
# option comes with the last patch) is left out of the fragments.
configure() {
	local v=$1 f line opt
	shift
	f="$T/.build-$v/.nstree-series.config"
	mkdir -p "$T/.build-$v"
	: >"$f"
	declare -A known=()
	while read -r opt; do known[$opt]=1; done < <(grep -rhoE --include='Kconfig*' \
		'^[[:space:]]*(menu)?config [A-Z0-9_]+' "$T" | awk '{ print $2 }' | sort -u)
	while IFS= read -r line; do
		case "$line" in '' | '#'*) continue ;; esac
		opt=${line%%=*}
		[ -n "${known[${opt#CONFIG_}]:-}" ] || continue
		echo "$line" >>"$f"
	done < <(cat "$REPO/configs/base.config" "$REPO/configs/$v.config" "$@")
	# Without KUnit, the options that depend on it (CONFIG_KUNIT_*,
	# CONFIG_*_KUNIT_TEST) cannot be set: the fragments do not ask for them.
	if grep -qx 'CONFIG_KUNIT=n' "$f"; then
		sed -i '/^CONFIG_[A-Z0-9_]*KUNIT[A-Z0-9_]*=y$/d' "$f"
	fi
	rm -f "$T/.build-$v/.nstree-frags"
	configure_frags "series-$v" "$T" "$T/.build-$v" "$f"
	seed_fixup "$T" "$T/.build-$v"
}

# Warnings of a build log (compiler, rustc, linker, Kbuild).
warnings() { grep -E '^warning|: warning:|^WARNING:' "$1" | grep -v '^warning: [0-9]* warnings* emitted'; }

rows=() bad=0 n=0
# The Rust files of the series present at this step, and the ones to touch
# so that clippy lints them again (the abstractions are in the kernel crate).
crate_rs() {
	{ find "$T/kernel/nstree_rs" -name '*.rs' 2>/dev/null
	  find "$T/rust/kernel/sync/seqlock.rs" "$T/rust/kernel/rbtree/rcu.rs" \
		"$T/rust/kernel/uaccess" -name '*.rs' 2>/dev/null; } | sort
}
for p in "${SERIES[@]}"; do
	n=$((n + 1))
	name=$(basename "$p" .patch | cut -c1-48)
	row="$name $(git patch-id --stable <"$p" | cut -c1-12) |"
	if ! git_q -C "$T" am -q --whitespace=error-all "$p" >"$LOGS/check-series-$n-am.log" 2>&1; then
		rows+=("$row git am FAILS")
		bad=$((bad + 1))
		break
	fi
	row+=" am ok |"
	for v in rust c; do
		configure "$v"
		blog="$LOGS/check-series-$n-$v.log"
		s=$(date +%s)
		if kmake "$T" "$T/.build-$v" -j"$JOBS" bzImage >"$blog" 2>&1; then
			w=$(warnings "$blog" | wc -l)
			row+=" $v: $w warnings, $(($(date +%s) - s))s |"
			[ "$w" = 0 ] || { bad=$((bad + 1)); warnings "$blog" | head -5 | sed "s/^/  [$n $v] /" >&2; }
		else
			row+=" $v: BUILD FAILS |"
			bad=$((bad + 1))
		fi
	done
	files=$(crate_rs)
	if [ -n "$files" ]; then
		if rustfmt --edition 2021 --config-path "$T/.rustfmt.toml" --check $files \
			>"$LOGS/check-series-$n-rustfmt.log" 2>&1; then
			row+=" rustfmt clean |"
		else
			row+=" rustfmt DIFFS |"
			bad=$((bad + 1))
		fi
		configure rust
		touch $files
		target=prepare
		[ ! -d "$T/kernel/nstree_rs" ] || target=kernel/nstree_rs/
		kmake "$T" "$T/.build-rust" CLIPPY=1 CLIPPY_DRIVER=/usr/bin/clippy-driver \
			$target >"$LOGS/check-series-$n-clippy.log" 2>&1
		c=$(grep -cE '^(warning|error)' "$LOGS/check-series-$n-clippy.log")
		row+=" clippy $c |"
		[ "$c" = 0 ] || bad=$((bad + 1))
		# Back to a normal build of the crate's objects.
		kmake "$T" "$T/.build-rust" kernel/nstree_rs/ >/dev/null 2>&1
	else
		row+=" no Rust yet |"
	fi
	cp=$(cd "$T" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --quiet --show-types \
		-g HEAD 2>&1 | filter_accepted)
	if [ -z "$cp" ]; then
		row+=" checkpatch clean"
	else
		echo "$cp" >"$LOGS/check-series-$n-checkpatch.log"
		row+=" checkpatch $(grep -cE '^(ERROR|WARNING|CHECK)' <<<"$cp") findings"
		bad=$((bad + 1))
	fi
	log "$row"
	rows+=("$row")
done

# The whole series: without KUnit, and booted once with each choice.
extra=()
if [ $bad = 0 ]; then
	printf 'CONFIG_KUNIT=n\n' >"$T/.nokunit.config"
	configure rust "$T/.nokunit.config"
	blog="$LOGS/check-series-nokunit.log"
	if kmake "$T" "$T/.build-rust" -j"$JOBS" bzImage >"$blog" 2>&1 && [ "$(warnings "$blog" | wc -l)" = 0 ]; then
		extra+=("series, Rust choice, CONFIG_KUNIT=n: builds, 0 warnings")
	else
		extra+=("series, Rust choice, CONFIG_KUNIT=n: FAILS (see $blog)")
		bad=$((bad + 1))
	fi
	configure rust
	kmake "$T" "$T/.build-rust" -j"$JOBS" bzImage >/dev/null 2>&1
	bo="$NSTREE_CACHE/out-series"
	mkdir -p "$bo"
	for v in c rust; do
		cp "$T/.build-$v/arch/x86/boot/bzImage" "$bo/bzImage-series-$v"
		cp "$OUT/initramfs.cpio.gz" "$bo/" 2>/dev/null || true
		if [ -f "$bo/initramfs.cpio.gz" ] && NSTREE_OUT=$bo "$REPO/qemu/run.sh" "series-$v" probe \
			>"$LOGS/check-series-boot-$v.log" 2>&1 &&
			grep -q "NSTREE-IMPL $v" "$bo/console-series-$v-probe.log"; then
			extra+=("series, $v choice: boots (NSTREE-PROBE-OK), runs the $v nstree")
		else
			extra+=("series, $v choice: DOES NOT BOOT to the probe marker (see $LOGS/check-series-boot-$v.log)")
			bad=$((bad + 1))
		fi
	done
	# The C choice with the whole series must build the objects the
	# pristine tree builds: byte for byte, every object of the kernel.
	clog="$LOGS/check-series-c-identical.log"
	if python3 "$REPO/scripts/compare-objects.py" "$(variant_build c base)" "$T/.build-c" >"$clog" 2>&1; then
		extra+=("series, C choice, against the pristine C build: $(tail -1 "$clog")")
	else
		extra+=("series, C choice, against the pristine C build: DIFFERS (see $clog): $(tail -1 "$clog")")
		bad=$((bad + 1))
	fi
	# Without CONFIG_RUST there are no Rust helpers either: then every
	# object must be identical, with no exception (--strict).  Both trees
	# built with the C kernel's fragments and CONFIG_RUST=n, in build
	# directories of their own.
	printf 'CONFIG_RUST=n\n' >"$T/.norust.config"
	nfrags=("$REPO/configs/base.config" "$REPO/configs/c.config")
	[ ! -f "$REPO/configs/series-$LINUX_SERIES.config" ] || nfrags+=("$REPO/configs/series-$LINUX_SERIES.config")
	nok=1
	for side in pristine series; do
		tree=$T
		[ $side = series ] || tree=$PRISTINE
		mkdir -p "$tree/.build-c-norust"
		configure_frags "c-norust-$side" "$tree" "$tree/.build-c-norust" "${nfrags[@]}" "$T/.norust.config"
		kmake "$tree" "$tree/.build-c-norust" -j"$JOBS" bzImage >"$LOGS/check-series-norust-$side.log" 2>&1 || nok=0
	done
	clog="$LOGS/check-series-c-identical-norust.log"
	if [ $nok = 1 ] && python3 "$REPO/scripts/compare-objects.py" --strict "$PRISTINE/.build-c-norust" \
		"$T/.build-c-norust" >"$clog" 2>&1; then
		extra+=("series, C choice, CONFIG_RUST=n, against the pristine tree: $(tail -1 "$clog")")
	else
		extra+=("series, C choice, CONFIG_RUST=n, against the pristine tree: DIFFERS or does not build (see $clog, $LOGS/check-series-norust-*.log): $(tail -1 "$clog" 2>/dev/null)")
		bad=$((bad + 1))
	fi
fi

echo
echo "=== check-series: $n patches ==="
printf '%s\n' "${rows[@]}" "${extra[@]}"
[ $bad = 0 ] && echo "every patch: git am, both choices build with 0 warnings, rustfmt, clippy and checkpatch clean" ||
	echo "$bad findings"
exit $((bad > 0))
