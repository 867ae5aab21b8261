# probes: the probe backend's jobs one after another in one boot (a debug
# guest's boot and kmemleak scan cost a minute each): probe-writethrough,
# probe-sigbus, probe-race, probe-swap, probe-cleancache; then, in the
# same boot, the memory server's self-tests (backend-tmem) and r2net's
# node manager (r2net-configfs).  Between two, swap goes
# off, frontswap lets the probe go and it is unloaded, so that the next
# loads it with its own knobs.  frontswap's failed_loads counts on across
# them: writethrough loses none, sigbus one.  probe-swap leaves zswap
# the frontswap slot, and cleancache keeps its backend for good: they
# come last.
for part in probe-writethrough probe-sigbus probe-race probe-swap probe-cleancache; do
	( . /jobs/$part.sh ) || fail "$part failed (see above)"
	ok "$part passed"
	[ $part = probe-cleancache ] && break
	swapoff /dev/vda || fail "swapoff after $part"
	# probe-swap let it go already (unregister reads 0 then).
	if [ "$(cat $probe/unregister)" != 0 ]; then
		echo 1 > $probe/unregister
		[ "$(cat $probe/unregister)" = 0 ] ||
			fail "after $part frontswap did not let the probe go: $(cat $probe/unregister)"
	fi
	rmmod tmem_probe || fail "rmmod tmem_probe after $part"
done
( . /jobs/backend-tmem.sh ) || fail "backend-tmem failed (see above)"
ok "backend-tmem passed"
( . /jobs/r2net-configfs.sh ) || fail "r2net-configfs failed (see above)"
ok "r2net-configfs passed"
