# backend-tmem: ramster_backend.ko runs the self-tests of its tmem store
# and of zcache at load (selftest=1): every case must log "selftest: pass
# NAME" (the store's) or "zcache-selftest: pass NAME", none may log a FAIL
# line, and the load must succeed.  Then it loads without the tests: its
# counters read zero, max_zsize refuses bad values and keeps its own, and
# it unloads.
ko=/lib/modules/ramster/ramster_backend.ko
zcases="same-filled compressed incompressible churn concurrency zpage-lzo
zpage-same zpage-raw zpage-lzo-long zpage-corrupt"
cases="put-get-roundtrip ephemeral-get-exclusive persistent-get-kept
duplicate-put-replaces duplicate-put-failure-flushes flush-page flush-object
destroy-pool tagged-pool-ids unknown-pool pool-limit bad-flags shared-pool
shared-persistent-refused lru-eviction client-gone client-away concurrency
eviction-race
quota-evicts-own-lru quota-persistent-refused frame-limit low-memory
share-same-filled share-evicts-own share-weight object-limit charge-accounting"

insmod /lib/modules/ramster/r2net.ko || fail "insmod r2net.ko (ramster_backend needs it)"
insmod $ko selftest=1
rc=$?
log=$(dmesg | grep 'ramster_backend: selftest: ')
echo "$log"
bad=$(echo "$log" | grep 'selftest: FAIL')
[ -z "$bad" ] || fail "self-test failures: $bad"
[ $rc = 0 ] || fail "insmod ramster_backend.ko selftest=1 failed ($rc) with no FAIL line"

n=0
for c in $cases; do
	echo "$log" | grep -q "selftest: pass $c\$" || fail "no 'selftest: pass $c' line"
	n=$((n + 1))
done
passes=$(echo "$log" | grep -c 'selftest: pass ')
[ "$passes" = $n ] || fail "$passes pass lines, want $n (a case this job does not know?)"
echo "$log" | grep -q "selftest: 0 of $n cases failed" || fail "no '0 of $n cases failed' summary"
ok "self-test: all $n cases passed"
echo "$log" | grep -E 'selftest: (concurrency|eviction-race): [0-9]+ operations' |
	while read -r line; do ok "${line#*selftest: }"; done

zlog=$(dmesg | grep 'ramster_backend: zcache-selftest: ')
echo "$zlog"
n=0
for c in $zcases; do
	echo "$zlog" | grep -q "zcache-selftest: pass $c\$" || fail "no 'zcache-selftest: pass $c' line"
	n=$((n + 1))
done
[ "$(echo "$zlog" | grep -c 'zcache-selftest: pass ')" = $n ] ||
	fail "zcache: $(echo "$zlog" | grep -c 'zcache-selftest: pass ') pass lines, want $n"
echo "$zlog" | grep -q "zcache-selftest: 0 of $n cases failed" ||
	fail "no 'zcache-selftest: 0 of $n cases failed' summary"
ok "zcache self-test: all $n cases passed"

rmmod ramster_backend || fail "rmmod ramster_backend after the self-test"
insmod $ko || fail "insmod ramster_backend.ko without the self-test"
[ "$(cat /sys/module/ramster_backend/parameters/selftest)" = N ] ||
	fail "selftest parameter is not N on a plain load"

d=/sys/kernel/debug/ramster_backend
for f in stored_pages same_filled_pages huge_pages compressed_bytes pool_pages \
	pool_total_size reject_compress_poor reject_alloc_fail stored_as_sent eph_pages \
	pers_pages objects pools puts put_failures get_hits get_misses \
	flush_pages flush_objects evictions reject_limit reject_quota \
	clients_downs clients_returns clients_freed clients_pending; do
	[ "$(cat $d/$f)" = 0 ] || fail "$d/$f is '$(cat $d/$f)' on a fresh load, want 0"
