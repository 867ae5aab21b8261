# frontend-loss: the memory server is destroyed under a client that swaps
# to it, and started again; tests/guest/61-frontend-server-loss.sh
# destroys and starts it when the client reports each step.
#
# Client, mode writethrough: swapcheck runs over 512 MiB through 256 MiB
# of RAM; once the server holds 20 000 of its pages ("phase A running")
# the server is destroyed.  The workload completes with every page
# correct: what the server had comes from the swap disk, and swapping
# never stands still for 2 s (a load waits at most wt_load_ms).  The
# server is started again ("phase A done"): the client reconnects, makes
# a new pool and its stores go to the server again.
#
# Client, mode none, cleancache on: a process's pages on the server only
# survive the link cut for 12 s ("phase B cut", by the host): its loads
# wait for the server.  A process's 2000 pages go to the
# server only, and another's, with the local tier on, stay in it ("phase
# B holding"); the server is destroyed; the first process touches its
# pages and dies of SIGBUS, and nothing else does: the second reads every
# page back right.  With the server gone a new workload's stores are
# refused and go to the disk, every page correct ("phase B refused"); the
# server is started again and stores resume.  It is destroyed and started
# once more ("phase C idle", "phase C down"), and stores resume again.
#
# Both phases swap to two devices, the swap disk and a swap file on the
# data disk, whose filesystem also has a cleancache pool in phase B.
# After each restart each of them has a pool of its own on the server:
# the ids differ (the server tags them, so an id kept from before the
# restart names no pool rather than whichever pool has its slot), and
# the files read back right.
#
# The server (each boot) loads the backend and waits until the client has
# let go of r2net for good; only its last boot gives a verdict.
idle_ms=10000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
fs=/sys/kernel/debug/frontswap

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_clients
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
c() { cat $fe/$1; }

# pool_ready N: until both swap types have a pool, pools_created >= N,
# and, with cleancache on, the filesystem has a pool that is not stale;
# then no two of them share an id.
pool_ready() {
	fe_pool_ready swap_pools "swap type 0 pool [0-9]" pools_created "$1"
	fe_pool_ready swap_pools "swap type 1 pool [0-9]" pools_created "$1"
	[ "$cleancache" = 0 ] || {
		fe_pool_ready cleancache_pools "server pool [0-9]* private$" cc_pools_created 1
	}
	ids=$(awk '/^swap type/ { print $5 } /server pool/ { print $6 }' \
		$fe/swap_pools $fe/cleancache_pools 2>/dev/null)
	n=$((2 + (cleancache != 0)))
	[ $(echo "$ids" | sort -u | wc -l) = $n ] && [ $(echo "$ids" | wc -l) = $n ] ||
		{ cat $fe/swap_pools $fe/cleancache_pools; fail "pool ids $(echo $ids): want $n different ones"; }
	what="each swap type"
	[ "$cleancache" = 0 ] || what="$what and the filesystem"
	ok "pools $(echo $ids) on node $srv, one for $what"
}

# Two swap devices: the swap file (type 0) fills first, then the disk.
swap_two() {
	mkswap /dev/vda >/dev/null || fail "mkswap /dev/vda"
	swapon $d/swapfile || fail "swapon $d/swapfile"
	swapon /dev/vda || fail "swapon /dev/vda"
}

# resumed WHAT: a workload after the server came back; stores reach it.
resumed() {
	wait_state $srv up 300
	puts=$(c remote_puts)
	# Two generations of 4000 pages: 8000 stores.
	swapcheck pageout 4000 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong $1"; }
	[ "$(c remote_puts)" -ge $((puts + 7200)) ] ||
		fail "only $(($(c remote_puts) - puts)) of 8000 stores went to node $srv $1"
	ok "node $srv is back: $(($(c remote_puts) - puts)) of 8000 stores went to it $1, every page correct"
}

unload() {
	swapoff /dev/vda || fail "swapoff /dev/vda"
	swapoff $d/swapfile || fail "swapoff $d/swapfile"
	echo 1 > $fe/unregister
	expect $fe/unregister -eq 0
	rmmod ramster_frontend || fail "rmmod ramster_frontend"
}

# files_check WHEN: the files written in phase B read back right, twice;
# the second read gets pages from the server (the first one's evicted).
files_check() {
	h=$(c cc_get_hits)
	for pass in 1 2; do
		sync
		echo 1 > /proc/sys/vm/drop_caches
		for f in 1 2; do cc_verify f$f $f 2048 1; done
	done
	h=$(($(c cc_get_hits) - h))
	[ $h -gt 0 ] || fail "the files read back $1 without a cleancache hit"
	ok "the files read back right $1, twice; $h cleancache hits"
}

echo 0 > /proc/sys/vm/page-cluster
# swapcheck hold pushes its pages out of the swap cache through cgroup2.
mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2 on /sys/fs/cgroup"
d=/mnt
mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb"
dd if=/dev/zero of=$d/swapfile bs=1M count=24 2>/dev/null || fail "cannot write $d/swapfile"
chmod 600 $d/swapfile
mkswap $d/swapfile >/dev/null || fail "mkswap $d/swapfile"

# Phase A: writethrough.
swap_two
cleancache=0
insmod $ko/ramster_frontend.ko target=$srv cleancache=0 || fail "insmod ramster_frontend target=$srv"
pool_ready 2
swapcheck_until 20000 300
ok "phase A running: node $srv holds $(c remote_puts) pages"
wait_state $srv down 120
ok "node $srv is down; the workload goes on"
wait $sc || { cat /run/sc.out; fail "pages came back wrong after the server went"; }
from_disk=$(( $(c remote_get_failures) + $(c lost_loads) + $(c wt_quiet_loads) ))
[ $from_disk -gt 0 ] || fail "no load fell back to the disk"
ok "$(cat /run/sc.out); $from_disk loads came from the disk instead"
# Writethrough waits on a dead server no longer than a short bound.
gap=$(sed -n 's/.*longest_gap_ms=\([0-9]*\).*/\1/p' /run/sc.out)
[ -n "$gap" ] && [ "$gap" -lt 2000 ] ||
	fail "swapping stood still for ${gap:-?} ms when the server went (want under 2000)"
