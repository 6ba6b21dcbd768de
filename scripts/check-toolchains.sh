#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-toolchains.sh: build the Rust kernel with the oldest Rust toolchain
# Linux 7.3 supports and with the newest one Debian ships, each in a
# Debian trixie chroot, and boot the oldest one's kernel once.
#
#   min  trixie's rustc 1.85.1 (rust-src, rust-clippy, rustfmt, which
#        bindgen formats its output with), bindgen 0.71.1 and
#        clang/lld/llvm 19: the minimums of the tree's
#        scripts/min-tool-version.sh.
#   new  trixie-backports' rustc 1.98.1 (rust-src, rust-clippy, rustfmt), the
#        clang of the LLVM it runs on (`rustc -vV`), and bindgen-cli
#        $BINDGEN_VERSION built with that chroot's cargo: trixie's bindgen
#        0.71.1 mis-parses with libclang >= 22 (the tree's
#        scripts/rust_is_available.sh refuses it).
#
# trixie's rustc and its backport are one package name, so each toolchain
# has its chroot, $NSTREE_CACHE/chroots/trixie (min) and trixie-bpo (new),
# both copied from one debootstrap of trixie with the kernel's build
# dependencies (chroots/trixie-base).  Each is made once; its
# .nstree-toolchain stamp records the pinned packages, what dpkg
# installed and the tools' versions; changed pins are installed on top.
#
# For each toolchain, in $NSTREE_CACHE/toolchains/NAME/: a fresh copy of
# the pristine tree with the series applied (PATCHES=dir, default
# patches/: its fixes/, the series and selftests/, as series_patches()
# orders them, applied with patch -p1), configured as build-kernel.sh
# configures the Rust kernel (base.config + rust.config, configure_frags)
# and built in the chroot (the toolchain directory and the repository
# bind-mounted there; every mount undone on exit).  A tree built before
# is brought to the fresh copy file by file and keeps its build directory
# (and each toolchain has its ccache), and the Rust code is compiled in
# every run, so that all of its warnings are in the log.  Where rustc's LLVM
# and clang's differ, CONFIG_RUST_INLINE_HELPERS cannot be on
# (RUSTC_CLANG_LLVM_COMPATIBLE): it is dropped from that toolchain's
# configuration, and the report says so; every other option of the
# fragments must survive.  rustc's warnings in the build log and clippy's
# findings (CLIPPY=1 build of rust/ and kernel/nstree_rs/) must be 0.
#
# Then the min kernel boots with the upstream namespaces selftests
# (qemu/run.sh with NSTREE_OUT=$NSTREE_CACHE/toolchains/out and make
# test's initramfs), judged by scripts/report.py: the 12 binaries must
# pass.  A summary table ends the run; the exit status is non-zero if a
# build failed, had warnings or clippy findings, or the boot failed.
#
#   TOOLCHAINS="min new"  the toolchains to check
#   BOOT=0                build only
#   PATCHES=dir           another version of the series
#   --setup               make the chroots only
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)

# The pins: Debian package versions, installed exactly, and the versions
# the tools must then report.  A pin the archive no longer serves stops
# the run with its name (a security update of trixie's toolchain: update
# the pin here).
: "${MIN_RUST_DEB:=1.85.1+dfsg1-1+deb13u1}"
MIN_RUSTC=1.85.1
MIN_LLVM=19
: "${MIN_LLVM_DEB:=1:19.1.7-3+b1}"
: "${MIN_BINDGEN_DEB:=0.71.1-6}"
MIN_BINDGEN=0.71.1
: "${NEW_RUST_DEB:=1.98.1+dfsg1-1~bpo13+1}"
NEW_RUSTC=1.98.1
# rustc 1.98.1's libstd-rust-1.98 depends on libllvm22; trixie (a point
# release) has clang-22 of the same LLVM.
NEW_LLVM=22
: "${NEW_LLVM_DEB:=1:22.1.8-1~deb13u5}"
NEW_BINDGEN=$BINDGEN_VERSION

MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
CHROOTS="$NSTREE_CACHE/chroots"
BASE="$CHROOTS/trixie-base"
TC="$NSTREE_CACHE/toolchains"
: "${TOOLCHAINS:=min new}"
: "${BOOT:=1}"
PATCHES=$(cd "${PATCHES:-$REPO/patches}" 2>/dev/null && pwd) || die "no patch directory ${PATCHES:-$REPO/patches}"

