# probe-swap: swapping reaches the probe's store, load and invalidate;
# swap readahead by address names its window's pages first (patch 7);
# the probe can unregister only when it holds no pages, and then zswap
# can take the frontswap slot.
echo 0 > /proc/sys/vm/page-cluster
# Readahead by address, when page-cluster allows it, wants no rotational
# swap device.
rot=$(cat /sys/block/vda/queue/rotational)
echo 0 > /sys/block/vda/queue/rotational
swap_on
# Registered after swapon: the active device must be announced to it.
load_probe cleancache=0
expect $probe/fs_init -ge 1

swapcheck pageout 2048 || fail "pages came back wrong"
expect $probe/fs_stores -ge 3700
expect $probe/fs_loads -ge 3700
expect $probe/fs_invalidate_page -ge 1800
expect $probe/fs_load_misses -eq 0
# With page-cluster 0 there is no window to tell of.
expect $probe/fs_prefetches -eq 0

# Pages swapped out in a shuffled order, read back in address order with
# windows of up to 32: the probe hears of most loads before they come,
# and only of pages it holds.
[ -e /sys/fs/cgroup/memory.reclaim ] ||
	mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2 on /sys/fs/cgroup"
loads=$(cat $probe/fs_loads)
echo 5 > /proc/sys/vm/page-cluster
swapcheck shuffled 8 > /run/sc.out 2>&1 || { cat /run/sc.out; fail "pages read ahead by address came back wrong"; }
echo 0 > /proc/sys/vm/page-cluster
loads=$(($(cat $probe/fs_loads) - loads))
named=$(cat $probe/fs_prefetch_loaded)
[ $((loads * 4)) -ge $((2048 * 3)) ] ||
	fail "only $loads of 2048 pages read back came from the probe"
[ $((named * 4)) -ge $((loads * 3)) ] ||
	fail "of $loads loads, $named were named by a readahead window first ($(cat $probe/fs_prefetch_pages) named in $(cat $probe/fs_prefetches) windows)"
expect $probe/fs_prefetch_not_held -eq 0
ok "$(cat /run/sc.out); $named of $loads loads named first in $(cat $probe/fs_prefetches) readahead windows"

# Holding pages: unregister must refuse, and lose nothing.
swapcheck hold 256 10 > /run/hold.out &
hold=$!
tries=0
until [ "$(cat $probe/fs_pages)" -ge 200 ]; do
	tries=$((tries + 1))
	[ $tries -lt 50 ] || fail "hold never paged out"
	sleep 0.2
done
echo 1 > $probe/unregister
expect $probe/unregister -eq -16
wait $hold || fail "pages held across a refused unregister came back wrong"
ok "refused unregister lost nothing: $(cat /run/hold.out)"

swapoff /dev/vda || fail "swapoff"
echo "$rot" > /sys/block/vda/queue/rotational
expect $probe/fs_invalidate_area -ge 1
expect $probe/fs_pages -eq 0
echo 1 > $probe/unregister
expect $probe/unregister -eq 0

# The slot is free again: zswap can have it.
stores=$(cat $probe/fs_stores)
succ=$(cat /sys/kernel/debug/frontswap/succ_stores)
echo 1 > /sys/module/zswap/parameters/enabled || fail "zswap could not take the free slot"
swap_on
swapcheck pageout 512 || fail "pages through zswap came back wrong"
expect $probe/fs_stores -eq "$stores"
expect /sys/kernel/debug/frontswap/succ_stores -ge $((succ + 400))
