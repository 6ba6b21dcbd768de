#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch Debian's linux-source-$LINUX_SERIES with a private apt configuration
# (the system's sources are left untouched) and unpack it into the cache.
set -euo pipefail
. "$(dirname "$0")/env.sh"

stamp="$PRISTINE/.nstree-rs-version"
if [ -f "$stamp" ] && [ -f "$PRISTINE/Makefile" ]; then
	log "kernel tree present: $(cat "$stamp")"
	exit 0
fi

A="$NSTREE_CACHE/apt"
mkdir -p "$A/etc" "$A/lists/partial" "$A/cache/archives/partial" "$NSTREE_CACHE/dl"
cat >"$A/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
SRC
APT=(-o "Dir::Etc::SourceList=$A/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache"
     -o APT::Get::List-Cleanup=0 -o Debug::NoDropPrivs=1 -o APT::Sandbox::User=root)

pkg="linux-source-$LINUX_SERIES"
deb=$(ls "$NSTREE_CACHE/dl/${pkg}_${LINUX_PKG_VERSION}_all.deb" 2>/dev/null || true)
if [ -z "$deb" ]; then
	log "updating private apt lists (sid, trixie-backports)"
	apt-get "${APT[@]}" -qq update
	versions=$(apt-cache "${APT[@]}" madison "$pkg" | awk -F'|' '{gsub(/ /,"",$2); print $2}')
	[ -n "$versions" ] || die "the archive serves no $pkg"
	if grep -qxF "$LINUX_PKG_VERSION" <<<"$versions"; then
		version=$LINUX_PKG_VERSION
	else
		version=$(head -1 <<<"$versions")
		log "warning: $pkg $LINUX_PKG_VERSION is gone from the archive; using $version"
	fi
	log "downloading $pkg=$version"
	(cd "$NSTREE_CACHE/dl" && apt-get "${APT[@]}" -qq download "$pkg=$version")
	deb=$(ls "$NSTREE_CACHE/dl/${pkg}_${version//:/%3a}_all.deb")
fi
version=$(dpkg-deb -f "$deb" Version)

log "unpacking $(basename "$deb")"
x="$NSTREE_CACHE/dl/x"
rm -rf "$x" "$PRISTINE"
dpkg -x "$deb" "$x"
tarball=$(ls "$x"/usr/src/linux-source-*.tar.xz)
mkdir -p "$(dirname "$PRISTINE")"
tar -C "$(dirname "$PRISTINE")" -xf "$tarball"
rm -rf "$x"

[ -f "$PRISTINE/kernel/nstree.c" ] || die "unpacked tree has no kernel/nstree.c"
[ -d "$PRISTINE/tools/testing/selftests/namespaces" ] || die "no namespaces selftests"
kv=$(make -s -C "$PRISTINE" kernelversion)
case "$kv" in "$LINUX_SERIES".*) ;; *) die "unexpected kernel version $kv" ;; esac
echo "$pkg $version (Linux $kv)" >"$stamp"
log "kernel tree ready: $(cat "$stamp")"
