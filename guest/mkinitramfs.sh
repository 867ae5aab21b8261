#!/bin/sh
# Build the guest initramfs: busybox, init, jobs, test programs, modules.
# usage: guest/mkinitramfs.sh OUT.cpio.gz MODULE.ko... -- PROGRAM...
# The modules go to /lib/modules/ramster, where jobs load them from.  For
# another kernel's image (guest/mkstock.sh), STOCK_MODULES="A.ko B.ko ..."
# go to /lib/modules/stock with their names in that order in load.list,
# which init loads before it brings the network up, and STOCK_VERSION
# (the kernel's uname -r) to /lib/modules/stock/version.
set -eu
out=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/run" "$root/mnt" "$root/etc" \
	"$root/lib/modules/ramster" "$root/jobs"
# mktemp -d makes the root 0700: no non-root process could reach a thing.
chmod 755 "$root"
cp /bin/busybox "$root/bin/busybox"
# iproute2's tc as /sbin/tc, for the tests' link faults (busybox's tc,
# first in PATH, has no netem), and ocfs2-tools' debugfs.ocfs2, which
# tells the shared-volume tests where its heartbeat blocks are, with the
# shared libraries they load.
for prog in /usr/sbin/tc /usr/sbin/debugfs.ocfs2; do
	cp "$prog" "$root/sbin/"
	for lib in $(ldd "$prog" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
# root, and nobody for the job steps that run unprivileged (su nobody).
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
cp "$top/guest/init" "$root/init"
cp "$top/guest/jobs/"*.sh "$root/jobs/"
if [ -n "${STOCK_MODULES:-}" ]; then
	mkdir -p "$root/lib/modules/stock"
	for m in $STOCK_MODULES; do
		cp "$m" "$root/lib/modules/stock/"
		basename "$m" >> "$root/lib/modules/stock/load.list"
	done
	echo "${STOCK_VERSION:?with STOCK_MODULES}" > "$root/lib/modules/stock/version"
fi
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	cp "$1" "$root/lib/modules/ramster/"
	shift
done
[ $# -gt 0 ] && shift
for prog in "$@"; do
	cp "$prog" "$root/usr/bin/"
done
chmod 755 "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -9n > "$out.tmp"
mv "$out.tmp" "$out"
