# swap-plain: with no backend registered, swap works as before: a
# workload larger than free memory swaps to the device and gets every
# page back intact.
swap_on
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
out=$(vmstat pswpout)
swapcheck pressure $(( $(avail_mib) + 64 )) 1 || fail "pages came back wrong"
out=$(( $(vmstat pswpout) - out ))
[ $out -ge 4096 ] || fail "only $out pages were written to the swap device"
ok "$out pages went to the swap device and came back"
expect /sys/kernel/debug/frontswap/succ_stores -eq 0
