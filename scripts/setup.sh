#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the pipeline needs.  Idempotent: with everything present it
# only runs dpkg-query and a version check, in well under a second.
set -euo pipefail
. "$(dirname "$0")/env.sh"

LLVM_PKGS=(clang$LLVM_SUFFIX lld$LLVM_SUFFIX llvm$LLVM_SUFFIX libclang$LLVM_SUFFIX-dev)
PKGS=(rustc-web rust-web-src "${LLVM_PKGS[@]}"
      qemu-system-x86 busybox-static flex bison bc libelf-dev libssl-dev
      cpio ccache libcap-dev rsync xz-utils python3 gnuplot-nox git
      rust-web-clippy python3-ply python3-git patch binutils)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing Debian packages: ${missing[*]}"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	# One LLVM for C and Rust: clang$LLVM_SUFFIX must be the LLVM rustc runs
	# on.  Say plainly what to do if the archive no longer serves it.
	for p in "${LLVM_PKGS[@]}"; do
		cand=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
		if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
			die "the archive serves no $p. nstree-rs builds every kernel with the LLVM rustc
  runs on ($("$RUSTC" -vV 2>/dev/null | sed -n 's/^LLVM version: //p' || echo 'see rustc -vV')); Debian 12 ships it in bookworm-security.
  Check that /etc/apt/sources.list has 'bookworm-security main', run apt-get update,
  or set LLVM_SUFFIX=-NN to the clang that matches \`rustc -vV\` and rerun make setup."
		fi
	done
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >"$LOGS/apt-install.log" 2>&1 ||
		{ tail -20 "$LOGS/apt-install.log"; die "apt-get install failed"; }
fi

# QEMU >= 8 runs multi-threaded TCG with 2 vCPUs cleanly (7.2 Oopses in
# text patching); bookworm has 7.2, bookworm-backports has 10.  Install it
# from a private apt configuration: the system's sources stay untouched.
qemu_major=$(qemu-system-x86_64 --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\).*/\1/p')
if [ "${qemu_major:-0}" -lt 8 ] && grep -q '^VERSION_CODENAME=bookworm' /etc/os-release; then
	A="$NSTREE_CACHE/apt-bpo"
	mkdir -p "$A/etc" "$A/lists/partial" "$A/cache/archives/partial"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb [signed-by=$key] http://deb.debian.org/debian bookworm main"
		echo "deb [signed-by=$key] http://deb.debian.org/debian bookworm-updates main"
		echo "deb [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main"
		echo "deb [signed-by=$key] http://deb.debian.org/debian bookworm-backports main"
	} >"$A/etc/sources.list"
	APT=(-o "Dir::Etc::SourceList=$A/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	     -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o APT::Sandbox::User=root)
	log "installing qemu-system-x86 from bookworm-backports (QEMU ${qemu_major:-none} is too old)"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get "${APT[@]}" -qq update
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${APT[@]}" install -y -qq \
		-t bookworm-backports qemu-system-x86 >"$LOGS/qemu-bpo-install.log" 2>&1 ||
		log "warning: backports QEMU failed to install; TCG will use one vCPU"
fi

# bindgen-cli loads libclang at run time (clang-sys "runtime"); the stamp
# records which libclang it was built for, so a toolchain change rebuilds it.
have_bindgen() {
	[ -x "$BINDGEN" ] && "$BINDGEN" --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$" &&
		[ "$(cat "$TOOLS/.bindgen-libclang" 2>/dev/null)" = "$LIBCLANG_PATH" ]
}
if ! have_bindgen; then
	command -v cargo >/dev/null || die "cargo not found: bindgen-cli is built with cargo"
	log "building bindgen-cli $BINDGEN_VERSION into $TOOLS (about 2 minutes)"
	cargo install --quiet --locked --root "$TOOLS" "bindgen-cli@$BINDGEN_VERSION" \
		>"$LOGS/bindgen-install.log" 2>&1 ||
		{ tail -20 "$LOGS/bindgen-install.log"; die "cargo install bindgen-cli failed"; }
	echo "$LIBCLANG_PATH" >"$TOOLS/.bindgen-libclang"
fi

"$RUSTC" --version | grep -q '^rustc 1\.' || die "$RUSTC is not a rustc"
[ -d /usr/lib/rustlib/src/rust/library/core ] || die "rust-web-src: no library source"
log "toolchain: $("$RUSTC" --version | cut -d" " -f1-2), $("$BINDGEN" --version), clang $(clang$LLVM_SUFFIX -dumpversion), $(qemu-system-x86_64 --version | head -1 | cut -d" " -f3-4)"

# RUSTC_CLANG_LLVM_COMPATIBLE (init/Kconfig) compares the LLVM major
# versions of rustc and clang; CONFIG_RUST_INLINE_HELPERS depends on it.
rllvm=$("$RUSTC" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
cllvm=$(clang$LLVM_SUFFIX -dumpversion | cut -d. -f1)
[ "$rllvm" = "$cllvm" ] || die "rustc runs on LLVM $rllvm but clang$LLVM_SUFFIX is LLVM $cllvm: set LLVM_SUFFIX=-$rllvm"
