# bench-swap: one swapping workload under several configurations, one
# after another in the same boot; bench/swap.sh runs it and tables the
# lines.  ramster.bench=CONFIGS,MIB,ROUNDS on the kernel command line:
# CONFIGS joined by '+', each one of
#   ram   no swap at all (the bench boots a VM large enough for MIB)
#   disk  swap to the virtio disk /dev/vda
#   wt    ramster_frontend mode=writethrough (window 32)
#   wtraw wt with compress=0: whole 4 KiB pages each way
#   wt0   the same with window=0: every store waits for the server
#   wtpf0 wt with swap_prefetch=0: each load waits for its page alone
#   none  mode=none: the server holds the only copy
#   wtlocal, nonelocal  wt and none with local_pool_percent=20: pages
#         kept compressed in the client first, the oldest sent on in
#         batches (the local tier)
#   wtlocal32  wtlocal with swap_prefetch=32 (16 by default)
#   wtlocalra  wtlocal with the kernel's swap readahead by virtual
#         address (page-cluster 5: windows of up to 32 pages, the swap
#         device marked non-rotational), each window asked for at once
#         (kernel patch 7)
#   diskra  disk with the kernel's own readahead (page-cluster 3)
#   nvme  swap to an NVMe/TCP namespace the memory server exports from
#         its RAM (nvmet-tcp, a file in tmpfs), over the same virtio-net
#   zram  swap to /dev/zram0 (LZO, twice MIB big) in this guest's RAM
#   zswap zswap (LZO, zbud, 20% of RAM) in front of /dev/vda; last,
#         as zswap keeps the frontswap slot once it has it
#   scan  no swap: files of twice the RAM on /dev/vdb read twice
#   scan-cc  the same with the frontend's cleancache (after every
#         RAMster swap configuration: cleancache keeps the frontend loaded)
# For each, the client runs "swapcheck timed MIB ROUNDS" (every page
# checked on every read) and reports "BENCH config=C name=value..." with
# the phases' times, swap-in latencies, pages swapped out and in, the
# frontend's counters, and for zram and zswap the peaks of their store
# in this guest; then swapoff, and the backend is undone.  When zram runs
# out of room the OOM killer ends swapcheck: that is reported (oom=1);
# any other failure fails the job.
#
# For each, also what crossed the client's network interface and the CPU
# time both guests were busy (the server's /proc/stat, read through nc),
# to be divided by the pages moved.
#
# After them, r2net's echo of nothing and of a page to the server, the
# network's share of a get ("BENCH probe=r2net"), and the network's limit
# between the same two guests: plain TCP's 4 KiB round trip and 64 KiB
# echoes with 16 in flight (tcpping; "BENCH probe=tcp").
#
# With perf in the image (bench/swap.sh's BENCH_PROFILE=1), the client
# samples its CPU while each workload runs and reports where the time
# went, by object and by symbol ("BENCH-PROF config=C by=dso|sym ...").
#
# The memory server serves, and after each pool of the client is gone
# (stored_pages back to 0) reports "BENCH server=N" with the most pages,
# compressed bytes and page frames it held meanwhile, and the share of
# its CPU's time busy since it held the first.  The client reports its
# own for each workload (cpu_busy_pct, cpu_iowait_pct).
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
tport=7778 sport=7779 nqn=nqn.2026-12.org.ramster:bench
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
	ram|disk|diskra|wt|wtraw|wt0|wtpf0|none|wtlocal|wtlocal32|wtlocalra|nonelocal|nvme|zram|zswap|scan|scan-cc) ;;
	*) fail "ramster.bench: unknown configuration '$c' (ram disk diskra wt wtraw wt0 wtpf0 none wtlocal wtlocal32 wtlocalra nonelocal nvme zram zswap scan scan-cc)" ;;
	esac
