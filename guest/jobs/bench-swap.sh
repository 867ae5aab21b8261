# bench-swap: one swapping workload under several configurations, one
# after another in the same boot; bench/swap.sh runs it and tables the
# lines.  ramster.bench=CONFIGS,MIB,ROUNDS on the kernel command line:
# CONFIGS joined by '+', each one of
#   ram   no swap at all (the bench boots a VM large enough for MIB)
#   disk  swap to the virtio disk /dev/vda
#   wt    ramster_frontend mode=writethrough (window 32)
#   wt0   the same with window=0: every store waits for the server
#   wtpf0 wt with swap_prefetch=0: each load waits for its page alone
#   none  mode=none: the server holds the only copy
#   zram  swap to /dev/zram0 (LZO, twice MIB big) in this guest's RAM
#   zswap zswap (LZO, zbud, 20% of RAM) in front of /dev/vda; last,
#         as zswap keeps the frontswap slot once it has it
#   scan  no swap: files of twice the RAM on /dev/vdb read twice
#   scan-cc  the same with the frontend's cleancache (after wt, wt0,
#         wtpf0 and none: cleancache keeps the frontend loaded)
# For each, the client runs "swapcheck timed MIB ROUNDS" (every page
# checked on every read) and reports "BENCH config=C name=value..." with
# the phases' times, swap-in latencies, pages swapped out and in, the
# frontend's counters, and for zram and zswap the peaks of their store
# in this guest; then swapoff, and the backend is undone.  When zram runs
# out of room the OOM killer ends swapcheck: that is reported (oom=1);
# any other failure fails the job.
#
# After them, r2net's echo of nothing and of a page to the server, the
# network's share of a get ("BENCH probe=r2net").
#
# The memory server serves, and after each pool of the client is gone
# (stored_pages back to 0) reports "BENCH server=N" with the most pages,
# compressed bytes and page frames it held meanwhile, and the share of
# its CPU's time busy since it held the first.  The client reports its
# own for each workload (cpu_busy_pct, cpu_iowait_pct).
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
fs=/sys/kernel/debug/frontswap
be=/sys/kernel/debug/ramster_backend
configs=disk+wt mib=768 rounds=1
for arg in $(cat /proc/cmdline); do
	case $arg in
	ramster.bench=*)
		v=${arg#*=}
		configs=${v%%,*} v=${v#*,}
		mib=${v%%,*} rounds=${v#*,}
		;;
	esac
done
for v in "$mib" "$rounds"; do
	case $v in
	''|*[!0-9]*) fail "ramster.bench=$configs,$mib,$rounds: want CONFIGS,MIB,ROUNDS" ;;
	esac
done
configs=$(echo "$configs" | tr + ' ')
for c in $configs; do
	case $c in
	ram|disk|wt|wt0|wtpf0|none|zram|zswap|scan|scan-cc) ;;
	*) fail "ramster.bench: unknown configuration '$c' (ram disk wt wt0 wtpf0 none zram zswap scan scan-cc)" ;;
	esac
done
case "$configs " in
*"zswap "?*) fail "ramster.bench: zswap must come last: it keeps the frontswap slot" ;;
*"scan-cc "*" wt "*|*"scan-cc "*" wt0 "*|*"scan-cc "*" wtpf0 "*|*"scan-cc "*" none "*)
	fail "ramster.bench: scan-cc must come after wt, wt0, wtpf0 and none: cleancache keeps the frontend loaded" ;;
*"scan-cc "*"scan "*)
	fail "ramster.bench: scan must come before scan-cc: cleancache keeps the frontend loaded" ;;
esac
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak

# cpu_ticks: "busy iowait all" jiffies of this guest's CPUs since boot.
cpu_ticks() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; print b, $6, b + $5 + $6 }' /proc/stat
}
# cpu_pct PREFIX TICKS: the share of the CPUs' time busy and in iowait
# since TICKS (cpu_ticks), as PREFIXcpu_busy_pct=N PREFIXcpu_iowait_pct=N.
cpu_pct() {
	pre=$1
	set -- $2 $(cpu_ticks)
	echo "${pre}cpu_busy_pct=$((($4 - $1) * 100 / ($6 - $3 + 1)))" \
		"${pre}cpu_iowait_pct=$((($5 - $2) * 100 / ($6 - $3 + 1)))"
}

# watch_store: report the store's peak, and how busy this guest was,
# each time it empties again.
watch_store() {
	n=0 pp=0 pb=0 pf=0
	while :; do
		p=$(cat $be/stored_pages) b=$(cat $be/compressed_bytes)
		f=$(cat $be/pool_pages)
		[ "$p" -gt 0 ] && [ $pp = 0 ] && t0=$(cpu_ticks)
		[ "$p" -gt $pp ] && pp=$p
		[ "$b" -gt $pb ] && pb=$b
		[ "$f" -gt $pf ] && pf=$f
		if [ "$p" = 0 ] && [ $pp -gt 0 ]; then
			n=$((n + 1))
			result "BENCH server=$n peak_pages=$pp peak_compressed_bytes=$pb peak_frames=$pf $(cpu_pct srv_ "$t0")"
			pp=0 pb=0 pf=0
		fi
		sleep 1
	done
}