# The kernel's build dependencies, in every chroot.
BUILD_DEPS=(make gcc libc6-dev binutils flex bison bc libelf-dev libssl-dev cpio
	    python3 perl kmod xz-utils ccache)

chroot_of() { case $1 in min) echo "$CHROOTS/trixie" ;; new) echo "$CHROOTS/trixie-bpo" ;; esac; }

# pins NAME: the package=version list of a toolchain.
pins() {
	case $1 in
	min)
		echo "rustc=$MIN_RUST_DEB" "libstd-rust-dev=$MIN_RUST_DEB" "rust-src=$MIN_RUST_DEB"
		echo "rust-clippy=$MIN_RUST_DEB" "rustfmt=$MIN_RUST_DEB" "bindgen=$MIN_BINDGEN_DEB"
		for p in clang lld llvm libclang libclang1; do
			[ $p = libclang ] && p=libclang-$MIN_LLVM-dev || p=$p-$MIN_LLVM
			echo "$p=$MIN_LLVM_DEB"
		done
		;;
	new)
		echo "rustc=$NEW_RUST_DEB" "libstd-rust-dev=$NEW_RUST_DEB" "rust-src=$NEW_RUST_DEB"
		echo "rust-clippy=$NEW_RUST_DEB" "rustfmt=$NEW_RUST_DEB" "cargo=$NEW_RUST_DEB"
		for p in clang lld llvm libclang libclang1; do
			[ $p = libclang ] && p=libclang-$NEW_LLVM-dev || p=$p-$NEW_LLVM
			echo "$p=$NEW_LLVM_DEB"
		done
		;;
	esac | tr ' ' '\n'
}

# --- mounts ------------------------------------------------------------

