#!/bin/bash
# Kernel style: the patch series and the project's kernel C are
# checkpatch --strict clean, and the modules build clean with W=1 and
# sparse (C=2).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$("$top/kernel/build.sh" --print-dir)
[ -x "$kdir/scripts/checkpatch.pl" ] || { echo "no kernel tree at $kdir: run make first"; exit 1; }
cp="$kdir/scripts/checkpatch.pl --strict --terse --show-types"
out=$($cp "$top"/frontend/kernel-patches/0*.patch 2>&1 | grep -E 'ERROR|WARNING|CHECK' || true)
[ -z "$out" ] || { echo "checkpatch on the series:"; echo "$out"; exit 1; }
echo "series: checkpatch --strict clean"
files=$(cd "$top" && ls tests/probe/*.c shared-abi/*.h r2net/*.[ch] tests/r2echo/*.[ch] tests/tmemclient/*.[ch] backend-node/*.[ch] frontend/*.[ch] tests/zbench/*.[ch] | grep -v "\.mod\.c$")
out=$(cd "$top" && $cp --no-tree -f $files 2>&1 | grep -E 'ERROR|WARNING|CHECK' || true)
[ -z "$out" ] || { echo "checkpatch on the C files:"; echo "$out"; exit 1; }
echo "C files: checkpatch --strict clean:" $files
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for m in tests/probe r2net tests/r2echo tests/tmemclient backend-node frontend tests/zbench; do
	make -s -C "$kdir" M="$top/$m" clean
	make -C "$kdir" M="$top/$m" C=2 W=1 modules >"$log" 2>&1 || { cat "$log"; exit 1; }
	if grep -E 'warning:|error:' "$log"; then
		echo "$m: W=1 or sparse complained"
		exit 1
	fi
	echo "$m: W=1 and sparse clean"
done
