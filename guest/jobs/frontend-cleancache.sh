# frontend-cleancache: clean page-cache pages of an ext4 filesystem kept
# on a memory server through ramster_frontend.ko (cleancache only).
#
# Client: with the data disk mounted, the frontend gives it an ephemeral
# pool on the server.  Eight files of 64 MiB, twice the client's RAM, are
# written, read (every page checked), evicted and read again: the second
# read's pages come back from the server (gets hit), every page checked.
# Then, each time after the old pages went to the server: the middle of
# a file is overwritten, a file is truncated and written again, a file is
# deleted and another made in its place, and a file renamed; every read
# after those checks every page, so an old copy coming back is caught.
# Unmounting destroys the pool on the server; mounting again makes a new
# one.
#
# Server: loads the backend; in the big run, once the client truncates
# f2 (the first FLUSH_OBJECT, after the second read), memory pressure
# (drop_caches 2 runs the shrinkers) makes it give ephemeral pages back,
# and the client's later puts still make hits; it waits until the client
# is done, checks its handlers' counts and kmemleak, and that it missed
# no get for a page it did not give up (the client's index asks only for
# pages it put).
#
# Puts come as fast as the client reads and are dropped while every slot
# of the cleancache window waits for the server, so how many pages reach
# it depends on the network; the checks ask that the index answers the
# first read without the server, and that the second read's hits are a
# 32nd of the files' pages at least.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
cc=/sys/kernel/debug/cleancache
d=/mnt/data
files=${files:-8} pages=${pages:-16384}	# 8 x 64 MiB; the small variant sets less
ovf=$((pages / 4)) ovn=$((pages / 32))	# pages overwritten in f1

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_start
	# Memory pressure (the big run only), once the client is past its
	# second read: drop_caches runs every shrinker, the backend's too,
	# which gives back ephemeral pages.
	b=/sys/kernel/debug/ramster_backend
	t=0 hits0=0
	while [ $((files * pages)) -ge 65536 ] &&
		[ "$(awk '$1 == "requests_flush_object" { print $2 }' $b/server)" = 0 ]; do
		t=$((t + 1))
		[ $t -le 3000 ] || fail "no FLUSH_OBJECT from the client after 600 s"
		sleep 0.2
	done
	if [ $((files * pages)) -ge 65536 ]; then
		hits0=$(awk '$1 == "get_hits" { print $2 }' $b/server)
		eph=$(cat $b/eph_pages) ev=$(cat $b/evictions)
		echo 2 > /proc/sys/vm/drop_caches
		[ "$(cat $b/evictions)" -gt $ev ] && [ "$(cat $b/eph_pages)" -lt $eph ] ||
			fail "drop_caches: eph_pages $eph -> $(cat $b/eph_pages), evictions $ev -> $(cat $b/evictions)"
		ok "memory pressure (drop_caches 2): the shrinker evicted $(($(cat $b/evictions) - ev)) of $eph ephemeral pages"
	fi
	serve_finish
	[ "$(served new_pool)" -ge 2 ] &&
		[ "$(served put)" -ge $((files * pages / 8)) ] &&
		[ "$(served get_hits)" -ge $((files * pages / 32)) ] &&
		[ "$(served get_hits)" -gt $hits0 ] &&
		[ "$(served flush_object)" -ge 1 ] &&
		[ "$(served destroy_pool)" -ge 1 ] ||
		fail "too few requests served: $served_line"
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_other
	# With frontswap on, the client may ask once whether its swap pool
	# is still there (a GET of a handle it never puts) when r2net
	# reports the server up just after the pool was made.
	probes=0
	[ "${fe_swap:-0}" = 1 ] && probes=1
	[ "$(served get_misses)" -le $((evicted + $(served err_enomem) + probes)) ] ||
		fail "$(served get_misses) gets missed, but only $evicted pages were evicted, $(served err_enomem) puts refused and $probes pool probes sent"
	ok "every get that missed was for a page evicted ($evicted) or refused, or a pool probe; $(($(served get_hits) - hits0)) hits after the pressure"
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
c() { cat $fe/$1; }
# Page cache only: evicting an inode (drop_caches 2 or 3) flushes its
# object from cleancache, as truncate does.
drop() { sync; echo 1 > /proc/sys/vm/drop_caches; }
counters() {
	for k in cc_puts cc_put_failures cc_puts_dropped cc_gets cc_get_hits \
		cc_get_misses cc_get_index_misses cc_get_failures \
		cc_get_discarded cc_flushes cc_flush_failures cc_pools_stale \
		cc_index_pages cc_prefetches cc_prefetch_hits cc_get_frames \
		cc_prefetch_unused zpages_same zpages_lzo zpages_raw \
		zpages_kept_back zpage_bytes_out zpage_bytes_in \
		zpage_unpack_errors; do
		echo "$k $(c $k)"
	done
	echo "kernel: $(for k in succ_gets failed_gets puts invalidates inode_invalidates; do
		printf '%s %s ' $k $(cat $cc/$k); done)"
}
mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb"
# fe_swap=1 (the small variant): frontswap too, with the local tier.  No
# swap GET is sent ahead, so the server's check (a get misses only a page
# it gave up) holds for swap pages too.
fargs="frontswap=0" fs_on=off
if [ "${fe_swap:-0}" = 1 ]; then
	swap_on
	mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2 on /sys/fs/cgroup"
	fargs="frontswap=1 local_pool_percent=10 swap_prefetch=0" fs_on=on
