# server-pressure: a memory server under its own memory pressure while
# two clients swap to it and keep clean file pages on it.
#
# Server (512 MiB): loads the backend, then its own workload takes all
# but $room MiB of what is available (swapcheck hold: anonymous pages,
# with no swap here they stay in RAM), so the store runs into the RAM's
# end well before its limit (max_pool_percent, half the RAM).  It must
# stay up: its workload is never OOM-killed and reads back right, it
# refuses the persistent puts it cannot hold (err_enomem) and gives back
# ephemeral pages (evictions), and the console shows no allocation
# failure, warning or OOM report.  A sampler notes the least memory
# available and the most pages stored.
#
# Second client, writethrough with fetch-ahead: writes files as big as
# its RAM on its data disk and reads them (cleancache: ephemeral puts),
# then swaps $mib MiB while it reads them again, every page checked.
# First client, mode none (a page the server took is on the server
# only): once the other has read its files, swaps $mib MiB with
# swapcheck, every page checked; a refused put goes to its swap disk.
# Each reports its longest gap in swap progress, and notes any time of
# 3 s or more when no page was swapped in or out, with what r2net, TCP
# and the waiting tasks looked like (stall_watch), and where swapcheck's
# own thread waited whenever it finished no page for 3 s
# (SWAPCHECK_STALL_MS).
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
b=/sys/kernel/debug/ramster_backend
room=${room:-112}	# MiB the server's own workload leaves available
mib=${mib:-288}		# each client's swapcheck
files=4 pages=16384	# 4 x 64 MiB on the second client
d=/mnt/data

# stalls: the stall_watch notes, on the console.
stalls() {
	echo "stalls:"; cat /run/stalls
	[ ! -s /run/stall.txt ] || { echo "the first:"; cat /run/stall.txt; }
	[ ! -s /run/sc.err ] || { echo "swapcheck:"; cat /run/sc.err; }
}

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_start
	hog=$(($(avail_mib) - room))
	hold_pages $((hog * 256)) /run/hog.out
	ok "own workload: $hog MiB held; $(avail_mib) MiB left available, the store's limit is $(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 2048)) MiB"
	# The least memory available, the most pages stored.
	(
		lo=$(avail_mib) hi=0
		while sleep 1; do
			a=$(avail_mib)
			read -r s < $b/stored_pages
			[ $a -lt $lo ] && lo=$a
			[ $s -gt $hi ] && hi=$s
			echo "$lo $hi" > /run/samples
		done
	) &
	sampler=$!
	counts() {
		for k in evictions reject_low_memory reject_alloc_fail \
			reject_limit put_failures; do
			printf '%s %s ' $k "$(cat $b/$k)"
		done
	}
	# The sampler reads the backend's files: it ends before the unload.
	before_rmmod() {
		kill $sampler
		wait $sampler
		echo "store: $(counts)" > /run/counts
	}
	serve_finish
	cat /run/counts
	read -r lo hi < /run/samples
	kill -USR1 $hold
	wait $hold || { cat /run/hog.out; fail "the server's own workload was killed or read back wrong"; }
	ok "own workload read back right; at the least $lo MiB available, at the most $hi pages stored"
	! dmesg | grep -E "invoked oom-killer|page allocation failure" ||
		fail "the server ran out of memory"
	[ "$(served err_enomem)" -gt 0 ] ||
		fail "no put was refused for memory: $served_line"
	ev=$(awk '{ for (i = 1; i < NF; i++) if ($i == "evictions") print $(i + 1) }' /run/counts)
	[ "$ev" -gt 0 ] || fail "no ephemeral page was evicted: $(cat /run/counts)"
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_other
	ok "$(served err_enomem) puts refused for memory, $ev ephemeral pages evicted"
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
c() { cat $fe/$1; }
drop() { sync; echo 1 > /proc/sys/vm/drop_caches; }
echo 0 > /proc/sys/vm/page-cluster
swap_on
cc=0
if [ "$me" = "$(first_client)" ]; then
	args="mode=none cleancache=0"
else
	cc=1
	mkdir -p $d
	mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb"
	args="mode=writethrough"
fi
insmod $ko/ramster_frontend.ko target=$srv $args ||
	fail "insmod ramster_frontend target=$srv $args"
fe_pool_ready swap_pools "swap type 0 pool [0-9]" pools_created 1

# Pages swapped in or out, from the disk or the server; no process is
# started (one would wait for memory like the workload).
swapped() {
	sw_v=0
	while read -r k v; do
		case $k in pswpin | pswpout) sw_v=$((sw_v + v)) ;; esac
	done < /proc/vmstat
	read -r l < /sys/kernel/debug/frontswap/loads
	read -r st < /sys/kernel/debug/frontswap/succ_stores
	sw_v=$((sw_v + l + st))
}
stall_watch swapped
# The second client's files go first, so that the server holds
# ephemeral pages when the swapping fills it, and at its reserve each
# put evicts older ones; it tells the first client (busybox httpd on
# the cluster's bridge), which then swaps while it reads them again and
# swaps too.
port=8077
if [ $cc = 1 ]; then
	cc_pool_ready 1
	t0=$(now_ms)
	for f in $(seq 1 $files); do
		fcheck write $d/f$f $f 0 $pages 1 || fail "cannot write $d/f$f"
	done
	drop
	for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
	drop
	[ "$(c cc_puts)" -gt 0 ] || fail "no clean page was put"
	mkdir -p /run/www
	echo ready > /run/www/ready
	httpd -p $port -h /run/www || fail "httpd -p $port"
	SWAPCHECK_STALL_MS=3000 swapcheck pressure $mib 1 > /run/sc.out 2> /run/sc.err &
	sc=$!
	for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
	drop
	ok "files written and read twice, every page checked, in $((($(now_ms) - t0) / 1000)) s;" \
		"$(c cc_puts) pages put, $(c cc_get_hits) came back"
else
	for p in $peers; do [ "$p" = "$srv" ] || other=$p; done
	wait_ready "$other" $port 600
	SWAPCHECK_STALL_MS=3000 swapcheck pressure $mib 1 > /run/sc.out 2> /run/sc.err &
	sc=$!
fi
wait $sc || { cat /run/sc.out /run/sc.err; fail "swapped pages came back wrong"; }
kill $stall_pid
stalls
for k in remote_gets remote_get_failures load_waits wt_load_timeouts \
	wt_quiet_loads wt_quiet_stores window_waits window_full \
	stores_low_memory swap_prefetch_hits put_rtt_us_max get_rtt_us_max; do
	printf '%s %s ' $k "$(c $k)"
done
echo
gap=$(sed -n 's/.*longest_gap_ms=\([0-9]*\).*/\1/p' /run/sc.out)
ok "$(cat /run/sc.out); $(c remote_puts) pages put, $(c remote_put_failures) refused, $(c remote_get_hits) came back; longest gap in swap progress $gap ms"
expect $fe/remote_get_misses -eq 0
expect /sys/kernel/debug/frontswap/failed_loads -eq 0
swapoff /dev/vda || fail "swapoff"
if [ $cc = 1 ]; then
	umount $d || fail "umount $d"
else
	# cleancache keeps its backend: only a frontswap-only one unloads.
	echo 1 > $fe/unregister
	rmmod ramster_frontend || fail "rmmod ramster_frontend"
fi
ramsterctl unconfigure || fail "ramsterctl unconfigure"
ok "swapoff and unmount done"
no_leaks