if [ "$RAMSTER_ROLE" = memory-server ]; then
	r2net_up
	serve_start
	watch_store &
	w=$!
	serve_finish
	kill $w
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_other
	exit 0
fi

case " $configs " in
*" wt "*|*" wt0 "*|*" wtpf0 "*|*" none "*|*" scan-cc "*)
	r2net_up
	srv=$(memory_server)
	[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf" ;;
esac
echo 0 > /proc/sys/vm/page-cluster
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
c() { cat $fe/$1 2>/dev/null || echo 0; }
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
result "BENCH-INFO kernel=$(uname -r) clock=$cs cpus=$(nproc) mem_mib=$mem"
ok "configurations: $configs; swapcheck timed $mib $rounds; $(avail_mib) MiB available"

# peaks SAMPLER: in the background, the largest "pages bytes frames" the
# sampler prints (a compressed store in this guest), into /run/peak.
peaks() {
	now=$1 pp=0 pb=0 pf=0
	while :; do
		set -- $($now)
		[ "${1:-0}" -gt $pp ] && pp=$1
		[ "${2:-0}" -gt $pb ] && pb=$2
		[ "${3:-0}" -gt $pf ] && pf=$3
		echo "peak_pages=$pp peak_compressed_bytes=$pb peak_frames=$pf" > /run/peak.new
		mv /run/peak.new /run/peak
		sleep 1
	done
}
zram_now() {
	awk '{ printf "%d %d %d\n", $1 / 4096, $2, $3 / 4096 }' /sys/block/zram0/mm_stat
}
zswap_now() {
	z=/sys/kernel/debug/zswap
	echo "$(cat $z/stored_pages) 0 $(($(cat $z/pool_total_size) / 4096))"
}

# setup CFG: its swap device (set dev) and backend; teardown CFG undoes it.
setup() {
	dev=/dev/vda args= sampler=
	case $1 in
	ram) dev= ;;
	wt) args="mode=writethrough" ;;
	wt0) args="mode=writethrough window=0" ;;
	wtpf0) args="mode=writethrough swap_prefetch=0" ;;
	none) args="mode=none" ;;
	zram)
		dev=/dev/zram0
		echo lzo > /sys/block/zram0/comp_algorithm || fail "zram: no lzo"
		echo "$((mib * 2))M" > /sys/block/zram0/disksize || fail "zram: disksize"
		mkswap $dev >/dev/null && swapon $dev || fail "swapon $dev"
		peaks zram_now &
		sampler=$!
		return ;;
	esac
	[ -n "$dev" ] || return 0
	swap_on
	if [ "$1" = zswap ]; then
		echo 1 > /sys/module/zswap/parameters/enabled ||
			fail "zswap could not take the frontswap slot"
		peaks zswap_now &
		sampler=$!
	fi
	[ -n "$args" ] || return 0
	insmod $ko/ramster_frontend.ko target=$srv cleancache=0 $args ||
		fail "insmod ramster_frontend target=$srv $args"
	t=0
	until grep -q "swap type 0 pool [0-9]" $fe/swap_pools; do
		t=$((t + 1))
		[ $t -le 120 ] || fail "no pool on node $srv after 120 s"
		sleep 1
	done
}

teardown() {
	[ -n "$dev" ] || return 0
	expect $fs/failed_loads -eq 0
	swapoff $dev || fail "$1: swapoff $dev"
	case $1 in
	zram) echo 1 > /sys/block/zram0/reset ;;
	zswap) echo 0 > /sys/module/zswap/parameters/enabled ;;
	esac
	[ -n "$args" ] || return 0
	echo 1 > $fe/unregister
	rmmod ramster_frontend || fail "rmmod ramster_frontend"
	# The server samples its store each second: let it see it empty,
	# so each configuration gets its own peak.
	sleep 3
}