declare -A R CHROOT_TIME
MOUNTS=()
# umount_under DIR: undo our mounts under DIR (all of them: /), newest first.
umount_under() {
	local i m keep=()
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		m=${MOUNTS[i]}
		case "$m/" in
		"$1"/*) umount "$m" 2>/dev/null || umount -l "$m" || log "warning: could not unmount $m" ;;
		*) keep=("$m" "${keep[@]}") ;;
		esac
	done
	MOUNTS=("${keep[@]}")
}
cleanup() { umount_under ""; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# bind SRC DST [ro]
bind() {
	mkdir -p "$2"
	mount --bind "$1" "$2" || die "mount --bind $1 $2 failed"
	MOUNTS+=("$2")
	[ "${3:-}" != ro ] || mount -o remount,bind,ro "$2" || die "could not make $2 read-only"
}

# mount_sys CHROOT: /proc and /dev for apt, make and rustc.
mount_sys() {
	grep -q " $1/proc " /proc/mounts || { mount -t proc proc "$1/proc" && MOUNTS+=("$1/proc"); } ||
		die "could not mount /proc in $1"
	grep -q " $1/dev " /proc/mounts || bind /dev "$1/dev"
	cp /etc/resolv.conf "$1/etc/resolv.conf"
}

# Nothing may be mounted under a directory we copy or remove (a bound
# /dev under a chroot removed with rm -rf would be the host's).
assert_unmounted() {
	! awk '{ print $2 }' /proc/mounts | grep -q "^$1/" || die "$1 has mounts under it: unmount them first"
}

# in_chroot CHROOT CMD...: CMD in the chroot, in a clean environment.
in_chroot() {
	local ch=$1
	shift
	chroot "$ch" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

# --- chroots -----------------------------------------------------------

# sources CHROOT [backports]
sources() {
	{
		echo "deb $MIRROR trixie main"
		echo "deb $MIRROR trixie-updates main"
		echo "deb $SECURITY_MIRROR trixie-security main"
		[ "${2:-}" != backports ] || echo "deb $MIRROR trixie-backports main"
	} >"$1/etc/apt/sources.list"
	rm -f "$1"/etc/apt/sources.list.d/*
}

make_base() {
	local start
	[ -f "$BASE/.nstree-base" ] && return 0
	if ! command -v debootstrap >/dev/null; then
		log "installing debootstrap"
		apt-get install -y -qq debootstrap >"$LOGS/debootstrap-install.log" 2>&1 ||
			{ tail -5 "$LOGS/debootstrap-install.log"; die "apt-get install debootstrap failed"; }
	fi
	assert_unmounted "$BASE"
	rm -rf "$BASE"
	mkdir -p "$CHROOTS"
	start=$(date +%s)
	log "debootstrap trixie into $BASE from $MIRROR (a few minutes)"
	debootstrap --variant=minbase --include=ca-certificates trixie "$BASE" "$MIRROR" \
		>"$LOGS/debootstrap.log" 2>&1 ||
		{ tail -20 "$LOGS/debootstrap.log"; die "debootstrap trixie failed, see $LOGS/debootstrap.log"; }
	sources "$BASE"
	mount_sys "$BASE"
	log "installing the kernel's build dependencies in the chroot"
	{ in_chroot "$BASE" apt-get -q update &&
		in_chroot "$BASE" apt-get install -y -q --no-install-recommends "${BUILD_DEPS[@]}"; } \
		>"$LOGS/chroot-base-apt.log" 2>&1 ||
		{ tail -20 "$LOGS/chroot-base-apt.log"; die "build dependencies did not install in $BASE"; }
	in_chroot "$BASE" apt-get clean
	umount_under "$BASE"
	echo "debootstrap trixie $(date -u +%FT%TZ), $(($(date +%s) - start))s: ${BUILD_DEPS[*]}" >"$BASE/.nstree-base"
	CHROOT_TIME[base]=$(($(date +%s) - start))
}

# tool_versions CHROOT NAME: the versions the tools report.
tool_versions() {
	local ch=$1 n=$2 llvm bg
	[ "$n" = min ] && llvm=$MIN_LLVM || llvm=$NEW_LLVM
	[ "$n" = min ] && bg=/usr/bin/bindgen || bg=/opt/bindgen/bin/bindgen
	echo "rustc: $(in_chroot "$ch" rustc --version 2>&1)"
	echo "rustc-llvm: $(in_chroot "$ch" rustc -vV 2>&1 | sed -n 's/^LLVM version: //p')"
	echo "clippy: $(in_chroot "$ch" clippy-driver --version 2>&1 | head -1)"
	echo "bindgen: $(in_chroot "$ch" env LIBCLANG_PATH=/usr/lib/llvm-$llvm/lib "$bg" --version 2>&1)"
	echo "clang: $(in_chroot "$ch" clang-$llvm --version 2>&1 | head -1)"
	echo "rust-src: $(test -d "$ch/usr/lib/rustlib/src/rust/library/core" && echo present || echo MISSING)"
}

# make_chroot NAME: the chroot of a toolchain, made once.  When the pins
# change, a complete chroot gets them installed on top (apt-get install
# PKG=VERSION, downgrades allowed), an incomplete one is made again.
make_chroot() {
	local n=$1 ch want p missing=() start bad=0 v
	ch=$(chroot_of "$n")
	want=$(pins "$n"; [ "$n" = min ] || echo "bindgen-cli@$NEW_BINDGEN (cargo)")
	if [ -f "$ch/.nstree-toolchain" ] &&
		[ "$(sed -n '/^# pins$/,/^# installed$/p' "$ch/.nstree-toolchain" | sed '1d;$d')" = "$want" ]; then
		return 0
	fi
	start=$(date +%s)
	assert_unmounted "$ch"
	if [ -f "$ch/.nstree-toolchain" ]; then
		log "the $n toolchain's pins changed: installing them in $ch"
		rm -f "$ch/.nstree-toolchain"
	else
		make_base
		rm -rf "$ch"
		log "making the $n toolchain's chroot $ch"
		cp -a "$BASE" "$ch" || die "could not copy $BASE"
		rm -f "$ch/.nstree-base"
	fi
	[ "$n" = min ] && sources "$ch" || sources "$ch" backports
	mount_sys "$ch"
	in_chroot "$ch" apt-get -q update >"$LOGS/chroot-$n-apt.log" 2>&1 ||
		{ tail -20 "$LOGS/chroot-$n-apt.log"; die "apt-get update failed in $ch"; }
	# Every pinned package at its version, or stop naming what is missing.
	for p in $(pins "$n"); do
		v=$(in_chroot "$ch" apt-cache madison "${p%%=*}" | awk -F' *[|] *' '{ print $2 }')
		grep -qxF "${p#*=}" <<<"$v" ||
			missing+=("${p%%=*} ${p#*=} (the archive has: $(echo ${v:-nothing}))")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		umount_under "$ch"
		for p in "${missing[@]}"; do log "missing from Debian's archive: $p"; done
		die "Debian's archive does not serve the $n toolchain's pinned packages (above): update the pins in $0"
	fi
	log "installing the $n toolchain: $(pins "$n" | tr '\n' ' ')"
	in_chroot "$ch" apt-get install -y -q --no-install-recommends --allow-downgrades $(pins "$n") \
		>>"$LOGS/chroot-$n-apt.log" 2>&1 ||
		{ tail -20 "$LOGS/chroot-$n-apt.log"; die "the $n toolchain did not install, see $LOGS/chroot-$n-apt.log"; }
	if [ "$n" = new ] &&
		! in_chroot "$ch" /opt/bindgen/bin/bindgen --version 2>/dev/null | grep -qx "bindgen $NEW_BINDGEN"; then
		# bindgen-cli loads libclang at run time (LIBCLANG_PATH): the one of
		# clang-$NEW_LLVM.
		log "building bindgen-cli $NEW_BINDGEN with the chroot's cargo (a few minutes)"
		# The chroot trusts the certificate authorities the host added
		# (a TLS-intercepting proxy's), as the host's cargo does.
		if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
			cp /usr/local/share/ca-certificates/*.crt "$ch/usr/local/share/ca-certificates/"
			in_chroot "$ch" update-ca-certificates >/dev/null 2>&1 ||
				log "warning: update-ca-certificates failed in $ch"
		fi
		in_chroot "$ch" cargo install --quiet --locked --force --root /opt/bindgen "bindgen-cli@$NEW_BINDGEN" \
			>"$LOGS/chroot-$n-bindgen.log" 2>&1 ||
			{ tail -20 "$LOGS/chroot-$n-bindgen.log"; die "cargo install bindgen-cli@$NEW_BINDGEN failed in $ch"; }
		rm -rf "$ch/root/.cargo/registry"
	fi
	in_chroot "$ch" apt-get clean
	tool_versions "$ch" "$n" >"$ch/.nstree-versions"
	umount_under "$ch"
	# The versions the tools report must be the pinned ones.
	if [ "$n" = min ]; then
		grep -q "^rustc: rustc $MIN_RUSTC " "$ch/.nstree-versions" || bad=1
		grep -q "^bindgen: bindgen $MIN_BINDGEN\$" "$ch/.nstree-versions" || bad=1
		grep -q "^clang: .*clang version $MIN_LLVM\." "$ch/.nstree-versions" || bad=1
	else
		grep -q "^rustc: rustc $NEW_RUSTC " "$ch/.nstree-versions" || bad=1
		grep -q "^bindgen: bindgen $NEW_BINDGEN\$" "$ch/.nstree-versions" || bad=1
		grep -q "^clang: .*clang version $NEW_LLVM\." "$ch/.nstree-versions" || bad=1
	fi
	grep -q "^rust-src: present" "$ch/.nstree-versions" || bad=1
	[ $bad = 0 ] || { cat "$ch/.nstree-versions" >&2; die "the $n toolchain's versions are not the pinned ones"; }
	CHROOT_TIME[$n]=$(($(date +%s) - start))
	{
		echo "# trixie chroot of the $n toolchain, made $(date -u +%FT%TZ) in ${CHROOT_TIME[$n]}s"
		echo "# pins"
		echo "$want"
		echo "# installed"
		in_chroot "$ch" dpkg-query -W -f='${Package}=${Version}\n' |
			grep -E '^(rust|libstd-rust|cargo|bindgen|clang|lld|llvm|libclang|libllvm|gcc|make)'
		echo "# versions"
		cat "$ch/.nstree-versions"
	} >"$ch/.nstree-toolchain"
	log "$n toolchain ready in ${CHROOT_TIME[$n]}s: $(grep -E '^(rustc|bindgen|clang):' "$ch/.nstree-versions" | cut -d' ' -f2- | tr '\n' ';')"
}

# --- the builds --------------------------------------------------------

# series LIST: the patches to apply, in series_patches()'s order.
series() {
	local p
	for p in "$PATCHES"/fixes/*.patch "$PATCHES"/*.patch "$PATCHES"/selftests/*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in 0000-cover-letter.patch) continue ;; esac
		echo "$p"
	done
}

# prepare_tree NAME: $TC/NAME/linux, the pristine tree with the series.
# The fresh copy is made in $TC/NAME/stage; a tree already built (with
# another series) becomes that copy file by file: only files whose
# contents differ are rewritten, with the time of now, so that its kept
# build directory rebuilds what they need, and the fragments are applied
# again (the series may change Kconfig files; a new .config can still
# make Kbuild rebuild much of the kernel, from the toolchain's ccache).
prepare_tree() {
	local n=$1 t="$TC/$1/linux" s="$TC/$1/stage" sum p
	mapfile -t SERIES < <(series)
	[ ${#SERIES[@]} -gt 0 ] || die "no patches in $PATCHES"
	sum=$(cat "${SERIES[@]}" | sha256sum | cut -c1-16)
	if [ "$(cat "$t/.nstree-series" 2>/dev/null)" != "$sum" ]; then
		log "$n: a fresh copy of the pristine tree with ${#SERIES[@]} patches of $PATCHES"
		rm -rf "$s"
		mkdir -p "$s"
		rsync -a --exclude='/.build-*' --exclude='/.nstree-rs-version' --exclude='/.nstree-fixes.patch' \
			"$PRISTINE/" "$s/" || die "could not copy $PRISTINE"
		# As Debian ships it: without the fixes the C build applied (rust-tree.sh).
		if [ -s "$PRISTINE/.nstree-fixes.patch" ]; then
			patch -s -R -p1 --no-backup-if-mismatch -d "$s" <"$PRISTINE/.nstree-fixes.patch" ||
				die "could not revert the upstream fixes in $s"
		fi
		for p in "${SERIES[@]}"; do
			patch -s -p1 -F0 --no-backup-if-mismatch -d "$s" <"$p" >"$TC/$n/patch.log" 2>&1 ||
				{ cat "$TC/$n/patch.log" >&2; die "$(basename "$p") does not apply to the pristine tree"; }
		done
		if [ -d "$t/.build-rust" ]; then
			rsync -rlpD --checksum --delete --exclude=/.build-rust "$s/" "$t/" ||
				die "could not update $t"
			rm -rf "$s" "$t/.build-rust/.nstree-frags"
		else
			rm -rf "$t"
			mv "$s" "$t"
		fi
		echo "$sum" >"$t/.nstree-series"
	fi
	# The Rust code is always compiled again, so that every warning of
	# rust/ and the crate is in this run's log.
	rm -rf "$t/.build-rust/rust" "$t/.build-rust/kernel/nstree_rs"
}

# build_inside NAME: run in the chroot (this script, --inside NAME), with
# the toolchain directory at /nstree/work and the repository at
# /nstree/repo: configure, build, clippy.  Writes /nstree/work/result.
build_inside() {
	local n=$1 tree=/nstree/work/linux build frags rllvm cllvm inline=y start rc obj
	build="$tree/.build-rust"
	mkdir -p "$build"
	rllvm=$("$RUSTC" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
	cllvm=$("clang$LLVM_SUFFIX" -dumpversion | cut -d. -f1)
	frags=("$REPO/configs/base.config" "$REPO/configs/rust.config")
	if [ "$rllvm" != "$cllvm" ]; then
		# RUSTC_CLANG_LLVM_COMPATIBLE is n: no inline helpers.
		inline="n (rustc LLVM $rllvm, clang LLVM $cllvm)"
		grep -v '^CONFIG_RUST_INLINE_HELPERS=' "$REPO/configs/rust.config" >/nstree/work/rust.config
		frags=("$REPO/configs/base.config" /nstree/work/rust.config)
	fi
	{
		echo "inline=$inline"
	} >/nstree/work/result
	configure_frags "rust-$n" "$tree" "$build" "${frags[@]}"
	log "$n: building in $build ($JOBS jobs)"
	start=$(date +%s)
	kmake_watch "$n" "$LOGS/build.log" "$tree" "$build" -j"$JOBS" bzImage
	rc=$?
	echo "build_rc=$rc build_secs=$(($(date +%s) - start))" >>/nstree/work/result
	[ $rc = 0 ] || return 0
	# The image and the crate's object as built (clippy rebuilds the object).
	cp "$build/arch/x86/boot/bzImage" /nstree/work/bzImage
	obj="$build/kernel/nstree_rs/nstree_rs.o"
	echo "size=$(size "$obj" | awk 'NR == 2 { print $1 "/" $2 "/" $3 }')" \
		"helper_calls=$(nm -u "$obj" | grep -c ' rust_helper_')" >>/nstree/work/result
	command -v clippy-driver >/dev/null || { echo "clippy=none" >>/nstree/work/result; return 0; }
	log "$n: clippy (CLIPPY=1) on rust/ and kernel/nstree_rs/"
	start=$(date +%s)
	kmake "$tree" "$build" -j"$JOBS" CLIPPY=1 CLIPPY_DRIVER=clippy-driver rust/ kernel/nstree_rs/ \
		>"$LOGS/clippy.log" 2>&1
	rc=$?
	echo "clippy=$(clippy-driver --version | head -1 | tr ' ' _) clippy_rc=$rc clippy_secs=$(($(date +%s) - start))" \
		>>/nstree/work/result
}

if [ "${1:-}" = --inside ]; then
	build_inside "$2"
	exit 0
fi

# --- one toolchain, from the host ----------------------------------------

# rust_warnings LOG: rustc's warnings (with their location line) in a
# build log, without the "N warnings emitted" summaries.
rust_warnings() {
	awk '/^warning: [0-9]+ warnings? emitted/ { next }
	     /^warning:/ { w = $0; getline l; if (sub(/^ *--> */, "", l)) w = w " [" l "]"; print w }' "$1" |
		sort -u
}