fi
insmod $ko/ramster_frontend.ko target=$srv $fargs ||
	fail "insmod ramster_frontend target=$srv $fargs"
dmesg | grep -q "ramster_frontend: .*frontswap $fs_on, window 32, cleancache on, prefetch 32" ||
	fail "no boot-log line saying cleancache is on"
cc_pool_ready 1
ok "$(cat $fe/cleancache_pools) on node $srv (the filesystem was mounted first)"

t0=$(now_ms)
for f in $(seq 1 $files); do
	fcheck write $d/f$f $f 0 $pages 1 || fail "cannot write $d/f$f"
done
drop
ok "wrote $files files of $((pages / 256)) MiB in $((($(now_ms) - t0) / 1000)) s"

t0=$(now_ms) im=$(c cc_get_index_misses)
for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
im=$(($(c cc_get_index_misses) - im))
drop
ok "first read, every page checked, in $((($(now_ms) - t0) / 1000)) s; $(c cc_puts) pages put; $im gets answered by the index"
# The server never took most of them: the index says so, with no round trip.
[ $im -ge $((files * pages / 2)) ] ||
	fail "only $im of the first read's $((files * pages)) gets were answered by the index"
hits=$(c cc_get_hits) sent=$(c cc_gets) ph=$(c cc_prefetch_hits) t0=$(now_ms)
fr=$(c cc_get_frames)
for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
hits=$(($(c cc_get_hits) - hits)) sent=$(($(c cc_gets) - sent))
ph=$(($(c cc_prefetch_hits) - ph)) fr=$(($(c cc_get_frames) - fr))
ok "second read, every page checked, in $((($(now_ms) - t0) / 1000)) s; $hits pages came from node $srv, of $sent asked for in $fr frames; $ph of them fetched ahead"
counters
[ $hits -ge $((files * pages / 32)) ] ||
	fail "only $hits of $((files * pages)) pages came back from the server, of $sent asked for"
# A file read in order: most pages were asked for before the reader came.
[ $ph -ge $((hits / 2)) ] ||
	fail "only $ph of the $hits pages that came back were fetched ahead"
# Topped up half a window at a time: several GETs to a frame, not one.
[ $sent -ge $((fr * 4)) ] ||
	fail "$sent GETs went in $fr frames: fewer than 4 a frame"

# Coherence.  Each time: read (the pages may be on the server after the
# drop), change the file, drop, read back every page.
cc_verify f1 1 $pages 1; drop
fcheck write $d/f1 1 $ovf $ovn 2 || fail "overwrite f1"
drop
cc_verify f1 1 $pages 1 $ovf $ovn 2
cc_verify f1 1 $pages 1 $ovf $ovn 2
ok "overwritten pages $ovf..$((ovf + ovn - 1)) of f1 read back new, the rest old"

cc_verify f2 2 $pages 1; drop
truncate -s $((100 * 4096)) $d/f2 || fail "truncate f2"
drop
cc_verify f2 2 100 1
fcheck write $d/f2 2 100 $((pages - 100)) 3 || fail "extend f2"
drop
cc_verify f2 2 $pages 1 100 $((pages - 100)) 3
ok "f2 truncated to 100 pages and written again reads back new"

cc_verify f3 3 $pages 1; drop
rm $d/f3
fcheck write $d/f3 33 0 $pages 1 || fail "write a new f3"
drop
cc_verify f3 33 $pages 1
ok "f3 deleted and made again (an inode number may come back) reads back new"