# scan CFG: files of twice this guest's RAM on the ext4 data disk
# (/dev/vdb), written, the filesystem mounted anew (so nothing of them is
# in memory or on the server), then read twice, every page checked; with
# scan-cc the frontend keeps the pages evicted in between on the server
# (cleancache only; it stays loaded: cleancache pins it).
scan() {
	nf=$(( (mem * 2 + 63) / 64 )) np=16384 d=/mnt/data
	if [ $1 = scan-cc ] && [ ! -d $fe ]; then
		insmod $ko/ramster_frontend.ko target=$srv frontswap=0 ||
			fail "insmod ramster_frontend target=$srv frontswap=0"
	fi
	mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb"
	for f in $(seq 1 $nf); do
		fcheck write $d/f$f $f 0 $np 1 || fail "cannot write $d/f$f"
	done
	umount $d && mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb again"
	if [ $1 = scan-cc ]; then
		t=0
		until grep -q "server pool [0-9]" $fe/cleancache_pools; do
			t=$((t + 1))
			[ $t -le 120 ] || fail "no cleancache pool after 120 s"
			sleep 1
		done
	fi
	hits=$(c cc_get_hits) puts=$(c cc_puts) in=$(vmstat pgpgin) t0=$(now_ms)
	for f in $(seq 1 $nf); do
		fcheck verify $d/f$f $f $np 1 || fail "$1: f$f read back wrong"
	done
	t1=$(now_ms) in1=$(vmstat pgpgin) hits1=$(c cc_get_hits)
	for f in $(seq 1 $nf); do
		fcheck verify $d/f$f $f $np 1 || fail "$1: f$f read back wrong"
	done
	t2=$(now_ms)
	result "BENCH config=$1 oom=0 files=$nf mib=$((nf * 64)) read1_ms=$((t1 - t0))" \
		"read2_ms=$((t2 - t1)) total_ms=$((t2 - t0))" \
		"disk_kib1=$((in1 - in)) disk_kib2=$(($(vmstat pgpgin) - in1))" \
		"cc_puts=$(($(c cc_puts) - puts)) cc_hits1=$((hits1 - hits))" \
		"cc_hits2=$(($(c cc_get_hits) - hits1)) cc_puts_dropped=$(c cc_puts_dropped)"
	rm -f $d/f*
	umount $d || fail "umount $d"
	ok "$1: $nf files of 64 MiB read twice, every page checked"
}

for cfg in $configs; do
	case $cfg in
	scan*) scan $cfg; continue ;;
	esac
	sync
	echo 3 > /proc/sys/vm/drop_caches
	rm -f /run/peak
	setup $cfg
	out=$(vmstat pswpout) in=$(vmstat pswpin) loads=$(cat $fs/loads)
	stores=$(cat $fs/succ_stores)
	oom=0 rc=0 t0=$(cpu_ticks)
	swapcheck timed $mib $rounds > /run/sc.out 2>&1 || rc=$?
	cpu=$(cpu_pct "" "$t0")
	if [ $rc != 0 ]; then
		# Only a store that ran out of room may end the workload.
		[ $rc = 137 ] && dmesg | grep -q "Killed process [0-9]* (swapcheck)" ||
			{ cat /run/sc.out; fail "$cfg: pages came back wrong (exit $rc)"; }
		oom=1
	fi
	[ -z "$sampler" ] || { sleep 1; kill $sampler; wait $sampler 2>/dev/null || :; }
	line="config=$cfg oom=$oom $(sed -n 's/^timed: //p' /run/sc.out) $cpu"
	line="$line disk_out=$(($(vmstat pswpout) - out)) disk_in=$(($(vmstat pswpin) - in))"
	line="$line fs_stores=$(($(cat $fs/succ_stores) - stores)) fs_loads=$(($(cat $fs/loads) - loads))"
	for k in remote_puts remote_put_failures remote_get_hits window_hits \
		window_waits window_full lost_loads swap_prefetches \
		swap_prefetch_hits stores_low_memory; do
		line="$line $k=$(c $k)"
	done
	line="$line $(awk '{ printf "%s_rtt_avg_us=%s ", $1, $5 }' $fe/rtt 2>/dev/null)"
	[ -r /run/peak ] && line="$line $(cat /run/peak)"
	[ $cfg = zswap ] && line="$line written_back=$(cat /sys/kernel/debug/zswap/written_back_pages)"
	result "BENCH $line"
	teardown $cfg
	if [ $oom = 1 ]; then
		ok "$cfg: ran out of memory: the OOM killer ended swapcheck"
	else
		ok "$cfg: $(head -n 1 /run/sc.out)"
	fi
done
# Where a get's time goes: the same path with no tmem work, r2net's echo
# of nothing and of a page to the memory server and back (r2echo.ko).
case " $configs " in
*" wt "*|*" wt0 "*|*" wtpf0 "*|*" none "*|*" scan-cc "*)
	echo_ok sync "$srv" 0 1000
	e0=$(val lat_p50_us)
	echo_ok page "$srv" 1000
	result "BENCH probe=r2net echo0_p50_us=$e0 echo_page_p50_us=$(val lat_p50_us)" \
		"echo_page_p99_us=$(val lat_p99_us)"
	ramsterctl unconfigure || fail "ramsterctl unconfigure" ;;
esac
