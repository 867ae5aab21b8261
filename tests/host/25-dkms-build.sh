#!/bin/bash
# A memory server on Debian's own kernel: dkms/build.sh builds r2net.ko
# and ramster_backend.ko with DKMS against linux-headers-amd64 (the
# kernel it points at, not the running one; nothing installed, nothing
# loaded).  Both land in build/stock/ with that version in
# build/stock/version; modinfo shows its vermagic, ramster_backend
# depends on r2net, and every symbol either imports is exported by
# Debian's kernel (its Module.symvers) or by r2net.ko, with the same CRC:
# they would load on that kernel without unknown symbols or versions.
# dkms and the headers come from scripts/deps.sh; missing, this fails.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
stock=build/stock

command -v dkms >/dev/null 2>&1 ||
	{ echo "FAIL: no dkms (scripts/deps.sh installs it)"; exit 1; }
kver=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2>/dev/null |
       sed -n 's/.*linux-headers-\([^ ,]*-amd64\).*/\1/p')
[ -n "$kver" ] ||
	{ echo "FAIL: no linux-headers-amd64 (scripts/deps.sh installs it)"; exit 1; }
symvers=/usr/src/linux-headers-$kver/Module.symvers
[ -f "$symvers" ] || { echo "FAIL: no $symvers"; exit 1; }
echo "Debian kernel headers: $kver"

dkms/build.sh || { echo "FAIL: dkms/build.sh"; exit 1; }
[ "$(cat $stock/version)" = "$kver" ] ||
	{ echo "FAIL: $stock/version says '$(cat $stock/version)', not $kver"; exit 1; }
dkms status -m ramster-server -k "$kver" | grep -q ": built" ||
	{ echo "FAIL: dkms status does not say built for $kver:"; dkms status; exit 1; }
echo "dkms: $(dkms status -m ramster-server -k "$kver")"

for m in r2net ramster_backend; do
	ko=$stock/$m.ko
	[ -f "$ko" ] || { echo "FAIL: no $ko"; exit 1; }
	vm=$(modinfo -F vermagic "$ko")
	case $vm in
	"$kver "*) echo "$m: vermagic $vm" ;;
	*) echo "FAIL: $m: vermagic '$vm', not $kver"; exit 1 ;;
	esac
done
dep=$(modinfo -F depends $stock/ramster_backend.ko)
[ "$dep" = r2net ] ||
	{ echo "FAIL: ramster_backend depends on '$dep', not r2net"; exit 1; }
echo "ramster_backend: depends $dep; r2net: depends $(modinfo -F depends $stock/r2net.ko)"

# "0xCRC SYMBOL" for every symbol KO exports, from its __crc_ symbols.
exports()
{
	local ko=$1 dir ndx off sym sec
	dir=$(mktemp -d)
	readelf -sW "$ko" | awk '$8 ~ /^__crc_/ { print $7, $2, substr($8, 7) }' |
	while read -r ndx off sym; do
		sec=$(readelf -SW "$ko" | sed -n "s/^ *\[ *$ndx\] \([^ ]*\) .*/\1/p")
		[ -f "$dir/$ndx" ] ||
			objcopy -O binary --only-section="$sec" "$ko" "$dir/$ndx"
		echo "0x$(od -An -tx4 -j $((0x$off)) -N4 "$dir/$ndx" | tr -d ' ') $sym"
	done
	rm -rf "$dir"
}

provided=$(mktemp)
trap 'rm -f "$provided"' EXIT
awk -F '\t' '{ print $1, $2 }' "$symvers" > "$provided"
r2net_exports=$(exports $stock/r2net.ko)
[ -n "$r2net_exports" ] || { echo "FAIL: r2net.ko exports nothing"; exit 1; }
echo "$r2net_exports" >> "$provided"

for m in r2net ramster_backend; do
	imports=$(modprobe --dump-modversions $stock/$m.ko | awk '{ print $1, $2 }')
	[ -n "$imports" ] || { echo "FAIL: $m.ko has no symbol versions"; exit 1; }
	bad=$(echo "$imports" | grep -vxFf "$provided" || true)
	if [ -n "$bad" ]; then
		echo "FAIL: $m imports symbols Debian's $kver and r2net do not export (or not at that CRC):"
		echo "$bad" | while read -r crc sym; do
			echo "  $sym $crc, provided: $(awk -v s="$sym" '$2 == s { print $1 }' "$provided")"
		done
		exit 1
	fi
	echo "$m: $(echo "$imports" | wc -l) imports resolved, CRCs match"
done
n=$(modprobe --dump-modversions $stock/ramster_backend.ko | grep -c '	r2net_' || true)
[ "$n" -gt 0 ] || { echo "FAIL: ramster_backend imports nothing from r2net"; exit 1; }
echo "PASS: ramster-server built by DKMS for Debian's $kver; ramster_backend resolves $n symbols from r2net"