ok "the longest stand-still of swapping was $gap ms;" \
	"wt_load_timeouts $(c wt_load_timeouts) wt_quiet_loads $(c wt_quiet_loads) wt_quiet_stores $(c wt_quiet_stores)"
ok "phase A done"
pool_ready 4
resumed "(writethrough)"
unload

# Phase B: mode none, cleancache on (the module stays loaded).
swap_two
cleancache=1
insmod $ko/ramster_frontend.ko target=$srv mode=none || fail "insmod ramster_frontend mode=none"
pool_ready 2
for f in 1 2; do
	fcheck write $d/f$f $f 0 2048 1 || fail "cannot write $d/f$f"
done
files_check "(cleancache: node $srv)"

# A short network problem is not SIGBUS: a holder's 2000 pages are on
# the server only; the host cuts the client's link for 12 s (longer than
# timeout_ms and r2net's idle timeout, shorter than the server's grace
# period) as the holder reads them back.  Its loads wait for the server.
puts=$(c remote_puts) waits=$(c load_waits)
hold_pages 2000 /run/hold0.out
hold0=$hold
[ "$(c remote_puts)" -ge $((puts + 1800)) ] ||
	fail "only $(($(c remote_puts) - puts)) of 2000 pages went to node $srv"
ok "phase B cut: $(cat /run/hold0.out), on node $srv only"
t=0
until [ "$(cat /sys/class/net/eth0/carrier 2>/dev/null)" = 0 ]; do
	t=$((t + 1))
	[ $t -le 240 ] || fail "the link was not cut within 120 s"
	sleep 0.5
done
t0=$(now_ms)
kill -USR1 $hold0
rc=0
wait $hold0 || rc=$?
[ $rc = 0 ] || { cat /run/hold0.out; fail "the holder ended with $rc after the link was cut for 12 s, want 0"; }
[ "$(c load_waits)" -gt "$waits" ] || fail "no load waited for node $srv: the cut tested nothing"
ok "link cut for 12 s: the holder read every page back right in $((($(now_ms) - t0) / 1000)) s;" \
	"load_waits $(c load_waits), load_wait_fails $(c load_wait_fails)"
wait_state $srv up 120

puts=$(c remote_puts)
hold_pages 2000 /run/hold.out
hold1=$hold
[ "$(c remote_puts)" -ge $((puts + 1800)) ] ||
	fail "only $(($(c remote_puts) - puts)) of 2000 pages went to node $srv"
# A second holder with the local tier on: its pages stay here.
lpp=/sys/module/ramster_frontend/parameters/local_pool_percent
echo 10 > $lpp || fail "local_pool_percent=10"
kept=$(c local_stores)
hold_pages 2000 /run/hold2.out
hold2=$hold
kept=$(($(c local_stores) - kept))
[ $kept -ge 1800 ] && [ "$(c local_pages)" -ge 1800 ] ||
	fail "local tier: $kept of 2000 pages kept, $(c local_pages) here"
ok "phase B holding: $(cat /run/hold.out), $(($(c remote_puts) - puts)) on node $srv only; $kept of a second holder's pages in the local tier"
wait_state $srv down 120
# The server is gone for good: its loads wait 3 s for it, not the 60 s
# default (server_wait_ms), then fail.
sw=/sys/module/ramster_frontend/parameters/server_wait_ms
echo 3000 > $sw || fail "server_wait_ms=3000"
fails=$(c load_wait_fails)
kill -USR1 $hold1
rc=0
wait $hold1 || rc=$?
[ $rc = $((128 + 7)) ] || { cat /run/hold.out; fail "the holder ended with $rc, want SIGBUS ($((128 + 7)))"; }
expect $fs/failed_loads -ge 1
[ "$(c load_wait_fails)" -gt "$fails" ] || fail "no load waited for the server before it failed"
echo 60000 > $sw || fail "server_wait_ms=60000"
ok "the process whose pages were lost died of SIGBUS, after its load waited 3 s for the server"
loads=$(c local_loads)
kill -USR1 $hold2
wait $hold2 || { cat /run/hold2.out; fail "the local tier's pages came back wrong with the server gone"; }
loads=$(($(c local_loads) - loads))
[ $loads -ge 1800 ] || fail "the second holder read back only $loads pages from the local tier"
ok "the process whose pages were in the local tier lived: $loads loads from it, every page correct"
echo 0 > $lpp || fail "local_pool_percent=0"
fails=$(c remote_put_failures)
swapcheck pageout 4000 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong with no server"; }
[ "$(c remote_put_failures)" -ge $((fails + 7200)) ] ||
	fail "only $(($(c remote_put_failures) - fails)) stores refused with no server"
ok "phase B refused: with no server $(($(c remote_put_failures) - fails)) stores were refused and went to the disk, every page correct"
pool_ready 4
resumed "(none)"
files_check "after the server's restart"

# Phase C: once more.
ok "phase C idle"
wait_state $srv down 120
ok "phase C down"
pool_ready 6
resumed "(none, the second restart)"
files_check "after the second restart"
swapoff /dev/vda || fail "swapoff /dev/vda"
swapoff $d/swapfile || fail "swapoff $d/swapfile"
umount $d || fail "umount $d"
# cleancache keeps its backend: the module stays.  Let the server go.
ramsterctl unconfigure || fail "ramsterctl unconfigure"
no_leaks
