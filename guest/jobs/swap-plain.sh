# swap-plain: with no backend registered, swap works as before.
swap_on
swapcheck pressure $(( $(mem_mib) + 96 )) 1 || fail "pages came back wrong"
expect /sys/kernel/debug/frontswap/succ_stores -eq 0
expect /proc/sys/vm/page-cluster -ge 0
grep -q '^/dev/vda' /proc/swaps || fail "swap device gone"
used=$(awk '/^\/dev\/vda/ { print $4 }' /proc/swaps)
ok "swap device used: $used KiB"
