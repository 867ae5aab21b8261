# frontend-swap: a client swaps to a memory server through
# ramster_frontend.ko (frontswap, mode writethrough).  The client refuses
# bad parameters with a message, loads the frontend after swapon (so the
# active device is announced to it), waits for its pool on the server,
# runs swapcheck over $mib MiB, 1.5 times its RAM (random reads and
# writes, every page read is checked, and every page again at the end),
# and checks that most pages swapped went to the server and came back
# from it, with no failed or missing load, and most loads of the final
# in-order pass fetched ahead.  Then 48 MiB paged out in order are read
# every third page forwards and backwards (swapcheck stride): the trend
# of the swap-ins (+3, -3) is found and pages are fetched ahead along
# it.  swapoff destroys the pool; the module then unregisters and
# unloads.
#
# Before swapoff, ramsterctl status must show the memory server up and
# the pages sent (remote_puts).
#
# The server loads ramster_backend.ko; ramsterctl status must show each
# client by name with persistent pages here while it swaps.  It then
# waits until the clients have let go of r2net for good, unloads the
# backend and checks its "served:" line and kmemleak.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
mib=${mib:-384}
# At least this much must be swapped out: 1.5 times the RAM swaps each
# page out about once, 3 times some 1.9 times; half is more than what
# does not fit in RAM.
min_out_mib=${min_out_mib:-$((mib / 2))}
fe=/sys/kernel/debug/ramster_frontend
fs=/sys/kernel/debug/frontswap

r2net_up

# status_clients: the clients ramsterctl status shows with persistent
# pages here, as "NAME (node NUM) N", each on the line of its number in
# the node table, named as there.
status_clients() {
	awk -v peers=" $(echo $peers) " '
		/^NODE +NUM +ROLE / { nodes = 1; next }
		nodes && $2 ~ /^[0-9]+$/ { if ($3 == "client") name[$2] = $1; next }
		{ nodes = 0 }
		/^  CLIENT +NUM +EPH_PAGES +PERS_PAGES +POOLS$/ { c = 1; next }
		!/^  / { c = 0 }
		c && index(peers, " " $2 " ") && $1 == name[$2] && $4 > 0 {
			print $1 " (node " $2 ") " $4 }' /run/status.out
}

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_start
	# Each client swaps for minutes: ramsterctl status shows its pages.
	seen= t=0
	while :; do
		ramsterctl status > /run/status.out || fail "ramsterctl status"
		grep -q "^ramster_backend  memory server" /run/status.out ||
			{ cat /run/status.out; fail "ramsterctl status shows no ramster_backend section"; }
		for l in $(status_clients | awk '{ print $1 }'); do
			case " $seen " in *" $l "*) ;; *) seen="$seen $l" ;; esac
		done
		[ $(echo $seen | wc -w) -ge $(echo $peers | wc -w) ] && break
		t=$((t + 2))
		[ $t -le 600 ] || { cat /run/status.out
			fail "ramsterctl status did not show every client ($(echo $peers)) with pages here in 600 s, only:$seen"; }
		sleep 2
	done
	cat /run/status.out
	ok "ramsterctl status showed each client with pages here: $(status_clients | tr '\n' ';')"
	serve_finish
	[ "$(served new_pool)" -ge 1 ] && [ "$(served put)" -ge 1000 ] &&
		[ "$(served get_hits)" -ge 1000 ] &&
		[ "$(served destroy_pool)" -ge 1 ] ||
		fail "too few requests served: $served_line"
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_enodev err_other
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"

