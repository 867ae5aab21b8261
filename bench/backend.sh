#!/bin/bash
# bench/backend.sh - the memory server's density and speed: xvmalloc's
# zpages per page frame beside zsmalloc's on the same compressed pages,
# fresh and after churn; put and get pages per second of a tmem store over
# zcache beside LZO1X compress and decompress of the same pages alone; the
# store's metadata per stored page.  Writes bench/results/backend.md.
#
# usage: bench/backend.sh        (make bench-backend builds first, then runs it)
#
# Boots bench/clusters/backend.cluster (one guest) with job bench-backend
# (guest/jobs/), which runs zbench.ko's commands (tests/zbench/zbench.h);
# shows progress as it arrives, takes the guest down, and tables the
# results.  Fails (non-zero) if anything read back was wrong, the guest's
# kernel complained, or the job did not finish.
# Environment: BENCH_DENSITY (20000 pages), BENCH_PUTGET (20000 pages),
# BENCH_SEED (1), BENCH_TIMEOUT (s, 3600), BENCH_OUT
# (bench/results/backend.md), BENCH_INITRD (build/initramfs.cpio.gz).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/libvirt.sh
. tests/lib/guest.sh
. bench/lib.sh
bench_name=backend.sh

cluster=$top/bench/clusters/backend.cluster
ndensity=${BENCH_DENSITY:-20000} nputget=${BENCH_PUTGET:-20000}
seed=${BENCH_SEED:-1}
timeout=${BENCH_TIMEOUT:-3600}
out=${BENCH_OUT:-$top/bench/results/backend.md}
initrd=${BENCH_INITRD:-$initrd}
name=$(cluster_name "$cluster")
state=/var/lib/ramster/bench/$name
# The one guest (not $node: show runs inside bench_once, where that is a
# local of its own).
server=$(node_names "$cluster" | head -n 1)

bench_need "$initrd" lib/modules/ramster/r2net.ko \
	lib/modules/ramster/ramster_backend.ko lib/modules/ramster/zbench.ko \
	jobs/bench-backend.sh
clock=$(tsc_clock)
tsc_khz=${clock#tsc_early_khz=}
tsc_khz=${tsc_khz%% *}

mkdir -p "$(dirname "$out")"
libvirt_up || bench_die "libvirtd would not start"
trap 'bench_down; libvirt_down' EXIT
trap 'echo "bench/backend.sh: interrupted"; exit 130' INT TERM

# show LINE: one results line as progress.
show() {
	local l=${1#RAMSTER-RESULT } s=$(($(date +%s) - bench_start))

	case $l in
	"PROGRESS "*)
		echo "$l" | awk -v s=$s '{ printf "[%4d s] %-18s %7d of %d\n", s, $2, $3, $4 }' ;;
	"BENCH "*) printf '[%4d s] %s: %s ...\n' $s "$server" "${l:0:100}" ;;
	*) printf '[%4d s] %s: %s\n' $s "$server" "$l" ;;
	esac
}

echo "bench: booting $name ($server): density $ndensity pages, putget $nputget pages, seed $seed"
# slab_nomerge: the store's caches keep their own lines in /proc/slabinfo.
bench_boot "$cluster" "$state" "$server" "$timeout" -i "$initrd" \
	-j bench-backend -a "ramster.bench=$ndensity,$nputget,$seed" \
	-a "$clock slab_nomerge"
load_before=${bench_load% -> *} load_after=${bench_load#* -> }

# The tables.
results=$(tr -d '\r' < "$state/$server.results.log")
info=$(echo "$results" | sed -n 's/.*BENCH-INFO //p')
guest_kernel=$(echo "$info" | sed -n 's/.*kernel=\([^ ]*\).*/\1/p')
guest_clock=$(echo "$info" | sed -n 's/.*clock=\([^ ]*\).*/\1/p')
guest_mem=$(echo "$info" | sed -n 's/.*mem_mib=\([^ ]*\).*/\1/p')
guest_cpus=$(echo "$info" | sed -n 's/.*cpus=\([^ ]*\).*/\1/p')
vm_mib=$(awk '$1 == "memory_mib" { print $3; exit }' "$cluster")
qemu=$(qemu-system-x86_64 --version | head -n 1)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
domtype=$(sed -n "s/.*<domain type='\([a-z]*\)'.*/\1/p" "$state/$server.xml")
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- backend-node tests/zbench guest/jobs/bench-backend.sh \
	bench/backend.sh bench/lib.sh bench/clusters/backend.cluster | wc -l)
[ "$dirty" = 0 ] || commit="$commit + uncommitted changes"

