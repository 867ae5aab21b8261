# bench-swap: one swapping workload under several configurations, one
# after another in the same boot; bench/swap.sh runs it and tables the
# lines.  ramster.bench=CONFIGS,MIB,ROUNDS on the kernel command line:
# CONFIGS joined by '+', each one of
#   ram   no swap at all (the bench boots a VM large enough for MIB)
#   disk  swap to the virtio disk /dev/vda
#   wt    ramster_frontend mode=writethrough (window 32)
#   wt0   the same with window=0: every store waits for the server
#   none  mode=none: the server holds the only copy
# For each, the client runs "swapcheck timed MIB ROUNDS" (every page
# checked on every read) and reports "BENCH config=C name=value..." with
# the phases' times, swap-in latencies, pages swapped out and in, and the
# frontend's counters; then swapoff, and the frontend is unloaded.
#
# The memory server serves, and after each pool of the client is gone
# (stored_pages back to 0) reports "BENCH server=N" with the most pages,
# compressed bytes and page frames it held meanwhile.
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
	ram|disk|wt|wt0|none) ;;
	*) fail "ramster.bench: unknown configuration '$c' (ram disk wt wt0 none)" ;;
	esac
done
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak

# watch_store: report the store's peak each time it empties again.
watch_store() {
	n=0 pp=0 pb=0 pf=0
	while :; do
		p=$(cat $be/stored_pages) b=$(cat $be/compressed_bytes)
		f=$(cat $be/pool_pages)
		[ "$p" -gt $pp ] && pp=$p
		[ "$b" -gt $pb ] && pb=$b
		[ "$f" -gt $pf ] && pf=$f
		if [ "$p" = 0 ] && [ $pp -gt 0 ]; then
			n=$((n + 1))
			result "BENCH server=$n peak_pages=$pp peak_compressed_bytes=$pb peak_frames=$pf"
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
*" wt "*|*" wt0 "*|*" none "*)
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

for cfg in $configs; do
	sync
	echo 3 > /proc/sys/vm/drop_caches
	case $cfg in
	ram) ;;
	*) swap_on ;;
	esac
	case $cfg in
	wt) args="mode=writethrough" ;;
	wt0) args="mode=writethrough window=0" ;;
	none) args="mode=none" ;;
	*) args= ;;
	esac
	if [ -n "$args" ]; then
		insmod $ko/ramster_frontend.ko target=$srv cleancache=0 $args ||
			fail "insmod ramster_frontend target=$srv $args"
		t=0
		until grep -q "swap type 0 pool [0-9]" $fe/swap_pools; do
			t=$((t + 1))
			[ $t -le 120 ] || fail "no pool on node $srv after 120 s"
			sleep 1
		done
	fi
	out=$(vmstat pswpout) in=$(vmstat pswpin) loads=$(cat $fs/loads)
	stores=$(cat $fs/succ_stores)
	swapcheck timed $mib $rounds > /run/sc.out 2>&1 ||
		{ cat /run/sc.out; fail "$cfg: pages came back wrong"; }
	line="config=$cfg $(sed -n 's/^timed: //p' /run/sc.out)"
	line="$line disk_out=$(($(vmstat pswpout) - out)) disk_in=$(($(vmstat pswpin) - in))"
	line="$line fs_stores=$(($(cat $fs/succ_stores) - stores)) fs_loads=$(($(cat $fs/loads) - loads))"
	for k in remote_puts remote_put_failures remote_get_hits window_hits \
		window_waits window_full lost_loads; do
		line="$line $k=$(c $k)"
	done
	line="$line $(awk '{ printf "%s_rtt_avg_us=%s ", $1, $5 }' $fe/rtt 2>/dev/null)"
	result "BENCH $line"
	case $cfg in
	ram) continue ;;
	esac
	[ -z "$args" ] || expect $fs/failed_loads -eq 0
	swapoff /dev/vda || fail "$cfg: swapoff"
	if [ -n "$args" ]; then
		echo 1 > $fe/unregister
		rmmod ramster_frontend || fail "rmmod ramster_frontend"
	fi
	ok "$cfg: $(cat /run/sc.out | head -n 1)"
done
case " $configs " in
*" wt "*|*" wt0 "*|*" none "*) ramsterctl unconfigure || fail "ramsterctl unconfigure" ;;
esac