check_toolchain() {
	local n=$1 ch d="$TC/$1" llvm res obj warn clip bg=/usr/bin/bindgen
	local build_rc clippy clippy_rc
	ch=$(chroot_of "$n")
	[ "$n" = min ] && llvm=-$MIN_LLVM || { llvm=-$NEW_LLVM; bg=/opt/bindgen/bin/bindgen; }
	R[$n.rustc]=$(sed -n 's/^rustc: rustc \([^ ]*\).*/\1/p' "$ch/.nstree-versions")
	R[$n.bindgen]=$(sed -n 's/^bindgen: bindgen //p' "$ch/.nstree-versions")
	R[$n.clang]=$(sed -n 's/^clang: .*clang version \([^ ]*\).*/\1/p' "$ch/.nstree-versions")
	prepare_tree "$n"
	mkdir -p "$d/logs"
	rm -f "$d/result" "$d/bzImage" "$d"/logs/{build,clippy}.log
	R[$n.log]="$d/logs/build.log"
	mount_sys "$ch"
	bind "$d" "$ch/nstree/work"
	bind "$REPO" "$ch/nstree/repo" ro
	in_chroot "$ch" NSTREE_CACHE=/nstree/work NSTREE_LOGS=/nstree/work/logs NSTREE_OUT=/nstree/work/out \
		LLVM_SUFFIX="$llvm" RUSTC=/usr/bin/rustc BINDGEN="$bg" JOBS="$JOBS" \
		/bin/bash /nstree/repo/scripts/check-toolchains.sh --inside "$n"
	umount_under "$ch"
	R[$n.inline]=$(sed -n 's/^inline=//p' "$d/result" 2>/dev/null)
	res=$(tr '\n' ' ' <"$d/result" 2>/dev/null)
	build_rc=$(sed -n 's/.*build_rc=\([0-9]*\).*/\1/p' <<<"$res")
	if [ -z "$build_rc" ]; then
		R[$n.result]=FAIL
		R[$n.why]="configuration failed, see $d/logs/config-rust-$n.log"
		R[$n.log]="$d/logs/config-rust-$n.log"
		return
	fi
	R[$n.secs]=$(sed -n 's/.*build_secs=\([0-9]*\).*/\1/p' <<<"$res")
	warn=$(rust_warnings "$d/logs/build.log")
	R[$n.warnings]=$(grep -c . <<<"$warn")
	if [ "${R[$n.warnings]}" != 0 ]; then
		log "$n: ${R[$n.warnings]} rustc warnings:"
		echo "$warn" | sed 's/^/    /' >&2
	fi
	if [ "$build_rc" != 0 ]; then
		R[$n.result]=FAIL
		R[$n.why]=$(grep -E '^error(\[E[0-9]+\])?:' "$d/logs/build.log" | sort | uniq -c | sort -rn | head -5)
		log "$n: the build failed; its first errors:"
		grep -E -A8 '^error(\[E[0-9]+\])?:' "$d/logs/build.log" | head -40 >&2
		return
	fi
	R[$n.result]=ok
	R[$n.size]=$(sed -n 's/.*size=\([^ ]*\).*/\1/p' <<<"$res")
	R[$n.helpers]=$(sed -n 's/.*helper_calls=\([0-9]*\).*/\1/p' <<<"$res")
	clippy=$(sed -n 's/.*clippy=\([^ ]*\).*/\1/p' <<<"$res")
	if [ -z "$clippy" ] || [ "$clippy" = none ]; then
		R[$n.clippy]="n/a"
	else
		clippy_rc=$(sed -n 's/.*clippy_rc=\([0-9]*\).*/\1/p' <<<"$res")
		clip=$(grep -E '^(warning|error)' "$d/logs/clippy.log" | grep -vE '^warning: [0-9]+ warnings? emitted')
		R[$n.clippy]=$(grep -c . <<<"$clip")
		[ "$clippy_rc" = 0 ] || R[$n.clippy]="${R[$n.clippy]}+rc$clippy_rc"
		if [ "${R[$n.clippy]}" != 0 ]; then
			log "$n: clippy findings (${clippy//_/ }, $d/logs/clippy.log):"
			grep -E -A4 '^(warning|error)' "$d/logs/clippy.log" | grep -vE '^warning: [0-9]+ warnings? emitted' |
				head -80 | sed 's/^/    /' >&2
		fi
	fi
	log "$n: built in ${R[$n.secs]}s; nstree_rs.o text/data/bss ${R[$n.size]}; warnings ${R[$n.warnings]}; clippy ${R[$n.clippy]}"
}

