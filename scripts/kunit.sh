#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kunit.sh [KUNIT.PY ARGS...]: the crate's KUnit suites, the kernel's way:
# tools/testing/kunit/kunit.py run, on the Rust tree (the series applied),
# for x86_64 under QEMU, with c-glue/kernel/nstree_rs/.kunitconfig
# (which the series also adds as kernel/nstree_rs/.kunitconfig) and this
# project's toolchain (scripts/env.sh: LLVM=-22, Debian's rustc, our
# bindgen, ccache).
#
# kunit.py configures (olddefconfig of the .kunitconfig, plus the serial
# console of qemu_configs/x86_64.py), builds a kernel in its own build
# directory, $NSTREE_CACHE/kunit (the first build is a full kernel
# build; later ones are incremental), boots it,
# parses the KTAP the suites print and prints kunit.py's summary.  The
# architecture is x86_64, the one every other test of this project boots;
# kunit.py's default, UML, is another architecture, not built here.
#
# Extra arguments go to `kunit.py run`: e.g. `make kunit ARGS=--raw_output`.
# Just the other steps: `scripts/kunit.sh config`, `scripts/kunit.sh exec`
# (boot what was built; see kunit.py's --help).
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

tree=${NSTREE_KUNIT_TREE:-$RUST_TREE}
kunit="$tree/tools/testing/kunit/kunit.py"
[ -f "$kunit" ] || die "no $kunit: run make rust-tree"
build=${NSTREE_KUNIT_BUILD:-$NSTREE_CACHE/kunit}
mkdir -p "$build"

cmd=run
case "${1:-}" in run|config|build|exec|parse) cmd=$1; shift ;; esac

# The accelerator: what qemu/probe.sh found for this machine's kernels
# (TCG where /dev/kvm is missing or PVM), instead of kunit.py's "KVM if it
# opens" (see scripts/kunit/qemu-system-x86_64).
if [ ! -f "$OUT/accel.env" ]; then
	image=$(ls "$OUT"/bzImage-rust "$OUT"/bzImage-c 2>/dev/null | head -1 || true)
	[ -z "$image" ] || "$REPO/qemu/probe.sh" "$image"
fi
if [ -f "$OUT/accel.env" ]; then
	. "$OUT/accel.env"
	export NSTREE_KUNIT_ACCEL="$QEMU_ACCEL"
elif [ ! -w /dev/kvm ] || [ -d /sys/module/kvm_pvm ]; then
	export NSTREE_KUNIT_ACCEL="-accel tcg,thread=multi -cpu max,la57=off -smp 2"
fi
log "kunit.py $cmd on $tree, build directory $build, accelerator: ${ACCEL_NAME:-${NSTREE_KUNIT_ACCEL:-kunit.py default}}"

make_opts=(LLVM="$LLVM_SUFFIX" RUSTC="$RUSTC" HOSTRUSTC="$RUSTC" BINDGEN="$BINDGEN"
	   "CC=ccache clang$LLVM_SUFFIX")
args=(--arch=x86_64 --build_dir="$build" --kunitconfig="$REPO/c-glue/kernel/nstree_rs/.kunitconfig")
case "$cmd" in
run|build|config)
	for o in "${make_opts[@]}"; do args+=(--make_options "$o"); done
	# As configs/rust.config: the rust/helpers/ the crate calls inlined,
	# which needs clang and rustc on one LLVM (make setup checks it) and
	# CONFIG_EXPERT (lib/Kconfig.debug).
	args+=(--kconfig_add CONFIG_EXPERT=y --kconfig_add CONFIG_RUST_INLINE_HELPERS=y)
	;;
esac
case "$cmd" in
run|build) args+=(--jobs="$JOBS") ;;
esac
case "$cmd" in
run|exec) args+=(--timeout="${NSTREE_KUNIT_TIMEOUT:-1800}") ;;
esac

# kunit.py runs from the tree it is in and writes only to the build
# directory; no __pycache__ in the tree either.
export PYTHONDONTWRITEBYTECODE=1
PATH="$REPO/scripts/kunit:$PATH" exec python3 "$kunit" "$cmd" "${args[@]}" "$@"