# Bad parameters: refused at load, each with a message.
refused() {
	msg=$1
	shift
	insmod $ko/ramster_frontend.ko "$@" 2>/dev/null &&
		fail "ramster_frontend loaded with $*"
	dmesg | grep -q "ramster_frontend: .*$msg" ||
		fail "ramster_frontend refused $* without saying '$msg'"
}
refused "target=-1: give the memory server's node number"
refused "target=99: r2net has no such node" target=99
refused "target=$me is this node" target=$me
refused "mode=bogus: unknown" target=$srv mode=bogus
refused "window=1025: at most 1024" target=$srv window=1025
refused "cc_window=0: give 1..1024" target=$srv cc_window=0
refused "cc_prefetch=999: give 0..256" target=$srv cc_prefetch=999 frontswap=0
refused "swap_prefetch=257: give 0..256" target=$srv swap_prefetch=257
refused "window_wait_ms=0: give 1..600000" target=$srv window_wait_ms=0
refused "wt_load_ms=0: give 1..600000" target=$srv wt_load_ms=0
refused "server_wait_ms=600001: give 0..600000" target=$srv server_wait_ms=600001
refused "cc_index_max=16777217: give 256..16777216 pages" target=$srv cc_index_max=16777217
refused "frontswap=0 and cleancache=0: nothing to do" target=$srv frontswap=0 cleancache=0
refused "frontswap=1 but no swap device is active: swapon one first" target=$srv
ok "no target, an unknown node, this node, a bad mode, bad windows, waits, index bounds and prefetch depths, nothing enabled and frontswap with no swap device are refused"

echo 0 > /proc/sys/vm/page-cluster
swap_on
insmod $ko/ramster_frontend.ko target=$srv cleancache=0 || fail "insmod ramster_frontend target=$srv"
dmesg | grep -q "ramster_frontend: memory server node $srv (.*), mode writethrough, frontswap on" ||
	fail "no boot-log line saying what is in use"
# wait_pool: until swap type 0 has its pool on the server.
wait_pool() {
	t=0
	until grep -q "swap type 0 pool [0-9]" $fe/swap_pools; do
		t=$((t + 1))
		[ $t -le 120 ] || { cat $fe/swap_pools; fail "no pool on node $srv after 120 s"; }
		sleep 1
	done
}
wait_pool
ok "$(cat $fe/swap_pools) on node $srv"

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# Swap-ins: frontswap's loads plus the pages read from the disk.
out=$(vmstat pswpout) in=$(vmstat pswpin) loads=$(cat $fs/loads) t0=$(now_ms)
tx0=$(nstat $srv bytes_tx)
swapcheck pressure $mib 1 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong"; }
tx=$(( $(nstat $srv bytes_tx) - tx0 ))
out=$(( $(vmstat pswpout) - out ))
in=$(( $(vmstat pswpin) - in + $(cat $fs/loads) - loads ))
ok "$(cat /run/sc.out) in $((($(now_ms) - t0) / 1000)) s;" \
	"$out pages written to the swap disk (writethrough), $in swapped in"
for c in remote_puts remote_put_failures remote_gets remote_get_hits \
	remote_get_misses remote_get_failures remote_flushes \
	remote_flush_failures flushes_dropped stores_no_pool stores_low_memory \
	window_waits window_full window_hits window_lost lost_loads swap_prefetches \
	swap_prefetch_hits swap_prefetch_frames cc_prefetch_unused \
	wt_load_timeouts wt_quiet_loads \
	wt_quiet_stores; do
	echo "$c $(cat $fe/$c)"
done
cat $fe/rtt
# ramsterctl status: the memory server up, and what this node sent.
ramsterctl status > /run/status.out || fail "ramsterctl status"
cat /run/status.out
grep -Eq "^[^ ]+ +$srv +memory-server +[0-9.]+:[0-9]+ +up " /run/status.out ||
	fail "ramsterctl status does not show memory server node $srv up"
grep -q "^ramster_frontend  client: target $srv (" /run/status.out ||
	fail "ramsterctl status does not show target $srv"
grep -Eq "^  remote_puts [1-9][0-9]* " /run/status.out ||
	fail "ramsterctl status does not show the pages sent (remote_puts)"