# Pages fetched ahead and not read yet, then written over: the reader
# stops half way, so the next pages wait on the client, fetched ahead.
# Whether any are left unread depends on how far readahead went and on
# which puts found a free slot, so a file that left none is tried again
# with another (at most three); every try checks every page.
try=0 un=0 ph=0
while [ $try -lt 3 ] && { [ $ph -lt 1 ] || [ $un -lt 1 ]; }; do
	try=$((try + 1)) h=half$try
	fcheck write $d/$h 5 0 256 1 || fail "write $h"
	drop; cc_verify $h 5 256 1
	sleep 2		# earlier evictions' puts leave the window
	drop
	un=$(c cc_prefetch_unused) ph=$(c cc_prefetch_hits)
	dd if=$d/$h of=/dev/null bs=4096 count=128 2>/dev/null || fail "read $h"
	fcheck write $d/$h 5 128 128 2 || fail "overwrite $h"
	drop
	cc_verify $h 5 256 1 128 128 2
	un=$(($(c cc_prefetch_unused) - un)) ph=$(($(c cc_prefetch_hits) - ph))
	ok "$h read half way ($ph pages fetched ahead and read), written over and read back new; $un pages fetched ahead were dropped unread"
done
[ $ph -ge 1 ] && [ $un -ge 1 ] ||
	fail "file read half way, $try tries: no page was fetched ahead ($ph read, $un dropped unread): nothing tested"

cc_verify f4 4 $pages 1; drop
mv $d/f4 $d/f4.renamed
drop
cc_verify f4.renamed 4 $pages 1
ok "f4 renamed reads back right"

drop
cc_verify f1 1 $pages 1 $ovf $ovn 2
cc_verify f2 2 $pages 1 100 $((pages - 100)) 3
cc_verify f3 33 $pages 1
cc_verify f4.renamed 4 $pages 1
ok "every changed file, every page right at the end"
expect $fe/cc_get_discarded -eq 0
expect $fe/cc_flush_failures -eq 0
expect $fe/cc_flushes -ge 1

r2=/sys/kernel/debug/r2net/nodes/$srv
r2v() { awk -v k="$1" '$1 == k { print $2 }' $r2; }
# settle: until no request waits for the server (their answers are in).
settle() {
	t=0
	until [ "$(r2v in_flight)" = 0 ]; do
		t=$((t + 1))
		[ $t -le 600 ] || fail "$(r2v in_flight) requests still in flight after 60 s"
		sleep 0.1
	done
}

# Random pages do not compress: an ephemeral pool would refuse them, so
# they are not even sent (zpages_kept_back), and the index forgets them:
# a second read asks the server for (almost) none.
rp=${rp:-2048}
dd if=/dev/urandom of=$d/random bs=4096 count=$rp 2>/dev/null || fail "write $d/random"
sha=$(sha256sum < $d/random)
drop; cat $d/random > /dev/null
pf=$(c cc_put_failures) cp=$(c cc_puts) kb=$(c zpages_kept_back)
drop
settle
pf=$(($(c cc_put_failures) - pf)) cp=$(($(c cc_puts) - cp))
kb=$(($(c zpages_kept_back) - kb))
g0=$(c cc_gets)
[ "$(sha256sum < $d/random)" = "$sha" ] || fail "random data read back wrong"
g0=$(($(c cc_gets) - g0))
[ $pf -ge 1 ] && [ $kb -ge 1 ] && [ $g0 -le $((rp / 32)) ] ||
	fail "random data: $pf puts failed ($kb not sent: incompressible), $cp taken; the second read sent $g0 gets for its $rp pages"
ok "random data: $pf puts failed ($kb not sent: incompressible), $cp taken; the second read sent $g0 gets for its $rp pages"

# A link slower than timeout_ms while pages are evicted (netem holds
# what the client sends for 2 s; requests time out after 1 s): puts
# time out while their frames still wait in r2net's queue, and their
# slots take the next file's pages.  A timed-out request's frame must
# never leave carrying those: every page read back is checked.  The
# files are written and dropped first (a page never read from the disk
# is flushed, not put, when it leaves), then each is read from the disk
# and dropped, one a second.
to=/sys/module/ramster_frontend/parameters/timeout_ms
echo 600001 > $to 2>/dev/null && fail "timeout_ms took 600001"
slow=${slow:-6} sp=${sp:-1024}
for i in $(seq 1 $slow); do
	fcheck write $d/slow$i $((40 + i)) 0 $sp 1 || fail "write slow$i"
done
drop
settle
pf=$(c cc_put_failures) rt=$(r2v timeouts) st=$(c cc_pools_stale)
echo 1000 > $to || fail "timeout_ms 1000"
/sbin/tc qdisc add dev eth0 root netem delay 2000ms || fail "tc qdisc add dev eth0 root netem delay 2000ms"
for i in $(seq 1 $slow); do
	cat $d/slow$i > /dev/null || fail "read slow$i"
	drop
	sleep 1