done
case "$configs " in
*"zswap "?*) fail "ramster.bench: zswap must come last: it keeps the frontswap slot" ;;
*"scan-cc "*" wt "*|*"scan-cc "*" wtraw "*|*"scan-cc "*" wt0 "*|*"scan-cc "*" wtpf0 "*|*"scan-cc "*" none "*|*"scan-cc "*" wtlocal "*|*"scan-cc "*" wtlocal32 "*|*"scan-cc "*" wtlocalra "*|*"scan-cc "*" nonelocal "*)
	fail "ramster.bench: scan-cc must come after wt, wtraw, wt0, wtpf0, none, wtlocal, wtlocal32, wtlocalra and nonelocal: cleancache keeps the frontend loaded" ;;
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

# node_ip NUM: node NUM's address in /etc/ramster.conf.
node_ip() {
	awk -v n="$1" '/^node:/ { num = ""; ip = ""; next }
		$1 == "number" { num = $3 } $1 == "ip_address" { ip = $3 }
		num == n && ip != "" { print ip; exit }' /etc/ramster.conf
}

# nvme_export ADDR: a namespace of 1 GiB, a sparse file in tmpfs, served
# by nvmet-tcp on ADDR:4420 to any host.
nvme_export() {
	n=/sys/kernel/config/nvmet
	[ -d $n ] || fail "no $n: the kernel has no NVMe target"
	mkdir -p /nvme && mount -t tmpfs -o size=1088m tmpfs /nvme &&
		truncate -s 1024M /nvme/ns1 || fail "nvme: no file in tmpfs"
	mkdir $n/subsystems/$nqn $n/subsystems/$nqn/namespaces/1 \
		$n/ports/1 || fail "nvme: cannot make the subsystem"
	echo 1 > $n/subsystems/$nqn/attr_allow_any_host
	# tmpfs has no O_DIRECT in 6.1: the namespace uses the page cache.
	echo 1 > $n/subsystems/$nqn/namespaces/1/buffered_io
	echo -n /nvme/ns1 > $n/subsystems/$nqn/namespaces/1/device_path &&
		echo 1 > $n/subsystems/$nqn/namespaces/1/enable ||
		fail "nvme: the namespace would not enable"
	echo ipv4 > $n/ports/1/addr_adrfam
	echo tcp > $n/ports/1/addr_trtype
	echo "$1" > $n/ports/1/addr_traddr
	echo 4420 > $n/ports/1/addr_trsvcid
	ln -s $n/subsystems/$nqn $n/ports/1/subsystems/$nqn ||
		fail "nvme: cannot open port 4420 on $1"
	ok "nvme: $nqn served on $1:4420 from a 1 GiB file in tmpfs"
}

# nvme_pages: pages the namespace's file holds (the client discards the
# namespace after its swapoff).
nvme_pages() {
	[ -e /nvme/ns1 ] && echo $(( $(stat -c %b /nvme/ns1) / 8 )) || echo 0
}

# watch_store: report the store's peak (and the NVMe namespace's), and
# how busy this guest was, each time it empties again.
watch_store() {
	n=0 pp=0 pb=0 pf=0
	while :; do
		v=$(nvme_pages)
		p=$(($(cat $be/stored_pages) + v)) b=$(cat $be/compressed_bytes)
		f=$(($(cat $be/pool_pages) + v))
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
	ip=$(node_ip "$RAMSTER_NUMBER")
	[ -n "$ip" ] || fail "no address for node $RAMSTER_NUMBER in /etc/ramster.conf"
	# The network's limit, and this node's CPU time, for the client.
	tcpping server -q "$ip:$tport" &
	printf '#!/bin/sh\ncat /proc/stat\n' > /run/stat
	chmod +x /run/stat
	nc -ll -p $sport -e /run/stat &
	case " $configs " in
	*" nvme "*) nvme_export "$ip" ;;
	esac
	# One client: it may have the whole store, not a share of it.
	serve_start client_share_percent=100
	watch_store &
	w=$!
	serve_finish
	kill $w
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_other
	exit 0
fi