ok "ramsterctl status shows node $srv up and $(grep -o 'remote_puts [0-9]*' /run/status.out)"
# Most pages went to the server and came back from it: all but those the
# disk served alone while the server was slow (wt_load_ms), which may not
# be the most.
puts=$(cat $fe/remote_puts)
back=$(( $(cat $fe/remote_get_hits) + $(cat $fe/window_hits) ))
qs=$(cat $fe/wt_quiet_stores)
ql=$(( $(cat $fe/wt_quiet_loads) + $(cat $fe/wt_load_timeouts) ))
[ $out -ge $((min_out_mib * 256)) ] && [ $in -ge $((mib * 64)) ] ||
	fail "only $out pages swapped out and $in in for $mib MiB"
[ $((qs * 2)) -le $out ] && [ $((ql * 2)) -le $in ] ||
	fail "the disk alone took $qs of $out stores and $ql of $in loads: the server was slow most of the time"
[ $((puts * 10)) -ge $(((out - qs) * 9)) ] ||
	fail "the server took $puts of $out pages swapped out ($qs to the disk alone)"
# A page stored to the disk alone is loaded from it without asking us.
[ $((back * 10)) -ge $(((in - ql - qs) * 9)) ] ||
	fail "$back of $in pages swapped in came from the server ($ql loads and $qs stores to the disk alone)"
ok "$puts of $out pages swapped out went to node $srv; $back of $in swapped in came back from it;" \
	"the disk alone took $qs stores and $ql loads while the server was slow"
expect $fe/remote_put_failures -eq 0
expect $fe/window_lost -eq 0
expect $fe/remote_get_misses -eq 0
expect $fe/remote_get_failures -eq 0
expect $fs/failed_loads -eq 0
# Pages go compressed (swapcheck's pages LZO to about half): every put
# was packed, most as LZO, and what r2net sent per page stored (frames,
# GET requests and flushes included) is well under a page.
z=$(( $(cat $fe/zpages_same) + $(cat $fe/zpages_lzo) + $(cat $fe/zpages_raw) ))
lzo=$(cat $fe/zpages_lzo)
[ $z -ge $puts ] && [ $((lzo * 10)) -ge $((puts * 9)) ] ||
	fail "$puts pages stored, but $z packed, $lzo of them as LZO"
expect $fe/zpage_unpack_errors -eq 0
[ $((tx / puts)) -lt 3072 ] ||
	fail "r2net sent $tx bytes for $puts pages stored: $((tx / puts)) a page"
ok "pages went compressed: $lzo as LZO of $(($(cat $fe/zpage_bytes_out) / lzo)) bytes on average," \
	"$(cat $fe/zpages_same) same-filled, $(cat $fe/zpages_raw) whole;" \
	"r2net sent $((tx / puts)) bytes per page stored"
# The check reads every page in order at the end: most of those loads
# find their page fetched ahead (swap_prefetch).
# They are topped up half the depth at a time, not one by one.
hits=$(cat $fe/swap_prefetch_hits)
pf=$(cat $fe/swap_prefetches) fr=$(cat $fe/swap_prefetch_frames)
[ $((hits * 4)) -ge $in ] ||
	fail "only $hits of $in swap-ins were fetched ahead"
[ $pf -ge $((fr * 2)) ] ||
	fail "$pf GETs sent ahead went in $fr frames: fewer than 2 a frame"
ok "$hits of $in swap-ins found their page fetched ahead ($pf sent ahead, in $fr frames)"

# Strides: 48 MiB paged out in order, then every third page read
# forwards and every third backwards (swap offsets follow the
# addresses), then every page.  Leap's trend finds +3 and -3, and pages
# are fetched ahead along them.
fe_val() { cat $fe/$1; }
# swapcheck pushes the pages out of the swap cache through the root
# cgroup's memory.reclaim.
[ -e /sys/fs/cgroup/memory.reclaim ] ||
	mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2 on /sys/fs/cgroup"