done
/sbin/tc qdisc del dev eth0 root || fail "tc qdisc del dev eth0 root"
echo 10000 > $to || fail "timeout_ms 10000"
pf=$(($(c cc_put_failures) - pf)) rt=$(($(r2v timeouts) - rt))
counters
[ $pf -ge 1 ] && [ $rt -ge 1 ] && [ "$(c cc_pools_stale)" = "$st" ] ||
	fail "the slow link timed out $rt requests and failed $pf puts, pools stale $st -> $(c cc_pools_stale): nothing tested"
settle		# what was written reached the server
drop
h0=$(c cc_get_hits)
for i in $(seq 1 $slow); do cc_verify slow$i $((40 + i)) $sp 1; done
counters
# Unprivileged processes load shared libraries (tc) and read files.
su nobody -c "/sbin/tc qdisc show dev eth0" > /run/tc.out 2>&1 ||
	fail "tc as nobody: $(cat /run/tc.out)"
su nobody -c "fcheck verify $d/slow1 41 $sp 1" ||
	fail "slow1 read back wrong as nobody"
ok "as nobody: tc runs ($(head -n 1 /run/tc.out)), slow1 reads back right"
ok "a link slower than timeout_ms: $rt requests timed out, $pf puts failed; $slow files of $sp pages read back right ($(($(c cc_get_hits) - h0)) pages from the server)"

# Every page went and came back compressed, and none failed to unpack.
expect $fe/zpage_unpack_errors -eq 0
lzo=$(c zpages_lzo)
[ "$lzo" -ge 1 ] && [ "$(c zpage_bytes_in)" -ge 1 ] ||
	fail "no page went as LZO ($lzo) or came back compressed ($(c zpage_bytes_in) bytes)"
ok "pages went compressed: $lzo as LZO of $(($(c zpage_bytes_out) / lzo)) bytes on average, $(c zpages_same) same-filled, $(c zpages_raw) whole, $(c zpages_kept_back) not sent"

if [ $fs_on = on ]; then
	# No swapoff: on the debug kernel it takes a minute and more to read
	# back the other processes' pages the reclaim pushed out.
	local_tier_hold $srv 400
	for k in remote_puts remote_gets remote_get_hits remote_get_misses \
		remote_get_failures lost_loads local_stores local_loads \
		remotified; do
		echo "$k $(c $k)"
	done
	expect $fe/local_pages -eq 0
fi

# The index is bounded: with cc_index_max at a quarter of a file's pages,
# a file read twice leaves at most that many, the oldest taken out, and
# reads back right.
cim=/sys/module/ramster_frontend/parameters/cc_index_max
echo 255 > $cim 2>/dev/null && fail "cc_index_max took 255"
bp=$((pages / 2)) bmax=$((pages / 8))
[ $bmax -ge 256 ] || bmax=256
echo $bmax > $cim || fail "cc_index_max=$bmax"
fcheck write $d/bound 91 0 $bp 1 || fail "cannot write $d/bound"
drop
cc_verify bound 91 $bp 1
drop
h0=$(c cc_get_hits)
cc_verify bound 91 $bp 1
[ "$(c cc_index_pages)" -le $bmax ] && [ "$(c cc_index_trimmed)" -gt 0 ] ||
	fail "cc_index_pages $(c cc_index_pages), trimmed $(c cc_index_trimmed): want at most $bmax"
ok "cc_index_max $bmax: a file of $bp pages read twice leaves $(c cc_index_pages) in the index" \
	"($(c cc_index_trimmed) taken out), $(($(c cc_get_hits) - h0)) hits, every page right"
echo 262144 > $cim || fail "cc_index_max=262144"
# Evicted once more, its pages are in the index for the unmount to forget.
drop
settle
ip=$(c cc_index_pages)

umount $d || fail "umount"
expect $fe/cc_pools_destroyed -eq 1
# Booted on the TSC (tsc=reliable), the clock counts microseconds.
irq_us=$(c cc_index_destroy_max_us)
if grep -q 'tsc=reliable' /proc/cmdline; then
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
	[ "$cs" = tsc ] || fail "the clock is $cs, not tsc: no microseconds to measure with"
	[ "$irq_us" -gt 0 ] || fail "cc_index_destroy_max_us is 0 on the TSC clock"
fi
ok "forgetting a file's or the pool's pages kept interrupts off for $irq_us us at most" \
	"($ip pages in the index before the unmount)"

mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb again"
cc_pool_ready 2
cc_verify f4.renamed 4 $pages 1
umount $d || fail "umount"
expect $fe/cc_pools_destroyed -eq 2
ok "unmount destroys the pool, mount makes a new one"
# cleancache keeps its backend: the module stays.  Let the server go.
ramsterctl unconfigure || fail "ramsterctl unconfigure"
