# bench-backend: the memory server's numbers (zbench.ko); bench/backend.sh
# runs it on one guest.  Loads r2net, ramster_backend and zbench, then:
#  - density DENSITY SEED: xvmalloc beside zsmalloc on the same compressed
#    pages, fresh and after half of them are freed at random;
#  - putget PUTGET SEED: a tmem store over zcache, puts and gets per second
#    beside LZO compress and decompress alone; while the store still holds
#    the pages, its metadata per stored page from /proc/slabinfo (caches
#    ramster_tmem_pgp, ramster_tmem_obj and the xarray nodes of the
#    objects' page indexes, radix_tree_node; active objects above the
#    count before the puts, times their slab size; and times their struct
#    size from /sys/kernel/slab: what a kernel without KASAN would use).
# Every object and page read back must be right, and nothing may fail.
# Results: "BENCH test=density|putget|meta name=value..." lines, and
# "PROGRESS PHASE DONE TOTAL" every 15 s while a command runs.
# ramster.bench=DENSITY,PUTGET,SEED on the kernel command line sets the
# pages of each command and the corpus seed (defaults 20000,20000,1).
zb=/sys/kernel/debug/zbench
ndensity=20000 nputget=20000 seed=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	ramster.bench=*)
		v=${arg#*=}
		ndensity=${v%%,*} v=${v#*,}
		nputget=${v%%,*} seed=${v#*,}
		;;
	esac
done
for v in "$ndensity" "$nputget" "$seed"; do
	case $v in
	''|*[!0-9]*)
		fail "ramster.bench=$ndensity,$nputget,$seed: want DENSITY,PUTGET,SEED, numbers" ;;
	esac
done
# Its scans take seconds of CPU under TCG; init still scans after the job.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak

insmod /lib/modules/ramster/r2net.ko || fail "insmod r2net"
insmod /lib/modules/ramster/ramster_backend.ko || fail "insmod ramster_backend"
insmod /lib/modules/ramster/zbench.ko ||
	fail "insmod zbench: is tests/zbench/zbench.ko in the image (MODULES)?"

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
result "BENCH-INFO kernel=$(uname -r) clock=$cs cpus=$(nproc) mem_mib=$mem" \
	"density=$ndensity putget=$nputget seed=$seed" \
	"max_zsize=$(cat /sys/module/ramster_backend/parameters/max_zsize)"
ok "zbench: density $ndensity, putget $nputget, seed $seed; kernel $(uname -r), clock $cs"

# val NAME: a "name value" line's value in /run/zb.out.
val() {
	awk -v k="$1" '$1 == k { print $2; f = 1 } END { exit !f }' /run/zb.out ||
		fail "no $1 in: $(tr '\n' ' ' < /run/zb.out)"
}

# zb CMD...: one zbench command, its progress every 15 s; its result in
# /run/zb.out.
zb() {
	echo "$*" > $zb/run &
	pid=$!
	t=0
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ $((t % 15)) = 0 ] && result "PROGRESS $(cat $zb/progress)"
	done
	wait $pid || fail "zbench '$*' failed: $(dmesg | grep zbench: | tail -n 3)"
	cat $zb/run > /run/zb.out || fail "cannot read the result of '$*'"
}

# line: /run/zb.out as name=value pairs on one line.
line() {
	awk '$1 != "cmd" { printf "%s%s=%s", n++ ? " " : "", $1, $2 }' /run/zb.out
}

zb density "$ndensity" "$seed"
[ "$(val errors)" = 0 ] && [ "$(val mismatches)" = 0 ] ||
	fail "density: errors $(val errors) (first $(val first_error)), mismatches $(val mismatches)"
result "BENCH test=density $(line)"
ok "density: $(val stored_fresh) objects; zpages per frame fresh xv $(val xv_zpages_per_frame_fresh)" \
	"zs $(val zs_zpages_per_frame_fresh), after churn xv $(val xv_zpages_per_frame_churn)" \
	"zs $(val zs_zpages_per_frame_churn); every object read back right"

# slabs FILE: /proc/slabinfo into FILE, and the struct sizes of the
# store's caches (a line "CACHE object_size" each) after it.
slabs() {
	cat /proc/slabinfo > "$1" || fail "cannot read /proc/slabinfo"
	for c in ramster_tmem_pgp ramster_tmem_obj radix_tree_node; do
		grep -q "^$c " "$1" ||
			fail "no $c in /proc/slabinfo (merged into another cache? boot with slab_nomerge)"
		echo "$c $(cat /sys/kernel/slab/$c/object_size)" >> "$1"
	done
}

slabs /run/slab0
zb putget "$nputget" "$seed"
slabs /run/slab1
[ "$(val errors)" = 0 ] && [ "$(val get_misses)" = 0 ] &&
	[ "$(val mismatches)" = 0 ] && [ "$(val lzo_mismatches)" = 0 ] ||
	fail "putget: errors $(val errors) (first $(val first_error)), misses $(val get_misses)," \
		"mismatches $(val mismatches), LZO mismatches $(val lzo_mismatches)"
stored=$(val stored_pages)
[ "$stored" = "$nputget" ] || fail "putget: the store holds $stored pages, want $nputget"
result "BENCH test=putget $(line)"
ok "putget: put $(val put_pages_per_s) pages/s (compress $(val compress_pages_per_s)," \
	"ratio $(val put_vs_compress)), get $(val get_pages_per_s) pages/s" \
	"(decompress $(val decompress_pages_per_s), ratio $(val get_vs_decompress)); every get right"
# Active objects above the count before the puts, times the slab's object
# size (with KASAN's redzones) and times the struct's size.  The objects'
# page indexes are xarrays: their nodes come from radix_tree_node, which
# the page cache shares (nothing else runs here, so its growth is ours).
meta=$(awk -v n="$stored" '
	FNR == 1 { f++ }
	NF == 2 { st[$1] = $2; next }
	$1 ~ /^(ramster_tmem_(pgp|obj)|radix_tree_node)$/ { act[f, $1] = $2; sz[$1] = $4 }
	END { split("ramster_tmem_pgp ramster_tmem_obj radix_tree_node", cs, " ")
		split("pgp obj xa", ks, " ")
		for (i = 1; i <= 3; i++) {
			c = cs[i]; k = ks[i]
			d = act[2, c] - act[1, c]
			printf "%s_objs=%d %s_slab_size=%d %s_struct_size=%d ",
				k, d, k, sz[c], k, st[c]
			slab += d * sz[c]; strct += d * st[c]
		}
		printf "stored=%d meta_slab_bytes_per_page=%.2f meta_struct_bytes_per_page=%.2f",
			n, slab / n, strct / n }' /run/slab0 /run/slab1)
result "BENCH test=meta $meta"
ok "store metadata: $meta"

zb release
rmmod zbench || fail "rmmod zbench"
rmmod ramster_backend || fail "rmmod ramster_backend"
rmmod r2net || fail "rmmod r2net"
ok "released and unloaded"