table='
	function mib(b) { return sprintf("%.1f", b / 1048576) }
	function r(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	$1 == "RAMSTER-RESULT" && $2 == "BENCH" {
		split($3, t, "=")
		for (i = 4; i <= NF; i++) {
			split($i, kv, "=")
			v[t[2], kv[1]] = kv[2]
		}
	}
	function drow(label, objs, zb, xv, zs,   ideal, x, z) {
		ideal = objs * 4096 / zb; x = objs / xv; z = objs / zs
		printf "| %s | %d | %s | %.3f | %d | **%.3f** | %d | **%.3f** | **%.3f** | %.3f | %.3f |\n",
			label, objs, mib(zb), ideal, xv, x, zs, z, x / z, x / ideal, z / ideal
	}
	function prow(label, rate, ns, n, ratio) {
		printf "| %s | %d | %.1f | %s |\n", label, rate, ns / n / 1000, ratio
	}
	END {
		d = "density"
		print "## Density: zpages per page frame, same objects in both\n"
		printf "Corpus: %d pages (seed %d): %d text, %d structs, %d sparse, %d mixed\n",
			v[d, "pages"], v[d, "seed"], v[d, "kind_text"], v[d, "kind_structs"],
			v[d, "kind_sparse"], v[d, "kind_mixed"]
		printf "(random head, text or zero tail), %d random; LZO1X-1 compressed.\n",
			v[d, "kind_random"]
		printf "%d compressed above %d bytes and are left out (the store keeps such\n",
			v[d, "excluded_incompressible"], v[d, "max_zsize"]
		printf "pages whole); the %d others, %s bytes on average, are in both\n",
			v[d, "stored_fresh"], v[d, "mean_zsize_fresh"]
		print "allocators.  Churn frees the same random half from both.  Ideal is"
		print "the compressed bytes packed with no header and no slack.  xvmalloc"
		print "does not move objects; zsmalloc compacted is after zs_compact(), which"
		print "its shrinker runs under memory pressure.  Every object left was read"
		print "back from both and checked.\n"
		print "| state | zpages | compressed MiB | ideal zpages/frame | xvmalloc frames | xvmalloc zpages/frame | zsmalloc frames | zsmalloc zpages/frame | xvmalloc / zsmalloc | xvmalloc / ideal | zsmalloc / ideal |"
		print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		drow("fresh", v[d, "stored_fresh"], v[d, "compressed_bytes_fresh"],
			v[d, "xv_frames_fresh"], v[d, "zs_frames_fresh"])
		drow("after churn (half freed)", v[d, "stored_churn"], v[d, "compressed_bytes_churn"],
			v[d, "xv_frames_churn"], v[d, "zs_frames_churn"])
		drow("after churn, zsmalloc compacted", v[d, "stored_churn"],
			v[d, "compressed_bytes_churn"], v[d, "xv_frames_churn"],
			v[d, "zs_frames_compacted"])
		printf "\nxvmalloc: %s bytes of header and rounding per object (8-byte header,\n",
			v[d, "xv_hdr_round_bytes_per_obj"]
		printf "8-byte alignment); free bytes inside its frames %s MiB fresh, %s MiB after churn.\n",
			mib(v[d, "xv_free_bytes_fresh"]), mib(v[d, "xv_free_bytes_churn"])

		p = "putget"
		n = v[p, "pages"]
		print "\n## Put and get beside LZO alone\n"
		printf "A tmem store over zcache (xvmalloc), one persistent pool, handles laid\n"
		printf "out as frontswap lays them out (16 objects); the same %d pages: %d\n", n, v[p, "stored_pages"]
		printf "stored, %d of them whole (did not compress below max_zsize), %d same-filled.\n",
			v[p, "huge_pages"], v[p, "same_filled_pages"]
		print "Only the calls are timed (ktime_get_ns() around each, summed).  Every"
		print "get was compared with its page byte for byte, every decompression too."
		print "Put = same-filled check + LZO1X-1 + xvmalloc + the store index; get ="
		print "the index + decompression (or a copy) into the caller page.\n"
		print "| operation | pages/s | us/page | store / LZO alone |"
		print "|---|---:|---:|---:|"
		prow("put", v[p, "put_pages_per_s"], v[p, "put_ns"], n, "**" v[p, "put_vs_compress"] "**")
		prow("LZO1X-1 compress alone", v[p, "compress_pages_per_s"], v[p, "compress_ns"], n, "")
		prow("get", v[p, "get_pages_per_s"], v[p, "get_ns"], n, "**" v[p, "get_vs_decompress"] "**")
		prow("LZO1X decompress alone", v[p, "decompress_pages_per_s"], v[p, "decompress_ns"], n, "")

		m = "meta"
		s = v[m, "stored"]
		print "\n## Memory beside the compressed bytes, per stored page\n"
		print "Store metadata: the slab objects of its caches above their count before"
		print "the puts (/proc/slabinfo, slab_nomerge; radix_tree_node is shared with"
		print "the page cache, idle during the run), times the struct size (what a"
		print "kernel without debugging uses) and times the slab object size of this"
		print "debug kernel (KASAN redzones and tracking).  xvmalloc: its block header"
		print "and rounding per object (density run); its slack: all of its frames"
		print "minus the compressed bytes, per compressed page (header, rounding,"
		print "zcache 2-byte length, free space; putget run, fresh).  SLUB counts the"
		print "free slots of its per-CPU slabs as active: a few objects too many (e.g."
		printf "the tmem objects: %d in the store).\n\n", v[p, "tmem_objects"]
		print "| what | objects | struct bytes | slab bytes (debug) | bytes/page (struct) | bytes/page (slab, debug) |"
		print "|---|---:|---:|---:|---:|---:|"
		printf "| tmem page descriptors (ramster_tmem_pgp) | %d | %d | %d | %.2f | %.2f |\n",
			v[m, "pgp_objs"], v[m, "pgp_struct_size"], v[m, "pgp_slab_size"],
			v[m, "pgp_objs"] * v[m, "pgp_struct_size"] / s, v[m, "pgp_objs"] * v[m, "pgp_slab_size"] / s
		printf "| tmem objects (ramster_tmem_obj) | %d | %d | %d | %.2f | %.2f |\n",
			v[m, "obj_objs"], v[m, "obj_struct_size"], v[m, "obj_slab_size"],
			v[m, "obj_objs"] * v[m, "obj_struct_size"] / s, v[m, "obj_objs"] * v[m, "obj_slab_size"] / s
		printf "| xarray nodes of the page indexes (radix_tree_node) | %d | %d | %d | %.2f | %.2f |\n",
			v[m, "xa_objs"], v[m, "xa_struct_size"], v[m, "xa_slab_size"],
			v[m, "xa_objs"] * v[m, "xa_struct_size"] / s, v[m, "xa_objs"] * v[m, "xa_slab_size"] / s
		printf "| **store metadata** | | | | **%s** | %s |\n",
			v[m, "meta_struct_bytes_per_page"], v[m, "meta_slab_bytes_per_page"]
		printf "| xvmalloc header + rounding per object | | | | %s | %s |\n",
			v[d, "xv_hdr_round_bytes_per_obj"], v[d, "xv_hdr_round_bytes_per_obj"]
		printf "| **metadata total** | | | | **%.2f** | %.2f |\n",
			v[m, "meta_struct_bytes_per_page"] + v[d, "xv_hdr_round_bytes_per_obj"],
			v[m, "meta_slab_bytes_per_page"] + v[d, "xv_hdr_round_bytes_per_obj"]
		printf "| xvmalloc slack per compressed page (putget) | | | | %s | %s |\n",
			v[p, "xv_slack_bytes_per_zpage"], v[p, "xv_slack_bytes_per_zpage"]
		printf "\nMean compressed page in the putget run: %.0f bytes (%d compressed bytes,\n",
			v[p, "compressed_bytes"] / (v[p, "stored_pages"] - v[p, "huge_pages"] - v[p, "same_filled_pages"]),
			v[p, "compressed_bytes"]
		printf "%d page frames in zcache, %d tmem objects).\n", v[p, "pool_pages"], v[p, "tmem_objects"]
	}
'

{
	cat <<-EOF
	# The memory server: xvmalloc beside zsmalloc, put/get beside LZO

	Made by \`make bench-backend\` (bench/backend.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),
	tree $commit.

	- Host: $cpu, $(nproc) CPUs, Linux $(uname -r); load average
	  $load_before before the boot, $load_after at the end
	- $qemu; libvirt domain type \`$domtype\` (TCG: no KVM, so absolute
	  rates are slow; compare the ratios)
	- Guest: Linux $guest_kernel (the debug kernel: KASAN, lockdep,
	  kmemleak; KASAN instruments LZO and both allocators alike), clock
	  $guest_clock (tsc_early_khz=$tsc_khz, tsc=reliable), $guest_cpus vCPU,
	  $vm_mib MiB (MemTotal $guest_mem MiB), $(basename "$cluster"); kmemleak
	  scans off during the run; one run, seed $seed
	- tests/zbench/zbench.ko (commands in tests/zbench/zbench.h) on
	  ramster_backend.ko's exports and the kernel's zsmalloc and LZO

	EOF
	echo "$results" | awk "$table"
	echo
	echo "## Raw results"
	echo
	echo '```'
	echo "$results" | grep ' BENCH' | sed 's/^RAMSTER-RESULT //; s/ *$//' | fold -w 100 -s
	echo '```'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "bench: wrote ${out#$top/}"
sed -n '/^## Density/,/^## Raw/p' "$out" | sed '$d'