# boot_min: the min kernel with the upstream namespaces selftests.
boot_min() {
	local out="$TC/out" con rc=0 nbin npass
	[ "${R[min.result]:-}" = ok ] || { R[boot]="not booted (no min kernel)"; return; }
	[ -f "$NSTREE_CACHE/out/initramfs.cpio.gz" ] || { R[boot]="FAIL: no initramfs (make initramfs)"; return; }
	mkdir -p "$out"
	cp "$TC/min/bzImage" "$out/bzImage-rust-min"
	ln -sfn "$NSTREE_CACHE/out/initramfs.cpio.gz" "$out/initramfs.cpio.gz"
	local start
	start=$(date +%s)
	NSTREE_OUT="$out" NSTREE_LOGS="$TC/logs" "$REPO/qemu/run.sh" rust-min test '^namespaces/' || rc=$?
	R[boot.secs]=$(($(date +%s) - start))
	con="$out/console-rust-min-test.log"
	R[boot.log]=$con
	python3 "$REPO/scripts/report.py" rust="$con" >"$TC/report-min.txt" 2>&1 || rc=1
	nbin=$(grep -c '^NSTREE-TEST-END namespaces/' "$con" 2>/dev/null)
	npass=$(grep -c '^NSTREE-TEST-END namespaces/.* rc=0 ' "$con" 2>/dev/null)
	[ "$nbin" = 12 ] && [ "$npass" = 12 ] || rc=1
	R[boot]="$npass/$nbin binaries pass; report: $(tail -1 "$TC/report-min.txt")"
	[ $rc = 0 ] || { R[boot]="FAIL: ${R[boot]}"; grep -vE '^\s*$' "$TC/report-min.txt" | tail -30 >&2; }
}

