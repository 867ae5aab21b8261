# probe-writethrough: with writethrough, accepted pages are on the swap
# device too, and a page the backend loses is read from there: the data
# comes back right and frontswap counts no page lost for good.
echo 0 > /proc/sys/vm/page-cluster
swap_on
load_probe cleancache=0 writethrough=1
swapcheck slots /dev/vda yes $probe/lose_next_loads || fail "writethrough"
expect $probe/fs_lost -eq 1
expect /sys/kernel/debug/frontswap/failed_loads -eq 0
