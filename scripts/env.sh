# SPDX-License-Identifier: GPL-2.0
# nstree-rs: shared settings for every script. Sourced, never executed.
#
# Everything large lives in $NSTREE_CACHE (default ~/.cache/nstree-rs):
# the private apt state, the kernel tree, build directories, initramfs
# images, logs and results. Nothing under it is ever committed.

: "${NSTREE_CACHE:=$HOME/.cache/nstree-rs}"
NSTREE_CACHE=$(mkdir -p "$NSTREE_CACHE" && cd "$NSTREE_CACHE" && pwd)
export NSTREE_CACHE

# The one place the kernel version is pinned.  LINUX_PKG_VERSION is the
# Debian package version we prefer; if the archive no longer serves it,
# fetch-tree.sh accepts any linux-source-$LINUX_SERIES it does serve.
NSTREE_BASE_SERIES=7.3
: "${LINUX_SERIES:=$NSTREE_BASE_SERIES}"
: "${LINUX_PKG_VERSION:=7.3.4-1~bpo13+1}"
export LINUX_SERIES LINUX_PKG_VERSION

# Toolchain: one LLVM for C and Rust.  Debian's rustc-web 1.96 runs on
# LLVM 22.1.8 (`rustc -vV`); bookworm-security ships clang-22, lld-22,
# llvm-22 and libclang-22-dev 1:22.1.8 built from the same LLVM, so
# RUSTC_CLANG_LLVM_COMPATIBLE holds and CONFIG_RUST_INLINE_HELPERS can be
# on.  bindgen-cli from crates.io is built against libclang 22.
: "${BINDGEN_VERSION:=0.73.2}"
: "${RUSTC:=/usr/bin/rustc}"
: "${LLVM_SUFFIX:=-22}"
TOOLS="$NSTREE_CACHE/tools"
: "${BINDGEN:=$TOOLS/bin/bindgen}"
export LIBCLANG_PATH=/usr/lib/llvm${LLVM_SUFFIX}/lib
export CCACHE_DIR="$NSTREE_CACHE/ccache"
export CCACHE_MAXSIZE=5G
export CCACHE_COMPILERCHECK=content

PRISTINE="$NSTREE_CACHE/src/linux-source-$LINUX_SERIES"
RUST_TREE="$NSTREE_CACHE/trees/rust"
LOGS=${NSTREE_LOGS:-$NSTREE_CACHE/logs}
: "${NSTREE_OUT:=$NSTREE_CACHE/out}"
OUT=$NSTREE_OUT
mkdir -p "$LOGS" "$OUT"

JOBS=${JOBS:-$(($(nproc) + 1))}

# The kernel source tree and build directory of a variant.  The build
# directory is a direct child of its source tree so that Kbuild uses a
# relative srctree: identical command lines in both trees let ccache and
# the seeded incremental build of the Rust variant reuse C objects.
variant_tree() {
	case "$1" in
	c) echo "$PRISTINE" ;;
	rust) echo "$RUST_TREE" ;;
	*) echo "unknown variant '$1' (c|rust)" >&2; return 1 ;;
	esac
}

variant_build() {
	local flavour=${2:-base} suffix=
	[ "$flavour" = base ] || suffix="-$flavour"
	echo "$(variant_tree "$1")/.build-$1$suffix"
}

# kmake TREE BUILDDIR ARGS...: the kernel's make with our toolchain.
kmake() {
	local tree=$1 build=$2
	shift 2
	make -C "$tree" O="$build" LLVM="$LLVM_SUFFIX" RUSTC="$RUSTC" \
		HOSTRUSTC="$RUSTC" RUSTDOC="${RUSTDOC:-/usr/bin/rustdoc}" BINDGEN="$BINDGEN" \
		CC="ccache clang$LLVM_SUFFIX" \
		"$@"
}