stride_step() {
	pf=$(fe_val swap_prefetches) hits=$(fe_val swap_prefetch_hits)
	strided=$(fe_val swap_prefetch_strided) loads=$(cat $fs/loads)
	stored=$(cat $fs/succ_stores)
	swapcheck stride 48 3 > /run/sc.out 2>&1 || { cat /run/sc.out; fail "pages came back wrong after reads along strides"; }
	pf=$(($(fe_val swap_prefetches) - pf)) hits=$(($(fe_val swap_prefetch_hits) - hits))
	strided=$(($(fe_val swap_prefetch_strided) - strided))
	loads=$(($(cat $fs/loads) - loads))
	stored=$(($(cat $fs/succ_stores) - stored))
	echo "stride step: stored $stored loads $loads prefetches $pf hits $hits strided $strided"
	[ $((strided * 4)) -ge $((48 * 256 / 3)) ] && [ $((hits * 4)) -ge $loads ]
}
# Pages that went to the disk alone (a server quiet for a moment, see
# wt_load_ms) are not the server's to fetch ahead: if most did, once more.
stride_fail() {
	fail "along strides: $hits of $loads loads fetched ahead, $strided of $pf GETs ahead along a stride other than 1 ($stored pages stored)"
}
if ! stride_step; then
	[ $((stored * 4)) -lt $((48 * 256 * 3)) ] || stride_fail
	echo "stride step: only $stored of $((48 * 256)) pages went to the server" \
		"(wt_quiet_stores $(fe_val wt_quiet_stores), stores_low_memory $(fe_val stores_low_memory)): once more"
	stride_step || stride_fail
fi
ok "$(cat /run/sc.out); $hits of $loads loads found their page fetched ahead; of $pf GETs ahead, $strided along a stride other than 1"

# The local tier (local_pool_percent, set at run time): pages are kept
# compressed here first, and the oldest go to the server in batches.  The
# first client runs it while the others run the low-memory step below,
# so that the two steps take the time of one.  local_step=0 skips it
# (frontend-stock).
if [ -z "${local_step:-}" ]; then
	local_step=0
	[ "$(first_client)" = "$RAMSTER_NUMBER" ] && local_step=1
fi
if [ "$local_step" != 0 ]; then
	lpp=/sys/module/ramster_frontend/parameters/local_pool_percent
	echo 51 > $lpp 2>/dev/null && fail "local_pool_percent=51 was taken"
	dmesg | grep -q "ramster_frontend: local_pool_percent=51: give 0..50" ||
		fail "local_pool_percent=51 refused without saying what to give"
	echo 12 > $lpp || fail "local_pool_percent=12"
	for v in local_stores local_loads remotified remotify_batches; do
		eval "${v}0=\$(fe_val $v)"
	done
	d() { echo $(($(fe_val $1) - $(eval echo \$${1}0))); }
	swapcheck pressure $mib 1 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong with the local tier"; }
	echo "local step: stores $(d local_stores) loads $(d local_loads) remotified $(d remotified) in $(d remotify_batches) batches; $(tr '\n' ' ' < $fe/local_pool)"
	[ $(d local_stores) -gt $((mib * 64)) ] && [ $(d local_loads) -gt 0 ] &&
		[ $(d remotified) -gt $((mib * 32)) ] ||
		fail "local tier: $(d local_stores) stores, $(d local_loads) loads, $(d remotified) pages remotified"
	[ $(d remotified) -ge $(($(d remotify_batches) * 8)) ] ||
		fail "remotify sent $(d remotified) pages in $(d remotify_batches) frames: fewer than 8 a frame"
	expect $fe/remotify_refused -eq 0
	expect $fs/failed_loads -eq 0
	ok "local tier: $(cat /run/sc.out); $(d local_stores) pages kept here first, $(d local_loads) loads served here, $(d remotified) sent on in $(d remotify_batches) frames"
	local_tier_hold $srv
	expect $fe/local_pages -eq 0
fi

# Below the min watermarks stores are refused and the disk takes the
# pages: the reserves are for receiving.  A min_free_kbytes of a fifth of
# RAM keeps reclaim there; every page must still come back right.  320
# MiB, a quarter more than the client's RAM, whatever $mib is.  Every
# client but the first (which runs the local tier's step) runs it, or
# the only one; low_step=0 skips the step (frontend-stock: the client's
# side is tested here).
if [ -z "${low_step:-}" ]; then
	low_step=1
	[ "$local_step" != 0 ] &&
		[ "$(grep -c 'role = client' /etc/ramster.conf)" -gt 1 ] && low_step=0
