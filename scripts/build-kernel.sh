#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh VARIANT [FLAVOUR]: configure and build one kernel.
#   VARIANT  c     the pristine Debian tree, upstream C nstree
#            rust  the tree with our series applied, CONFIG_NSTREE_RUST=y
#   FLAVOUR  base  configs/base.config + configs/VARIANT.config
#            debug the same plus configs/debug.config
#            kcsan the same plus configs/kcsan.config (instead of debug)
# The image lands in $OUT/bzImage-VARIANT[-FLAVOUR].
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

variant=${1:?usage: build-kernel.sh c|rust [base|debug|kcsan]}
flavour=${2:-base}
tree=$(variant_tree "$variant")
build=$(variant_build "$variant" "$flavour")
name=$variant
[ "$flavour" = base ] || name="$variant-$flavour"
# Another series than the project's (make torture LINUX_SERIES=7.2): its
# own image name, next to the project's.
[ "$LINUX_SERIES" = "$NSTREE_BASE_SERIES" ] || name="$name-$LINUX_SERIES"
frags=("$REPO/configs/base.config" "$REPO/configs/$variant.config")
[ "$flavour" = base ] || frags+=("$REPO/configs/$flavour.config")
# Options renamed between kernel series (only for a non-default series).
[ ! -f "$REPO/configs/series-$LINUX_SERIES.config" ] || frags+=("$REPO/configs/series-$LINUX_SERIES.config")

[ -f "$tree/Makefile" ] || die "no kernel tree at $tree (make tree)"
# The C kernel carries the upstream fixes the Rust tree has in its stack
# (the project's series only: another series' C kernel stays as shipped).
if [ "$variant" = c ] && [ "$LINUX_SERIES" = "$NSTREE_BASE_SERIES" ]; then
	apply_fixes "$REPO" "$tree"
fi

# Seed a fresh Rust build directory from the C one: same config but for the
# nstree choice, so Kbuild only rebuilds what the series touches
# (seed_copy, seed_fixup: env.sh).
cbuild=$(variant_build c "$flavour")
if [ "$variant" = rust ] && [ ! -f "$build/.config" ] && [ -f "$cbuild/vmlinux" ]; then
	log "seeding $build from the C build"
	seed_copy "$cbuild" "$build"
	# The seeded objects may be newer than the files the series changed:
	# make those newer again so that everything depending on them rebuilds.
	(cd "$tree" && git diff --name-only base HEAD | xargs -r touch)
fi
mkdir -p "$build"

# Regenerate .config only when the fragments changed.
configure_frags "$name" "$tree" "$build" "${frags[@]}"
seed_fixup "$tree" "$build"

log "building $name in $build ($JOBS jobs)"
start=$(date +%s)
blog="$LOGS/build-$name.log"
if ! kmake_watch "$name" "$blog" "$tree" "$build" -j"$JOBS" bzImage; then
	grep -E 'error|Error' "$blog" | head -30 >&2
	die "build of $name failed, see $blog"
fi
# The Rust kernels: prove that CONFIG_RUST_INLINE_HELPERS is in effect.
# rustc's bitcode of the crate (nstree_rs.bc) calls the rust/helpers/
# functions; with the option on, Kbuild links helpers.bc into it and the
# object must call none of them (they were inlined); with it off, there is
# no bitcode and the object calls them.
if [ "$variant" = rust ]; then
	obj="$build/kernel/nstree_rs/nstree_rs.o"
	called=$(llvm-nm"$LLVM_SUFFIX" -u "$obj" | awk '$2 ~ /^rust_helper_/ { print $2 }' | sort)
	if grep -q '^CONFIG_RUST_INLINE_HELPERS=y' "$build/.config"; then
		before=$(llvm-nm"$LLVM_SUFFIX" -u "${obj%.o}.bc" | awk '$2 ~ /^rust_helper_/ { print $2 }' | sort)
		[ -n "$before" ] || die "$name: nstree_rs.bc calls no rust_helper_*: cannot show inlining"
		[ -z "$called" ] || die "$name: CONFIG_RUST_INLINE_HELPERS=y, but nstree_rs.o still calls: $(echo $called)"
		log "inline helpers in effect: the crate's bitcode calls $(wc -l <<<"$before") rust_helper_* functions, nstree_rs.o none"
		printf 'inline-helpers=y bitcode-calls=%s object-calls=0\n' "$(wc -l <<<"$before")" >"$OUT/helpers-$name.txt"
	else
		[ -n "$called" ] || die "$name: inline helpers off, but nstree_rs.o calls no rust_helper_*?"
		log "inline helpers off: nstree_rs.o calls $(wc -l <<<"$called") rust_helper_* functions"
		printf 'inline-helpers=n object-calls=%s\n' "$(wc -l <<<"$called")" >"$OUT/helpers-$name.txt"
	fi
fi
# KCSAN kernels: what is instrumented.  Linux 7.3 gives rustc no KCSAN
# flags, so the crate's own code calls no __tsan_* function; the C it
# calls does (kernel/nstree.o and nscommon.o on the C kernel, the glue on
# the Rust one), and so do rust/helpers/ bodies that inline helpers put
# into the crate's object.  Calls to them, per object, for the record
# ($OUT/kcsan-NAME.txt, docs/torture.md "KCSAN").
if grep -q '^CONFIG_KCSAN=y' "$build/.config"; then
	{
		for o in kernel/nstree_rs/nstree_rs.o kernel/nstree.o kernel/nscommon.o \
			kernel/nstree_rs/nstree_glue.o fs/nsfs.o; do
			[ -f "$build/$o" ] || continue
			printf '%s tsan-calls=%s\n' "$o" \
				"$(llvm-objdump"$LLVM_SUFFIX" -dr "$build/$o" | grep -cE 'R_X86_64_(PLT|PC)32[[:space:]]+__tsan_')"
		done
	} >"$OUT/kcsan-$name.txt"
	log "KCSAN instrumentation: $(tr '\n' ';' <"$OUT/kcsan-$name.txt")"
fi
cp "$build/arch/x86/boot/bzImage" "$OUT/bzImage-$name"
kmake "$tree" "$build" -s kernelrelease >"$OUT/kernelrelease-$name"
cp "$build/.config" "$OUT/config-$name"
log "built $name: $(cat "$OUT/kernelrelease-$name") in $(($(date +%s) - start))s -> $OUT/bzImage-$name"