# configure_frags NAME TREE BUILD FRAGMENT...: BUILD/.config as allnoconfig
# with the fragments forced (what merge_config.sh -n does), run with our
# toolchain so that CONFIG_RUST is available, and checked: every option a
# fragment sets must survive.  A later fragment may set an option again
# (configs/bench-noinline.config after rust.config): the last value wins,
# in Kconfig and in the check.  Regenerated only when the fragments
# changed.
configure_frags() {
	local name=$1 tree=$2 build=$3 fhash bad=0 line opt val
	local -A last=()
	local opts=()
	shift 3
	fhash=$(cat "$@" | sha256sum | cut -c1-16)
	if [ "$(cat "$build/.nstree-frags" 2>/dev/null)" = "$fhash" ] && [ -f "$build/.config" ]; then
		return 0
	fi
	log "configuring $name: allnoconfig + ${*##*/}"
	cat "$@" >"$build/.nstree-allconfig"
	kmake "$tree" "$build" -s KCONFIG_ALLCONFIG="$build/.nstree-allconfig" \
		allnoconfig >"$LOGS/config-$name.log" 2>&1 ||
		{ tail -20 "$LOGS/config-$name.log"; die "allnoconfig failed"; }
	while IFS= read -r line; do
		case "$line" in '' | '#'*) continue ;; esac
		opt=${line%%=*}
		[ -n "${last[$opt]+set}" ] || opts+=("$opt")
		last[$opt]=$line
	done < <(cat "$@")
	for opt in "${opts[@]}"; do
		line=${last[$opt]} val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$build/.config" && { log "config: $opt should be unset"; bad=1; }
		else
			grep -qxF "$line" "$build/.config" || { log "config: $line did not stick"; bad=1; }
		fi
	done
	[ $bad = 0 ] || die "configuration of $name is not what the fragments ask for"
	echo "$fhash" >"$build/.nstree-frags"
}