# With a memory server: its number and address.
srv= sip=
case " $configs " in
*" wt "*|*" wtraw "*|*" wt0 "*|*" wtpf0 "*|*" none "*|*" wtlocal "*|*" wtlocal32 "*|*" wtlocalra "*|*" nonelocal "*|*" nvme "*|*" scan-cc "*)
	r2net_up
	srv=$(memory_server)
	[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
	sip=$(node_ip "$srv") ;;
esac
# srv_ticks: the memory server's busy jiffies (through nc, see above),
# or 0 with none.
srv_ticks() {
	[ -n "$sip" ] || { echo 0; return; }
	nc -w 10 "$sip" $sport < /dev/null |
		awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; f = 1 }
			END { if (!f) print 0 }'
}
# wire: bytes through the client's eth0, both ways.
wire() {
	echo $(( $(cat /sys/class/net/eth0/statistics/tx_bytes) +
		$(cat /sys/class/net/eth0/statistics/rx_bytes) ))
}
t=0
until [ -z "$sip" ] || [ "$(srv_ticks)" != 0 ]; do
	t=$((t + 1))
	[ $t -le 60 ] || fail "no /proc/stat from $sip:$sport after 60 s"
	sleep 1
done
# No swap readahead but where a configuration asks for it (setup).
echo 0 > /proc/sys/vm/page-cluster
rot=$(cat /sys/block/vda/queue/rotational)
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
	diskra) echo 3 > /proc/sys/vm/page-cluster ;;
	wt) args="mode=writethrough" ;;
	wtraw) args="mode=writethrough compress=0" ;;
	wt0) args="mode=writethrough window=0" ;;
	wtpf0) args="mode=writethrough swap_prefetch=0" ;;
	none) args="mode=none" ;;
	wtlocal) args="mode=writethrough local_pool_percent=20" ;;
	wtlocal32) args="mode=writethrough local_pool_percent=20 swap_prefetch=32" ;;
	wtlocalra)
		args="mode=writethrough local_pool_percent=20"
		# By virtual address only with no rotational swap device.
		echo 0 > /sys/block/vda/queue/rotational
		echo 5 > /proc/sys/vm/page-cluster ;;
	nonelocal) args="mode=none local_pool_percent=20" ;;
	zram)
		dev=/dev/zram0
		echo lzo > /sys/block/zram0/comp_algorithm || fail "zram: no lzo"
		echo "$((mib * 2))M" > /sys/block/zram0/disksize || fail "zram: disksize"
		mkswap $dev >/dev/null && swapon $dev || fail "swapon $dev"
		peaks zram_now &
		sampler=$!
		return ;;
	nvme)
		echo "transport=tcp,traddr=$sip,trsvcid=4420,nqn=$nqn" > /dev/nvme-fabrics ||
			fail "nvme: cannot connect to $sip:4420"
		t=0
		until [ -b /dev/nvme0n1 ]; do
			t=$((t + 1))
			[ $t -le 30 ] || fail "nvme: no /dev/nvme0n1 after 30 s"
			sleep 1
		done
		dev=/dev/nvme0n1
		mkswap $dev >/dev/null && swapon $dev || fail "swapon $dev"
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
	echo 0 > /proc/sys/vm/page-cluster
	echo "$rot" > /sys/block/vda/queue/rotational
	case $1 in
	zram) echo 1 > /sys/block/zram0/reset ;;
	zswap) echo 0 > /sys/module/zswap/parameters/enabled ;;
	nvme)
		# The server's file gives its pages back, so its peak ends.
		blkdiscard $dev || fail "blkdiscard $dev"
		echo 1 > /sys/class/nvme/nvme0/delete_controller ||
			fail "nvme: cannot disconnect"
		sleep 3 ;;
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
		"cc_hits2=$(($(c cc_get_hits) - hits1)) cc_puts_dropped=$(c cc_puts_dropped)" \
		"cc_gets=$(c cc_gets) cc_get_frames=$(c cc_get_frames)"
	rm -f $d/f*
	umount $d || fail "umount $d"
	ok "$1: $nf files of 64 MiB read twice, every page checked"
}