mkdir -p "$TC" "$TC/logs"
[ "$(id -u)" = 0 ] || die "check-toolchains needs root (debootstrap, chroot, mount)"
[ -f "$PRISTINE/Makefile" ] || die "no kernel tree at $PRISTINE (make tree)"
log "series: $PATCHES ($(series | wc -l) patches); toolchains: $TOOLCHAINS"
for n in $TOOLCHAINS; do
	case $n in min | new) ;; *) die "unknown toolchain $n (min|new)" ;; esac
	make_chroot "$n"
done
# --setup: the chroots only.
[ "${1:-}" != --setup ] || exit 0
for n in $TOOLCHAINS; do
	check_toolchain "$n"
done
if [ "$BOOT" = 1 ] && [[ " $TOOLCHAINS " = *" min "* ]]; then
	boot_min
fi

# --- summary -------------------------------------------------------------
fail=0
echo
echo "=== check-toolchains: $PATCHES ==="
row() { printf '%-9s %-7s %-7s %-7s %-6s %-6s %-8s %-6s %-18s %s\n' "$@"; }
row toolchain rustc bindgen clang result build warnings clippy "nstree_rs.o t/d/b" "inline helpers"
for n in $TOOLCHAINS; do
	inl=${R[$n.inline]:--}
	[ -z "${R[$n.helpers]:-}" ] || inl="$inl (nstree_rs.o calls ${R[$n.helpers]} rust_helper_*)"
	row "$n" "${R[$n.rustc]:-?}" "${R[$n.bindgen]:-?}" "${R[$n.clang]:-?}" "${R[$n.result]:-?}" \
		"${R[$n.secs]:+${R[$n.secs]}s}" "${R[$n.warnings]:--}" "${R[$n.clippy]:--}" "${R[$n.size]:--}" "$inl"
	[ "${R[$n.result]:-}" = ok ] && [ "${R[$n.warnings]:-}" = 0 ] || fail=1
	case "${R[$n.clippy]:-}" in 0 | n/a) ;; *) fail=1 ;; esac
