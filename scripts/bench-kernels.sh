#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-kernels.sh [VARIANT...]: build the benchmark's kernels (default:
# c c-opt rust rust-noinline) in private trees under
# $NSTREE_CACHE/bench/VARIANT, never in the shared ones:
#   c      the pristine tree
#   c-opt  the pristine tree + bench/c-opt/*.patch: upstream C with the two
#          algorithmic changes of the Rust listns() walk (permission check
#          once per call, ids collected in batches under RCU)
#   rust   the pristine tree + patches/*.patch, with the crate and glue
#          files of c-glue/series copied from this repository on top (the
#          same content when patches/ is up to date; the bench measures the
#          sources even when it is not)
#   rust-noinline  the same Rust tree, configured with
#          configs/bench-noinline.config on top (CONFIG_RUST_INLINE_HELPERS=n):
#          rust-noinline/rust is what the inlined C helpers buy
# each + bench/kernel/*.patch (the boot-time tree API microbenchmark),
# configured with configs/base.config + configs/{c,rust}.config +
# configs/bench.config (+ bench-noinline.config), built with -j$JOBS; on
# the Rust kernels llvm-nm checks that the crate's object calls no
# rust_helper_* with inline helpers and calls them without.  Nothing
# comes from the shared $RUST_TREE, which may be mid-change.
#
# A tree is first copied with the pristine tree's C build directory, so
# that the first build is incremental (seed_copy and seed_fixup in env.sh,
# as build-kernel.sh seeds the Rust build: objtool, which embeds the
# absolute source path, is rebuilt, and the seeded objects are kept newer
# than it, the patched files newer than them).  When the patches
# or the copied files change, the tree is re-synced from the pristine one,
# patched again, and every file either set of patches touched is made
# newer than the objects, so Kbuild rebuilds what depends on it.
# Images: $OUT/bzImage-bench-VARIANT; vmlinux stays in the build directory.
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
BENCH_TREES="$NSTREE_CACHE/bench"

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(c c-opt rust rust-noinline)

# The crate and glue files the series copies into the tree (c-glue/series):
# where a later patch puts another file at the same place, the last one.
series_files() {
	awk '$1 == "file:" { if (!($3 in src)) order[++n] = $3; src[$3] = $2 }
	     END { for (i = 1; i <= n; i++) print src[order[i]], order[i] }' "$REPO/c-glue/series"
}

