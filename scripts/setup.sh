#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the pipeline needs.  Idempotent: with everything present it
# only runs dpkg-query and a version check, in well under a second.
set -euo pipefail
. "$(dirname "$0")/env.sh"

PKGS=(rustc-web rust-web-src clang-19 lld-19 llvm-19 libclang-19-dev
      qemu-system-x86 busybox-static flex bison bc libelf-dev libssl-dev
      cpio ccache libcap-dev rsync xz-utils python3 gnuplot-nox git)

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
log "toolchain: $("$RUSTC" --version), $("$BINDGEN" --version), $(clang-19 --version | head -1)"
