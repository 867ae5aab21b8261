#!/bin/bash
# Build the RAMster guest kernel: Debian's linux-source-6.1, the patch series
# in frontend/kernel-patches, allnoconfig plus the checked-in fragments.
# The build is cached outside the clone, keyed on its inputs, so a fresh
# clone reuses a kernel whose source, patches and fragments have not changed.
#
# usage: kernel/build.sh [--fast] [--print-dir]
#   prints the build directory (holding arch/x86/boot/bzImage) on stdout.
#   The default kernel has debug.config (KASAN, lockdep, kmemleak); --fast
#   has fast.config instead, for the tests and benches that move hundreds
#   of thousands of pages and would take hours under KASAN and TCG.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${RAMSTER_CACHE:-/var/cache/ramster}
tarball=/usr/src/linux-source-6.1.tar.xz
series=$top/frontend/kernel-patches/series
jobs=$(nproc)
variant=debug
if [ "${1:-}" = --fast ]; then
	variant=fast
	shift
fi
frag=$top/kernel/$variant.config

[ -r "$tarball" ] || { echo "kernel/build.sh: $tarball missing: apt-get install linux-source-6.1" >&2; exit 1; }

# Bump when the way the tree is configured or built changes.
recipe=1
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1)
key=$( {
	echo "$srcver recipe $recipe"
	[ $variant = debug ] || echo "variant $variant"
	cat "$top/kernel/base.config" "$frag"
	cat "$series"
	grep -v '^#' "$series" | while read -r p; do
		[ -n "$p" ] && cat "$top/frontend/kernel-patches/$p"
	done
} | sha256sum | cut -c1-16)
# The debug kernel's directory keeps its old name (linux-KEY) so that
# its cache survives; the fast one is linux-fast-KEY.
if [ $variant = debug ]; then
	dir=$cache/linux-$key
	olds=$cache/linux-????????????????
else
	dir=$cache/linux-$variant-$key
	olds=$cache/linux-$variant-*
fi

if [ "${1:-}" = --print-dir ]; then
	echo "$dir"
	exit 0
fi

if [ -f "$dir/.done" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

log() { echo "kernel: $*" >&2; }

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
log "$variant kernel: unpacking linux-source $srcver into $dir"
tar -C "$dir.tmp" --strip-components=1 -xf "$tarball"
grep -v '^#' "$series" | while read -r p; do
	[ -n "$p" ] || continue
	log "applying $p"
	patch -d "$dir.tmp" -p1 -s --no-backup-if-mismatch \
		< "$top/frontend/kernel-patches/$p" >&2
done

cd "$dir.tmp"
make -s allnoconfig >&2
scripts/kconfig/merge_config.sh -m .config "$top/kernel/base.config" \
	"$frag" >/dev/null
make -s olddefconfig >&2
# Every option the fragments ask for must survive olddefconfig.
missing=0
for f in "$top/kernel/base.config" "$frag"; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=[ym]" .config && { log "$opt should be off"; missing=1; } ;;
		CONFIG_*) grep -qxF "$line" .config || { log "$line did not stick"; missing=1; } ;;
		esac
	done < "$f"
done
[ "$missing" = 0 ] || { log "config fragments do not apply; fix kernel/*.config"; exit 1; }

log "building bzImage with $jobs jobs (about 6-10 minutes cold)"
start=$(date +%s)
make -j"$jobs" all 2>&1 | \
	awk '/ (CC|LD|AR|AS)  /{ n++; if (n % 500 == 0) { printf "kernel: %d objects\n", n > "/dev/stderr"; fflush() } }
	     /warning:|error:/ { print > "/dev/stderr" }'
[ -f arch/x86/boot/bzImage ] || { log "build failed"; exit 1; }
log "built in $(( $(date +%s) - start )) s"
cd /
mv "$dir.tmp" "$dir"
touch "$dir/.done"
# Older builds are of no use to this tree; keep the disk bounded.
for old in $olds; do
	[ -d "$old" ] || continue
	[ "$old" = "$dir" ] || { log "removing old build $old"; rm -rf "$old"; }
done
echo "$dir"