log() { printf '[nstree-rs %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# kmake_watch NAME LOG TREE BUILDDIR ARGS...: kmake with its output in LOG,
# and a progress line every 20 s; polled every second, so that a build with
# nothing to do (a warm run) costs its own time.  kmake's exit status.
kmake_watch() {
	local name=$1 logf=$2 tree=$3 build=$4 start pid ticks=0
	shift 4
	start=$(date +%s)
	kmake "$tree" "$build" "$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		ticks=$((ticks + 1))
		[ $((ticks % 20)) = 0 ] || continue
		kill -0 $pid 2>/dev/null || break
		log "  [$name] $(($(date +%s) - start))s, $(grep -cE '^  (CC|RUSTC|LD|AR)' "$logf") steps, last: $(tail -1 "$logf" | cut -c1-70)"
	done
	wait $pid
}
die() { log "error: $*"; exit 1; }
# The host's busy CPU time so far, in clock ticks (every state of the
# "cpu" line of /proc/stat but idle and iowait).
busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# filter_accepted < checkpatch output: the findings that
# c-glue/checkpatch-accepted does not list (TYPE, file, why), for
# check.sh and check-series.sh.  Needs REPO.
filter_accepted() { python3 "$REPO/scripts/checkpatch-filter.py" "$REPO/c-glue/checkpatch-accepted"; }

# seed_copy SRC_BUILD DST_BUILD: a new build directory copied from a built
# one of another tree (mtimes kept), so that the first build in it only
# rebuilds what differs; seed_fixup (after configuring) completes it.
seed_copy() {
	local src=$1 dst=$2
	mkdir -p "$dst"
	cp -a "$src/." "$dst/"
	rm -f "$dst/.nstree-seed-fixed"
	touch "$dst/.nstree-seeded"
}

# seed_fixup TREE BUILD [CHANGED]: once, after the seeded directory is
# configured (CHANGED: a file listing more changed files, relative to TREE,
# for trees that are not git trees with a "base" tag).
# objtool embeds the absolute path of its source tree, so the seeded build
# rebuilds it from TREE, and every object lists the objtool binary among
# its dependencies (gen_objtooldep): a new objtool would rebuild the whole
# kernel.  So build prepare (objtool with it) first, then give every
# seeded object the new objtool's time, and make everything else that
# changed since the seeding (the files TREE's commits after "base"
# changed, the changed include/config/ symbols, regenerated headers)
# newer again, so that what depends on those still rebuilds.
seed_fixup() {
	local tree=$1 build=$2 more=${3:-} objtool changed
	[ -f "$build/.nstree-seeded" ] && [ ! -f "$build/.nstree-seed-fixed" ] || return 0
	kmake "$tree" "$build" -j"$JOBS" prepare >"$LOGS/seed-prepare.log" 2>&1 ||
		{ tail -20 "$LOGS/seed-prepare.log"; die "prepare in $build failed"; }
	objtool="$build/tools/objtool/objtool"
	if [ -x "$objtool" ] && [ "$objtool" -nt "$build/.nstree-seeded" ]; then
		changed=$(mktemp)
		{
			# A tree without git (the bench trees) names its files in $more.
			git -C "$tree" diff --name-only base HEAD 2>/dev/null | sed "s|^|$tree/|" || :
			[ -z "$more" ] || sed "s|^|$tree/|" "$more"
			find "$build" -newer "$build/.nstree-seeded" -type f \
				! -path "$build/tools/*" ! -name '*.o' ! -name '*.a' ! -name '.*.cmd' \
				! -name '*.rlib' ! -name '*.rmeta' ! -name '*.bc' ! -name '.nstree-*'
		} >"$changed"
		find "$build" -name '*.o' ! -path "$build/tools/*" ! -newer "$build/.nstree-seeded" \
			-exec touch -r "$objtool" {} +
		sleep 1
		while IFS= read -r f; do [ ! -e "$f" ] || touch "$f"; done <"$changed"
		log "seeded $build: objtool rebuilt, $(wc -l <"$changed") changed files kept newer than the seeded objects"
		rm -f "$changed"
	fi
	touch "$build/.nstree-seed-fixed"
}

# series_patches REPO: the patches to apply to the base tree, in order:
# the fixes of upstream bugs that both kernels carry (patches/fixes/,
# apply_fixes below gives them to the C tree), the series (patches/,
# without its cover letter), then the independent selftest fix
# (patches/selftests/).
series_patches() {
	local p
	for p in "$1"/patches/fixes/*.patch "$1"/patches/*.patch "$1"/patches/selftests/*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in 0000-cover-letter.patch) continue ;; esac
		echo "$p"
	done
}

# apply_fixes REPO TREE: give TREE (the pristine tree, which the C kernels
# are built from) the fixes of upstream bugs in REPO/patches/fixes/, the
# ones the Rust tree gets first in its stack, so that both kernels carry
# them.  Applied once: TREE/.nstree-fixes.patch holds what was applied
# (a changed set is reverted and the new one applied), and rust-tree.sh
# reverts it in its copy, whose base is the tree as Debian ships it.
apply_fixes() {
	local repo=$1 tree=$2 want p
	want=$(mktemp)
	for p in "$repo"/patches/fixes/*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in 0000-cover-letter.patch) continue ;; esac
		cat "$p"
	done >"$want"
	if cmp -s "$want" "$tree/.nstree-fixes.patch" 2>/dev/null ||
		{ [ ! -s "$want" ] && [ ! -e "$tree/.nstree-fixes.patch" ]; }; then
		rm -f "$want"
		return 0
	fi
	if [ -s "$tree/.nstree-fixes.patch" ]; then
		patch -s -R -p1 --no-backup-if-mismatch -d "$tree" <"$tree/.nstree-fixes.patch" ||
			die "could not revert the old fixes in $tree"
	fi
	rm -f "$tree/.nstree-fixes.patch"
	if [ -s "$want" ]; then
		# All or nothing, exactly (no fuzz, no .orig files).
		patch -s -p1 -F0 --no-backup-if-mismatch --dry-run -d "$tree" <"$want" >/dev/null ||
			die "patches/fixes do not apply to $tree"
		patch -s -p1 -F0 --no-backup-if-mismatch -d "$tree" <"$want" || die "patches/fixes do not apply to $tree"
		log "applied $(grep -c '^Subject:' "$want") upstream fix(es) to $tree"
		mv "$want" "$tree/.nstree-fixes.patch"
	else
		rm -f "$want"
	fi
}
