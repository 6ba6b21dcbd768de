# SPDX-License-Identifier: GPL-2.0
# host-cargo.sh: sourced by host-test.sh and rustdoc.sh. Finds a cargo
# (installing Debian's if there is none) and sets CARGO, RUSTC, RUSTDOC and
# RUSTC_BOOTSTRAP for the host crate rust/host. Needs log() and die().

# A cargo: $CARGO, rustup's, one on PATH, or Debian's (installed here:
# bookworm's cargo-web/rustc-web 1.96 from bookworm-security, trixie's
# cargo; no toolchain is downloaded from anywhere else).
find_cargo() {
	local c
	for c in "$HOME/.cargo/bin/cargo" "$(command -v cargo 2>/dev/null)"; do
		[ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
	done
	return 1
}
if [ -n "${CARGO:-}" ]; then
	[ -x "$CARGO" ] || die "CARGO=$CARGO is not executable"
elif ! CARGO=$(find_cargo); then
	pkgs=(cargo)
	apt-cache show cargo-web >/dev/null 2>&1 && pkgs=(cargo-web rustc-web)
	log "no cargo found: installing Debian's ${pkgs[*]} with apt-get"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	aptlog=$(mktemp "${TMPDIR:-/tmp}/nstree-apt.XXXXXX")
	{ $SUDO apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
			"${pkgs[@]}"; } >"$aptlog" 2>&1 ||
		{ tail -20 "$aptlog" >&2; die "apt-get install ${pkgs[*]} failed (log: $aptlog)"; }
	rm -f "$aptlog"
	CARGO=$(find_cargo) || die "still no cargo after installing ${pkgs[*]}"
fi
# The rustc and rustdoc next to that cargo (rustup's proxies, or Debian's
# /usr/bin ones), whatever RUSTC and PATH say: the doctests are built by
# rustdoc against the library rustc built.
bindir=$(dirname "$CARGO")
for tool in rustc rustdoc; do
	var=$(tr a-z A-Z <<<"$tool")
	if [ -x "$bindir/$tool" ]; then export "$var=$bindir/$tool"; else unset "$var"; fi
done
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS RUSTDOCFLAGS
# rustdoc checks the error code of a `compile_fail,E0XXX` doctest only
# when it runs as a nightly compiler; the kernel builds all of its Rust
# that way (RUSTC_BOOTSTRAP=1), so do the same here (the crate uses no
# unstable feature).
export RUSTC_BOOTSTRAP=1
