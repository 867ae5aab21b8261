#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The memory server's image for Debian's own kernel: its vmlinuz, and an
# initramfs (guest/mkinitramfs.sh) with the same busybox, init, jobs and
# programs as the project's images, Debian's modules a memory server
# needs (virtio PCI and network, configfs) with their load order, and the
# r2net.ko and ramster_backend.ko that make dkms built for that kernel.
#
# The kernel package, linux-image-VERSION for the VERSION in
# STOCK/version, is fetched with "apt-get download" and unpacked with
# "dpkg-deb -x" once, into /var/cache/ramster/stock-VERSION/ (keyed on
# VERSION): it is never installed, no maintainer script runs, and the
# host's /boot and /lib/modules stay as they are.  depmod runs on the
# unpacked tree only, to find the modules' dependencies.
#
# usage: guest/mkstock.sh STOCK PROGRAM...
#   STOCK: build/stock, with version, r2net.ko and ramster_backend.ko;
#   writes STOCK/vmlinuz and STOCK/initramfs.cpio.gz.
#   RAMSTER_CACHE=DIR   another cache directory (default /var/cache/ramster)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stock=$1
shift
# What a memory server loads; modprobe adds what they depend on.
want="virtio_pci virtio_net configfs"

die()
{
	echo "mkstock: $*" >&2
	exit 1
}

[ -r "$stock/version" ] ||
	die "no $stock/version: build the modules first (make dkms)"
ver=$(cat "$stock/version")
for m in r2net ramster_backend; do
	[ -r "$stock/$m.ko" ] || die "no $stock/$m.ko: build it first (make dkms)"
done
pkg=linux-image-$ver
cache=${RAMSTER_CACHE:-/var/cache/ramster}/stock-$ver
tree=$cache/root

if [ ! -e "$cache/done" ]; then
	echo "mkstock: fetching $pkg into $cache (once)"
	rm -rf "$cache"
	mkdir -p "$cache"
	# apt downloads as _apt when it can write there, else warns.
	id _apt >/dev/null 2>&1 && chown _apt "$cache"
	(cd "$cache" && apt-get download -q "$pkg" >/dev/null) ||
		die "apt-get download $pkg failed; run apt-get update first?"
	chown 0:0 "$cache"
	deb=$(ls "$cache"/"$pkg"_*.deb)
	dpkg-deb -x "$deb" "$tree" || die "dpkg-deb -x $deb failed"
	depmod -b "$tree" "$ver" || die "depmod on $tree failed"
	dpkg-deb -f "$deb" Version > "$cache/package-version"
	: > "$cache/done"
fi
[ -r "$tree/boot/vmlinuz-$ver" ] || die "no boot/vmlinuz-$ver in $pkg"

# And what ours need of Debian's (r2net: Poly1305, for its frame tags).
for m in r2net ramster_backend; do
	want="$want $(modinfo -F depends "$stock/$m.ko" | tr , ' ' |
		sed 's/\<r2net\>//')"
done

# Debian's modules in load order, each once, dependencies first.
mods=
for m in $want; do
	deps=$(modprobe -d "$tree" -S "$ver" --show-depends "$m") ||
		die "modprobe --show-depends $m found no $m in $pkg"
	for p in $(echo "$deps" | awk '$1 == "insmod" { print $2 }'); do
		case " $mods " in *" $p "*) ;; *) mods="$mods $p" ;; esac
	done
done

cp "$tree/boot/vmlinuz-$ver" "$stock/vmlinuz"
STOCK_MODULES=$mods STOCK_VERSION=$ver "$top/guest/mkinitramfs.sh" \
	"$stock/initramfs.cpio.gz" "$stock/r2net.ko" "$stock/ramster_backend.ko" \
	-- "$@"
echo "mkstock: $pkg $(cat "$cache/package-version"): $stock/vmlinuz," \
	"$stock/initramfs.cpio.gz (loads$(for p in $mods; do
	printf ' %s' "$(basename "$p" .ko)"; done), then r2net, ramster_backend)"
