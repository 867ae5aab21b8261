#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build a memory server's modules, r2net.ko and ramster_backend.ko, with
# DKMS against Debian's stock kernel headers (linux-headers-amd64), so
# that a memory server can run Debian's own kernel.
#
# Assembles the package's source in build/dkms/ramster-server-VERSION/,
# replaces any ramster-server of that version in DKMS (dkms remove, and
# its copy in /usr/src), then dkms add and dkms build -k KVER, where KVER
# is the kernel linux-headers-amd64 points at, never the running one.
# Nothing is installed into /lib/modules and nothing is loaded.  The
# modules land in build/stock/, with KVER in build/stock/version.
#
# usage: dkms/build.sh            (as root: dkms add writes /usr/src)
#   RAMSTER_DKMS_KVER=6.1.0-N-amd64   another installed headers version
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pkg=ramster-server
ver=0.1
src=build/dkms/$pkg-$ver
stock=build/stock

die()
{
	echo "dkms: $*" >&2
	exit 1
}

command -v dkms >/dev/null 2>&1 ||
	die "no dkms: install dkms first (scripts/deps.sh does)"
kver=${RAMSTER_DKMS_KVER:-}
if [ -z "$kver" ]; then
	kver=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2>/dev/null |
	       sed -n 's/.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
	[ -n "$kver" ] ||
		die "no Debian kernel headers: install linux-headers-amd64 first (scripts/deps.sh does)"
fi
[ -e "/lib/modules/$kver/build/include" ] ||
	die "no headers for $kver in /lib/modules/$kver/build: install linux-headers-$kver (or linux-headers-amd64) first"
[ "$(id -u)" = 0 ] || die "run as root: dkms add and build write /usr/src and /var/lib/dkms"

# The package's source: the two modules, the ABI headers, the glue.
rm -rf "$src"
mkdir -p "$src"
for d in r2net backend-node; do
	mkdir -p "$src/$d"
	cp -p "$d/Kbuild" "$src/$d/"
	for f in "$d"/*.[ch]; do
		case $f in *.mod.c) continue ;; esac
		cp -p "$f" "$src/$d/"
	done
done
mkdir -p "$src/shared-abi"
cp -p shared-abi/*.h "$src/shared-abi/"
cp -p dkms/Makefile "$src/"
sed "s/@VERSION@/$ver/" dkms/dkms.conf > "$src/dkms.conf"

# Idempotent: the same version goes first, with its copy in /usr/src.
if [ -n "$(dkms status -m "$pkg" -v "$ver" 2>/dev/null)" ]; then
	dkms remove -m "$pkg" -v "$ver" --all >/dev/null ||
		die "dkms remove $pkg/$ver failed"
fi
rm -rf "/usr/src/$pkg-$ver"
dkms add "$src" >/dev/null || die "dkms add $src failed"
if ! dkms build -m "$pkg" -v "$ver" -k "$kver"; then
	log=/var/lib/dkms/$pkg/$ver/build/make.log
	[ -f "$log" ] && tail -n 40 "$log" >&2
	die "dkms build $pkg/$ver for $kver failed (log: $log)"
fi

built=/var/lib/dkms/$pkg/$ver/$kver/$(uname -m)/module
# Only what this writes: make image-stock's vmlinuz and initramfs stay.
rm -f "$stock/r2net.ko" "$stock/ramster_backend.ko" "$stock/version"
mkdir -p "$stock"
for m in r2net ramster_backend; do
	[ -f "$built/$m.ko" ] || die "dkms built no $m.ko in $built"
	cp "$built/$m.ko" "$stock/"
done
echo "$kver" > "$stock/version"
echo "dkms: $pkg $ver for $kver: $stock/r2net.ko $stock/ramster_backend.ko"
