#!/usr/bin/env bash
# fetch-debian-source.sh SUITE PACKAGE VERSION ORIG_SHA256 DEST
# Debian's own source of PACKAGE at VERSION, unpacked into DEST/PACKAGE-VERSION with Debian's
# patches applied (debian/patches/series), for the Windows cross build: the Windows programs are
# built from the same source as the Debian packages the Linux build and tests use. Only the
# Debian archive is asked, through a private sources list (no root, the system's apt untouched);
# apt checks the files against the signed Sources index, and the upstream tarball is checked
# again against ORIG_SHA256, pinned by the caller, so an archive that moved on fails here by
# name instead of building something else. Prints the unpacked folder. Idempotent.
set -euo pipefail
[[ $# -eq 5 ]] || { echo "usage: $0 SUITE PACKAGE VERSION ORIG_SHA256 DEST" >&2; exit 2; }
suite=$1 package=$2 version=$3 orig_sha256=$4
mkdir -p "$5"
dest=$(realpath "$5")
upstream=${version#*:}        # no epoch
upstream=${upstream%-*}       # no Debian revision
folder="$dest/$package-$upstream"
if [[ -f "$folder/.llamafit-patched" ]]; then
    echo "$folder"
    exit 0
fi

state="$dest/apt-$suite"
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
    >"$state/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
    -o APT::Sandbox::User=root)
compgen -G "$state/lists/*_${suite}_main_source_Sources*" >/dev/null ||
    apt-get "${apt_options[@]}" update -qq >&2 ||
    { echo "fetch-debian-source: apt-get update of Debian $suite's sources failed (no network to deb.debian.org?)" >&2; exit 1; }
orig=$(compgen -G "$dest/${package}_${upstream}.orig.tar.*" || true)
if [[ -z "$orig" ]]; then
    (cd "$dest" && apt-get "${apt_options[@]}" source --download-only -qq "$package=$version" >&2) ||
        { echo "fetch-debian-source: Debian $suite has no source $package=$version (the archive moved on?)" >&2; exit 1; }
    orig=$(compgen -G "$dest/${package}_${upstream}.orig.tar.*")
fi
actual=$(sha256sum "$orig" | cut -d' ' -f1)
if [[ "$actual" != "$orig_sha256" ]]; then
    echo "fetch-debian-source: $orig has sha256 $actual, not the pinned $orig_sha256" >&2
    exit 1
fi
rm -rf "$folder" "$dest/unpack-$package"
mkdir -p "$dest/unpack-$package"
tar xf "$orig" -C "$dest/unpack-$package"
# The tarball's one top folder, whatever upstream named it, becomes PACKAGE-UPSTREAM.
mv "$dest/unpack-$package"/* "$folder"
rmdir "$dest/unpack-$package"
debian_tar=$(compgen -G "$dest/${package}_${version#*:}.debian.tar.*")
tar xf "$debian_tar" -C "$folder"
if [[ -f "$folder/debian/patches/series" ]]; then
    while read -r patch _; do
        [[ -z "$patch" || "$patch" == \#* ]] && continue
        patch -d "$folder" -p1 -s --forward <"$folder/debian/patches/$patch" >&2
    done <"$folder/debian/patches/series"
fi
touch "$folder/.llamafit-patched"
echo "$folder"
