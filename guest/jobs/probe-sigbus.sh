# probe-sigbus: a page the backend accepted never reaches the swap
# device, and when the backend loses it the process touching it dies of
# SIGBUS; everything else keeps working.
echo 0 > /proc/sys/vm/page-cluster
swap_on
load_probe cleancache=0
swapcheck slots /dev/vda no $probe/lose_next_loads || fail "slots written without writethrough"
swapcheck lose $probe/lose_next_loads || fail "lost page did not give SIGBUS"
expect $probe/fs_lost -eq 1
expect /sys/kernel/debug/frontswap/failed_loads -eq 1
swapcheck pageout 512 || fail "swap broken after a lost page"
ok "guest healthy after the loss"