# The series' patches, in order; a cover letter (no diff) is not applied.
series_patches_of() {
	local p
	for p in "$REPO"/patches/*.patch; do
		grep -q '^diff --git ' "$p" && echo "$p"
	done
}

# The crate and glue files as they are in this repository, over what
# patches/ put in $tree (appends to $new).
overlay() {
	local from to
	while read -r from to; do
		cmp -s "$REPO/$from" "$tree/$to" && continue
		log "bench tree rust: $from differs from patches/: copying it"
		cp "$REPO/$from" "$tree/$to"
		new+="$to"$'\n'
	done < <(series_files)
}

bench_tree() { echo "$BENCH_TREES/$1"; }
bench_build() { echo "$BENCH_TREES/$1/.build"; }

prepare_tree() {
	local v=$1 tree src srcbuild stamp old new patches=() p
	tree=$(bench_tree "$v")
	src=$PRISTINE srcbuild=$PRISTINE/.build-c
	case "$v" in
	c) ;;
	c-opt) patches+=("$REPO"/bench/c-opt/*.patch) ;;
	rust | rust-noinline) mapfile -t -O ${#patches[@]} patches < <(series_patches_of) ;;
	*) die "unknown bench variant '$v' (c|c-opt|rust|rust-noinline)" ;;
	esac
	patches+=("$REPO"/bench/kernel/*.patch)
	[ -f "$src/Makefile" ] || die "no kernel tree at $src (make tree)"

	# What the tree must contain: the source's identity, the patches and,
	# for rust, the copied files.
	stamp=$({
		cat "$src/.nstree-rs-version" 2>/dev/null || :
		cat "${patches[@]}"
		[ "${v%-noinline}" != rust ] || series_files | while read -r from _; do cat "$REPO/$from"; done
	} | sha256sum | cut -c1-16)
	if [ "$(cat "$tree/.nstree-bench-stamp" 2>/dev/null)" = "$stamp" ]; then
		log "bench tree $v up to date"
		return
	fi

	mkdir -p "$tree"
	if [ ! -d "$tree/.build" ]; then
		if [ -f "$srcbuild/vmlinux" ]; then
			log "bench tree $v: copying $src with its build directory"
			# seed_copy/seed_fixup (env.sh): build() runs the fixup.
			seed_copy "$srcbuild" "$tree/.build"
		else
			log "bench tree $v: no build of $src to seed from: building from scratch"
			mkdir -p "$tree/.build"
		fi
	fi
	old=$(cat "$tree/.nstree-bench-files" 2>/dev/null || :)
	log "bench tree $v: syncing from $src"
	rsync -a --delete --exclude='/.build*' --exclude=/.git --exclude='/.nstree-bench-*' \
		"$src/" "$tree/"
	new=
	for p in "${patches[@]}"; do
		case "$p" in "$REPO"/bench/kernel/*) [ "${v%-noinline}" != rust ] || overlay ;; esac
		log "bench tree $v: applying ${p#"$REPO"/}"
		(cd "$tree" && patch -p1 -s --no-backup-if-mismatch) <"$p" ||
			die "${p#"$REPO"/} does not apply to $src"
		new+=$(sed -n 's|^+++ b/||p' "$p")$'\n'
	done
	# Newer than every object: whatever depends on them is rebuilt.
	printf '%s\n%s\n' "$old" "$new" | sort -u | while read -r f; do
		[ -z "$f" ] || [ ! -e "$tree/$f" ] || touch "$tree/$f"
	done
	printf '%s' "$new" | sort -u >"$tree/.nstree-bench-files"
	echo "$stamp" >"$tree/.nstree-bench-stamp"
}

configure() {
	local v=$1 frags
	case "$v" in
	c | c-opt) frags=("$REPO/configs/base.config" "$REPO/configs/c.config") ;;
	rust | rust-noinline) frags=("$REPO/configs/base.config" "$REPO/configs/rust.config") ;;
	esac
	frags+=("$REPO/configs/bench.config")
	[ ! -f "$REPO/configs/series-$LINUX_SERIES.config" ] || frags+=("$REPO/configs/series-$LINUX_SERIES.config")
	# Last: it overrides rust.config's CONFIG_RUST_INLINE_HELPERS=y.
	[ "$v" != rust-noinline ] || frags+=("$REPO/configs/bench-noinline.config")
	configure_frags "bench-$v" "$(bench_tree "$v")" "$(bench_build "$v")" "${frags[@]}"
}

# The Rust kernels: CONFIG_RUST_INLINE_HELPERS in effect on rust, not on
# rust-noinline (as scripts/build-kernel.sh checks it): with it, the
# crate's object calls no rust_helper_*; without it, it calls them.
check_helpers() {
	local v=$1 build obj called
	build=$(bench_build "$v")
	obj="$build/kernel/nstree_rs/nstree_rs.o"
	case "$v" in rust | rust-noinline) ;; *) return 0 ;; esac
	[ -f "$obj" ] || die "bench-$v: no $obj"
	called=$(llvm-nm"$LLVM_SUFFIX" -u "$obj" | awk '$2 ~ /^rust_helper_/ { print $2 }' | wc -l)
	if grep -q '^CONFIG_RUST_INLINE_HELPERS=y' "$build/.config"; then
		[ "$v" = rust ] || die "bench-$v: CONFIG_RUST_INLINE_HELPERS=y"
		[ "$called" = 0 ] || die "bench-$v: inline helpers on, but nstree_rs.o calls $called rust_helper_*"
		log "bench-$v: inline helpers in effect (nstree_rs.o calls no rust_helper_*)"
	else
		[ "$v" = rust-noinline ] || die "bench-$v: CONFIG_RUST_INLINE_HELPERS is off"
		[ "$called" != 0 ] || die "bench-$v: inline helpers off, but nstree_rs.o calls no rust_helper_*"
		log "bench-$v: inline helpers off (nstree_rs.o calls $called rust_helper_* functions)"
	fi
}

build() {
	local v=$1 tree build blog start
	tree=$(bench_tree "$v")
	build=$(bench_build "$v")
	blog="$LOGS/build-bench-$v.log"
	start=$(date +%s)
	# A freshly seeded build directory: keep its objects (env.sh); the
	# files the patches touched stay newer than them.
	seed_fixup "$tree" "$build" "$tree/.nstree-bench-files"
	log "building bench-$v in $build ($JOBS jobs)"
	if ! kmake "$tree" "$build" -j"$JOBS" bzImage >"$blog" 2>&1; then
		grep -E 'error|Error' "$blog" | head -30 >&2
		die "build of bench-$v failed, see $blog"
	fi
	check_helpers "$v"
	cp "$build/arch/x86/boot/bzImage" "$OUT/bzImage-bench-$v"
	log "built bench-$v in $(($(date +%s) - start))s -> $OUT/bzImage-bench-$v"
}

mkdir -p "$BENCH_TREES"
for v in "${variants[@]}"; do
	prepare_tree "$v"
	configure "$v"
	build "$v"
done