# prof_start, prof_end CONFIG: perf samples every CPU in between.
perf_pid=
prof_start() {
	command -v perf >/dev/null || return 0
	perf record -a -F 199 -N -q -o /run/perf.data > /run/perf.log 2>&1 &
	perf_pid=$!
}
prof_end() {
	[ -n "$perf_pid" ] || return 0
	kill -INT $perf_pid
	wait $perf_pid || :
	perf_pid=
	perf report -i /run/perf.data --stdio --no-children --sort dso -q \
		--percent-limit 1 2>/dev/null | head -n 8 |
		awk -v c=$1 'NF >= 2 { print "config=" c " by=dso " $1 " " $2 }' > /run/prof.out
	perf report -i /run/perf.data --stdio --no-children --sort dso,sym -q \
		--percent-limit 1 2>/dev/null | head -n 20 |
		awk -v c=$1 'NF >= 4 { print "config=" c " by=sym " $1 " " $4 " (" $2 ")" }' >> /run/prof.out
	[ -s /run/prof.out ] || { cat /run/perf.log; fail "$1: perf recorded nothing"; }
	while read -r l; do
		result "BENCH-PROF $l"
	done < /run/prof.out
	rm -f /run/perf.data /run/prof.out
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
	oom=0 rc=0 t0=$(cpu_ticks) w0=$(wire) s0=$(srv_ticks)
	# The host measures its own CPU time from here to the BENCH line.
	result "BENCH-MARK config=$cfg"
	prof_start
	swapcheck timed $mib $rounds > /run/sc.out 2>&1 || rc=$?
	cpu=$(cpu_pct "" "$t0")
	set -- $t0
	cpu="$cpu wire_bytes=$(($(wire) - w0)) srv_busy_ticks=$(($(srv_ticks) - s0))"
	cpu="$cpu busy_ticks=$(($(cpu_ticks | cut -d' ' -f1) - $1))"
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
		swap_prefetch_hits swap_prefetch_frames swap_ra_windows \
		swap_ra_gets swap_ra_frames stores_low_memory local_stores local_loads \
		remotified remotify_batches; do
		line="$line $k=$(c $k)"
	done
	line="$line $(awk '{ printf "%s_rtt_avg_us=%s ", $1, $5 }' $fe/rtt 2>/dev/null)"
	[ -r /run/peak ] && line="$line $(cat /run/peak)"
	[ $cfg = zswap ] && line="$line written_back=$(cat /sys/kernel/debug/zswap/written_back_pages)"
	result "BENCH $line"
	prof_end $cfg
	teardown $cfg
	if [ $oom = 1 ]; then
		ok "$cfg: ran out of memory: the OOM killer ended swapcheck"
	else
		ok "$cfg: $(head -n 1 /run/sc.out)"
	fi
done
[ -n "$srv" ] || exit 0
# Where a get's time goes: the same path with no tmem work, r2net's echo
# of nothing and of a page to the memory server and back (r2echo.ko).
echo_ok sync "$srv" 0 1000
e0=$(val lat_p50_us)
echo_ok page "$srv" 1000
result "BENCH probe=r2net echo0_p50_us=$e0 echo_page_p50_us=$(val lat_p50_us)" \
	"echo_page_p99_us=$(val lat_p99_us)"
# The network's limit between the same two guests: plain TCP.
tcpping client -T 30000 -l 4096 -n 1000 -w 0 "$sip:$tport" > /run/tcp.out 2>&1 ||
	fail "tcpping 4 KiB round trips: $(tail -n 2 /run/tcp.out)"
rtt=$(awk '$1 == "sync_lat_p50_us" { print $2 }' /run/tcp.out)
tcpping client -T 30000 -n 0 -s 65536 -w 16 -m 2000 "$sip:$tport" > /run/tcp.out 2>&1 ||
	fail "tcpping 64 KiB echoes: $(tail -n 2 /run/tcp.out)"
mps=$(awk '$1 == "tput_msgs_per_s" { print $2 }' /run/tcp.out)
result "BENCH probe=tcp rtt4k_p50_us=$rtt echo64k_w16_msgs_per_s=$mps"
ok "the network: 4 KiB round trip $rtt us p50; 64 KiB echoes, 16 in flight: $mps a second"
ramsterctl unconfigure || fail "ramsterctl unconfigure"
