# probe-race: a backend that registers while a swap device goes away is
# either told of the device's end or never finds it (patch 1: swapoff
# detaches the device under the mutex that registration holds while it
# walks the devices).  Each round: swapon, then swapoff in the
# background and the probe loading (it registers), one of them held back
# 0 to 100 ms, the one in odd rounds, the other in even; once both are
# done, every device the probe was told of (->init) must have had its
# end told too (->invalidate_area).  Then the probe goes, and the next
# round loads it anew.  It ends with swap on and the probe loaded, as
# probes.sh expects of a part.
rounds=24 seen=0
for i in $(seq 1 $rounds); do
	swap_on
	us=$(((i * 7919) % 100000))
	if [ $((i % 2)) = 1 ]; then
		( usleep $us; swapoff /dev/vda ) &
		off=$!
		load_probe cleancache=0
	else
		( swapoff /dev/vda ) &
		off=$!
		usleep $us
		load_probe cleancache=0
	fi
	wait $off || fail "round $i: swapoff"
	init=$(cat $probe/fs_init) area=$(cat $probe/fs_invalidate_area)
	[ "$init" = "$area" ] ||
		fail "round $i: the probe was told of $init swap device(s) and of the end of $area: swapoff raced its registration"
	[ "$init" = 0 ] || seen=$((seen + 1))
	echo 1 > $probe/unregister
	[ "$(cat $probe/unregister)" = 0 ] ||
		fail "round $i: frontswap did not let the probe go: $(cat $probe/unregister)"
	rmmod tmem_probe || fail "round $i: rmmod tmem_probe"
done
ok "$rounds rounds of swapoff against the probe's registration: it found the device in $seen (and was told of its end each time), not in $((rounds - seen))"
swap_on
load_probe cleancache=0
