#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the pipeline needs.  Idempotent: with everything present it
# only runs dpkg-query and a version check, in well under a second.
set -euo pipefail
. "$(dirname "$0")/env.sh"

PKGS=(rustc-web rust-web-src clang-19 lld-19 llvm-19 libclang-19-dev
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

have_bindgen() {
	[ -x "$BINDGEN" ] && "$BINDGEN" --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$"
}
if ! have_bindgen; then
	command -v cargo >/dev/null || die "cargo not found: bindgen-cli is built with cargo"
	log "building bindgen-cli $BINDGEN_VERSION into $TOOLS (about 2 minutes)"
	cargo install --quiet --locked --root "$TOOLS" "bindgen-cli@$BINDGEN_VERSION" \
		>"$LOGS/bindgen-install.log" 2>&1 ||
		{ tail -20 "$LOGS/bindgen-install.log"; die "cargo install bindgen-cli failed"; }
fi

"$RUSTC" --version | grep -q '^rustc 1\.' || die "$RUSTC is not a rustc"
[ -d /usr/lib/rustlib/src/rust/library/core ] || die "rust-web-src: no library source"
log "toolchain: $("$RUSTC" --version | cut -d" " -f1-2), $("$BINDGEN" --version), clang $(clang-19 -dumpversion), $(qemu-system-x86_64 --version | head -1 | cut -d" " -f3-4)"
