# probe-swap: swapping reaches the probe's store, load and invalidate;
# the probe can unregister only when it holds no pages, and then zswap
# can take the frontswap slot.
echo 0 > /proc/sys/vm/page-cluster
swap_on
# Registered after swapon: the active device must be announced to it.
load_probe cleancache=0
expect $probe/fs_init -ge 1

swapcheck pageout 2048 || fail "pages came back wrong"
expect $probe/fs_stores -ge 3700
expect $probe/fs_loads -ge 3700
expect $probe/fs_invalidate_page -ge 1800
expect $probe/fs_load_misses -eq 0

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