done
[ -z "$(cat $d/clients)" ] || fail "$d/clients lists clients on a fresh load"
for k in requests_new_pool requests_put requests_get errors_bad_length get_hits \
	requests_put_zpage requests_get_zpage zpage_bytes_in zpage_bytes_out; do
	awk -v k=$k '$1 == k && $2 == 0 { f = 1 } END { exit !f }' $d/server ||
		fail "$d/server has no '$k 0' on a fresh load: $(cat $d/server)"
done
ok "counters in $d read zero on a fresh load"

p=/sys/module/ramster_backend/parameters/max_zsize
[ "$(cat $p)" = 3584 ] || fail "max_zsize is $(cat $p), want 3584 (7/8 of a page)"
for bad in 0 63 4087 abc -1 ""; do
	echo "$bad" 2>/dev/null > $p && fail "max_zsize took '$bad'"
	[ "$(cat $p)" = 3584 ] || fail "max_zsize is $(cat $p) after '$bad' was refused"
done
dmesg | grep -q "ramster_backend: max_zsize: 'abc' refused: want 64..4086 bytes" ||
	fail "max_zsize refused 'abc' without saying the range"
echo 2048 > $p && [ "$(cat $p)" = 2048 ] || fail "max_zsize did not take 2048"
ok "max_zsize refuses 0, 63, 4087, abc, -1 and '' with the range logged; takes 2048"
m=/sys/module/ramster_backend/parameters
[ "$(cat $m/max_pool_percent)" = 50 ] && [ "$(cat $m/max_pool_pages)" = 0 ] &&
	[ "$(cat $m/client_quota_pages)" = 0 ] ||
	fail "limits are $(cat $m/max_pool_percent)% $(cat $m/max_pool_pages) $(cat $m/client_quota_pages), want 50% 0 0"
for bad in 0 101 x -5; do
	echo "$bad" 2>/dev/null > $m/max_pool_percent && fail "max_pool_percent took '$bad'"
done
for bad in x -1 1.5; do
	echo "$bad" 2>/dev/null > $m/max_pool_pages && fail "max_pool_pages took '$bad'"
	echo "$bad" 2>/dev/null > $m/client_quota_pages && fail "client_quota_pages took '$bad'"
done
for bad in 51 -1 x; do
	echo "$bad" 2>/dev/null > $m/min_avail_percent && fail "min_avail_percent took '$bad'"
done
[ "$(cat $m/min_avail_percent)" = 5 ] ||
	fail "min_avail_percent is $(cat $m/min_avail_percent), want 5 after refused writes"
dmesg | grep -q "ramster_backend: min_avail_percent: '51' refused: want 0..50" ||
	fail "min_avail_percent refused 51 without saying the range"
echo 0 > $m/min_avail_percent && echo 5 > $m/min_avail_percent ||
	fail "min_avail_percent refused 0 or 5"
[ "$(cat $m/max_pool_percent)" = 50 ] || fail "max_pool_percent changed by refused writes"
dmesg | grep -q "ramster_backend: max_pool_percent: '101' refused: want 1..100" ||
	fail "max_pool_percent refused 101 without saying the range"
echo 20 > $m/max_pool_percent && echo 1000 > $m/max_pool_pages &&
	echo 500 > $m/client_quota_pages || fail "limits refused good values"
[ "$(cat $m/client_grace_ms)" = 60000 ] || fail "client_grace_ms is $(cat $m/client_grace_ms), want 60000"
for bad in x -1 86400001; do
	echo "$bad" 2>/dev/null > $m/client_grace_ms && fail "client_grace_ms took '$bad'"
done
[ "$(cat $m/client_grace_ms)" = 60000 ] || fail "client_grace_ms changed by refused writes"
echo 5000 > $m/client_grace_ms || fail "client_grace_ms refused 5000"
ok "limits default to 50% of RAM, no page limit, no quota, 5% of RAM kept available; bad values refused and logged; good ones taken"
rmmod ramster_backend || fail "rmmod ramster_backend"
rmmod r2net || fail "rmmod r2net"
ok "loads and unloads without the self-test"