done
echo "(build: wall time of the kernel build; nstree_rs.o: text/data/bss bytes, size(1);"
echo " inline helpers: CONFIG_RUST_INLINE_HELPERS, which needs rustc's and clang's LLVM to agree)"
for n in $TOOLCHAINS; do
	echo "$n: $(chroot_of "$n"), log ${R[$n.log]:-none}${CHROOT_TIME[$n]:+, chroot made in ${CHROOT_TIME[$n]}s}"
	[ -z "${R[$n.why]:-}" ] || echo "${R[$n.why]}" | sed "s/^/$n:   /"
done
if [ "$BOOT" = 1 ] && [[ " $TOOLCHAINS " = *" min "* ]]; then
	echo "boot (min, namespaces selftests): ${R[boot]}${R[boot.secs]:+ in ${R[boot.secs]}s}"
	[ -z "${R[boot.log]:-}" ] || echo "  console ${R[boot.log]}, report $TC/report-min.txt"
	case "${R[boot]}" in 12/12*) ;; *) fail=1 ;; esac
fi
# The cover letter's toolchains paragraph (gen-patches.py: @TOOLCHAINS@),
# when both toolchains built patches/ cleanly and the min kernel booted.
if [ $fail = 0 ] && [ "$PATCHES" = "$REPO/patches" ] && [ "$BOOT" = 1 ] &&
	[[ " $TOOLCHAINS " = *" min "* && " $TOOLCHAINS " = *" new "* ]]; then
	ids=$(for p in "$PATCHES"/[0-9]*.patch; do
		case "$(basename "$p")" in 0000-*) continue ;; esac
		git patch-id --stable <"$p" | cut -c1-12
	done | tr '\n' ' ' | sed 's/ $//')
	{
		echo "Built in Debian trixie chroots (the series with patch-ids $ids)"
		echo "with the minimum toolchain, rustc ${R[min.rustc]}, bindgen ${R[min.bindgen]} and"
		echo "clang ${R[min.clang]}, and with the newest, rustc ${R[new.rustc]}, bindgen ${R[new.bindgen]} and"
		echo "clang ${R[new.clang]}: no rustc warning and no clippy finding with either;"
		echo "nstree_rs.o text/data/bss ${R[min.size]} and ${R[new.size]} bytes.  The kernel"
		echo "of the minimum toolchain passes the 12 namespaces selftests."
	} >"$REPO/c-glue/messages/cover-toolchains.txt"
	echo "wrote c-glue/messages/cover-toolchains.txt (make patches puts it in the cover letter)"
fi
[ $fail = 0 ] && echo "check-toolchains: passed" || echo "check-toolchains: FAILED"
exit $fail
