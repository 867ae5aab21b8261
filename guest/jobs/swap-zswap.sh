# swap-zswap: with zswap enabled on the command line, swap works as
# before, including pages zswap writes back to the device.
[ "$(cat /sys/module/zswap/parameters/enabled)" = Y ] || fail "zswap not enabled"
swap_on
swapcheck pressure $(( $(avail_mib) + 64 )) 1 || fail "pages came back wrong"
expect /sys/kernel/debug/frontswap/succ_stores -gt 1000
expect /sys/kernel/debug/frontswap/failed_loads -eq 0
ok "zswap wrote back $(cat /sys/kernel/debug/zswap/written_back_pages) pages"
