#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# guest-debs.sh STAGE: real user space for the guest, from Debian.
#
# util-linux (lsns, nsenter, unshare, setpriv), iproute2 (ip), e2fsprogs
# (mke2fs, as mkfs.ext4 for mount_setattr_test) and the container
# runtimes crun, bubblewrap (bwrap) and CRIU (criu) at the newest
# versions Debian serves (sid, trixie-backports), fetched with apt-get
# download under a private apt configuration (as fetch-tree.sh: the
# system's apt state is not touched), unpacked with dpkg -x, and staged
# with only the shared libraries they need (their DT_NEEDED closure) and
# glibc's loader under STAGE/opt/debian.  Three links make the standard
# paths of the loader and the libraries resolve into it, so the binaries
# run as they are; they stay out of PATH (busybox's applets of the same
# names are what the other scripts use): /opt/debian/usr/bin/lsns, ...,
# except mkfs.ext4, which busybox does not have.
# STAGE/opt/debian/VERSIONS records the package versions.
set -euo pipefail
. "$(dirname "$0")/env.sh"
stage=${1:?usage: guest-debs.sh STAGE}
dest="$stage/opt/debian"

PKGS=(util-linux iproute2 e2fsprogs crun bubblewrap criu)
BINS=(usr/bin/lsns usr/bin/nsenter usr/bin/unshare usr/bin/ip usr/sbin/mke2fs
      usr/bin/setpriv usr/bin/crun usr/bin/bwrap usr/sbin/criu)
ML=usr/lib/x86_64-linux-gnu

A="$NSTREE_CACHE/apt-guest"
dl="$NSTREE_CACHE/dl/guest"
mkdir -p "$A/etc" "$A/lists/partial" "$A/cache/archives/partial" "$dl"
cat >"$A/etc/sources.list" <<SRC
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main
SRC
# No dpkg status: dependencies resolve against the archive alone.
APT=(-o "Dir::Etc::SourceList=$A/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o Dir::State::status=/dev/null
     -o APT::Architecture=amd64 -o APT::Get::List-Cleanup=0
     -o Debug::NoDropPrivs=1 -o APT::Sandbox::User=root)

# The lists are refreshed once a day at most (NSTREE_GUEST_DEBS_UPDATE=1
# forces it): a warm run needs no network.
stamp="$A/lists/.updated"
if [ -n "${NSTREE_GUEST_DEBS_UPDATE:-}" ] || [ ! -f "$stamp" ] ||
   [ -n "$(find "$stamp" -mmin +1440)" ]; then
	log "updating private apt lists for the guest packages (sid, trixie-backports)"
	apt-get "${APT[@]}" -qq update && touch "$stamp" ||
		{ [ -f "$stamp" ] || die "apt-get update failed"; log "warning: apt-get update failed, using the old lists"; }
fi

# The packages and the libraries they depend on, recursively (lib*
# packages only: what the binaries load; the DT_NEEDED closure below
# picks the files actually used).  Resolved again only when the lists
# were refreshed: a warm run makes no apt call at all.
resolved="$dl/resolved-$(echo "${PKGS[*]}" | md5sum | cut -c1-8).list"
if [ ! -s "$resolved" ] || [ "$stamp" -nt "$resolved" ]; then
	all=" ${PKGS[*]} "
	level="${PKGS[*]}"
	while [ -n "$level" ]; do
		next=
		for p in $(apt-cache "${APT[@]}" depends --no-recommends --no-suggests \
			--no-conflicts --no-breaks --no-replaces --no-enhances $level |
			awk '/^ / { sub(/^ *\|?/, "") } $1 ~ /^(Pre)?Depends:$/ && $2 !~ /^</ { print $2 }' |
			grep -E '^(lib|zlib)' | grep -vE '^libpam-|-common$|-bin$' | sort -u); do
			case "$all" in *" $p "*) continue ;; esac
			all="$all$p "
			next="$next $p"
		done
		level=$next
	done
	# Candidate versions, as file names: pool/.../NAME_VERSION_ARCH.deb
	# shellcheck disable=SC2086
	apt-get "${APT[@]}" download --print-uris $all | awk '{ print $2 }' | sort >"$resolved.tmp"
	[ "$(wc -l <"$resolved.tmp")" -ge ${#PKGS[@]} ] || die "could not resolve ${PKGS[*]}"
	mv "$resolved.tmp" "$resolved"
fi
missing=()
while read -r f; do
	[ -f "$dl/$f" ] || missing+=("$(echo "$f" | awk -F_ '{ gsub(/%3a/, ":", $2); print $1 "=" $2 }')")
done <"$resolved"
if [ ${#missing[@]} -gt 0 ]; then
	log "downloading ${missing[*]}"
	(cd "$dl" && apt-get "${APT[@]}" -qq download "${missing[@]}")
fi
debs=()
while read -r f; do debs+=("$dl/$f"); done <"$resolved"

# Unpacked once per set of packages.
x="$NSTREE_CACHE/dl/guest-x"
if ! cmp -s "$resolved" "$x/.resolved.list"; then
	rm -rf "$x"
	mkdir -p "$x"
	for f in "${debs[@]}"; do dpkg -x "$f" "$x"; done
	cp "$resolved" "$x/.resolved.list"
fi
rm -rf "$dest"
mkdir -p "$dest/$ML" "$dest/usr/bin" "$dest/usr/sbin" "$dest/usr/lib64"

# copy_needed ELF: the libraries ELF needs, recursively, from the
# unpacked packages into $dest/$ML (by soname, links resolved).
copy_needed() {
	local so
	for so in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -e "$dest/$ML/$so" ] && continue
		local src=
		for d in "$x/$ML" "$x/lib/x86_64-linux-gnu"; do
			[ -e "$d/$so" ] && { src=$d/$so; break; }
		done
		[ -n "$src" ] || die "$(basename "$1") needs $so, which no fetched package has"
		cp -L "$src" "$dest/$ML/$so"
		copy_needed "$dest/$ML/$so"
	done
}
for b in "${BINS[@]}"; do
	[ -f "$x/$b" ] || die "no $b in ${PKGS[*]}"
	cp -L "$x/$b" "$dest/$b"
	copy_needed "$dest/$b"
done
cp -L "$x/usr/lib64/ld-linux-x86-64.so.2" "$dest/usr/lib64/"
# The loader and library paths the binaries expect.
mkdir -p "$stage/usr/lib" "$stage/var"
ln -sfn /opt/debian/usr/lib64 "$stage/lib64"
ln -sfn /opt/debian/$ML "$stage/$ML"
ln -sfn /run "$stage/var/run"
# mount_setattr_test's idmapped fixture runs system("mkfs.ext4 ..."):
# e2fsprogs' mke2fs, in PATH under the name that makes it format ext4.
mkdir -p "$stage/usr/sbin"
ln -sfn /opt/debian/usr/sbin/mke2fs "$stage/usr/sbin/mkfs.ext4"
for f in "${debs[@]}"; do
	dpkg-deb -f "$f" Package Version | paste -sd' '
done | sed 's/^Package: //; s/ Version: / /' >"$dest/VERSIONS"
log "guest user space: $(grep -E '^(util-linux|iproute2|e2fsprogs|crun|bubblewrap|criu) ' "$dest/VERSIONS" | paste -sd' '), $(ls "$dest/$ML" | wc -l) libraries, $(du -sh "$dest" | cut -f1)"