fi
if [ "$low_step" != 0 ]; then
	low=$(cat $fe/stores_low_memory) mfk=$(cat /proc/sys/vm/min_free_kbytes)
	awk '$1 == "MemTotal:" { print int($2 / 5) }' /proc/meminfo > /proc/sys/vm/min_free_kbytes
	swapcheck pressure 320 1 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong with little free memory"; }
	echo $mfk > /proc/sys/vm/min_free_kbytes
	low=$(($(cat $fe/stores_low_memory) - low))
	# Whether free memory dips below min in this run or the first one
	# depends on how fast reclaim runs (a slower host kept it above min
	# here once): the refusals of both runs count.
	[ "$(cat $fe/stores_low_memory)" -gt 0 ] ||
		fail "no store was refused with free memory below the min watermarks"
	expect $fs/failed_loads -eq 0
	ok "with little free memory: $(cat /run/sc.out); $low stores refused below the min watermarks, $(cat $fe/stores_low_memory) in both runs"
fi

# Swap readahead by address (kernel patch 7).  Pages paged out one by
# one in a shuffled order get scattered swap offsets, so no trend of
# offsets finds the next page of a read in address order; the kernel's
# readahead windows name them, and the frontend asks for each window in
# frames of many pages.  Readahead by address wants no rotational swap
# device: swapon anew.
swapoff /dev/vda || fail "swapoff before the readahead step"
rot=$(cat /sys/block/vda/queue/rotational)
echo 0 > /sys/block/vda/queue/rotational
swap_on
wait_pool
for v in swap_ra_windows swap_ra_gets swap_ra_frames swap_prefetch_hits; do
	eval "${v}0=\$(fe_val $v)"
done
loads0=$(cat $fs/loads)
echo 5 > /proc/sys/vm/page-cluster
swapcheck shuffled 32 > /run/sc.out 2>&1 || { cat /run/sc.out; fail "pages came back wrong read ahead by address"; }
echo 0 > /proc/sys/vm/page-cluster
d() { echo $(($(fe_val $1) - $(eval echo \$${1}0))); }
loads=$(($(cat $fs/loads) - loads0))
echo "readahead step: loads $loads windows $(d swap_ra_windows) gets $(d swap_ra_gets) frames $(d swap_ra_frames) hits $(d swap_prefetch_hits)"
[ $((loads * 4)) -ge $((32 * 256 * 3)) ] ||
	fail "only $loads of $((32 * 256)) pages read back came from frontswap"
[ $(($(d swap_ra_gets) * 4)) -ge $((loads * 3)) ] &&
	[ $(($(d swap_prefetch_hits) * 4)) -ge $((loads * 3)) ] ||
	fail "of $loads loads in address order, $(d swap_ra_gets) asked for in readahead windows, $(d swap_prefetch_hits) found fetched ahead"
[ $(d swap_ra_gets) -ge $(($(d swap_ra_frames) * 4)) ] ||
	fail "$(d swap_ra_gets) pages of readahead windows went in $(d swap_ra_frames) frames: fewer than 4 a frame"
expect $fs/failed_loads -eq 0
ok "$(cat /run/sc.out); $(d swap_ra_gets) of $loads loads asked for in $(d swap_ra_windows) readahead windows, in $(d swap_ra_frames) frames; $(d swap_prefetch_hits) found fetched ahead"

swapoff /dev/vda || fail "swapoff"
echo "$rot" > /sys/block/vda/queue/rotational
expect $fe/pools_destroyed -eq 2
expect $fe/remote_in_flight -eq 0
echo 1 > $fe/unregister
expect $fe/unregister -eq 0
rmmod ramster_frontend || fail "rmmod ramster_frontend"
ok "swapoff destroyed the pool; the frontend unregistered and unloaded"
ramsterctl unconfigure || fail "ramsterctl unconfigure"
no_leaks
