# backend-tmem: ramster_backend.ko's tmem store runs its self-test at load
# (selftest=1): every case must log "selftest: pass NAME", none may log a
# FAIL line, and the load must succeed.  Then it loads and unloads again
# without the test.
ko=/lib/modules/ramster/ramster_backend.ko
cases="put-get-roundtrip ephemeral-get-exclusive persistent-get-kept
duplicate-put-replaces duplicate-put-failure-flushes flush-page flush-object
destroy-pool unknown-pool pool-limit bad-flags shared-pool
shared-persistent-refused lru-eviction client-gone concurrency eviction-race"

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

rmmod ramster_backend || fail "rmmod ramster_backend after the self-test"
insmod $ko || fail "insmod ramster_backend.ko without the self-test"
[ "$(cat /sys/module/ramster_backend/parameters/selftest)" = N ] ||
	fail "selftest parameter is not N on a plain load"
rmmod ramster_backend || fail "rmmod ramster_backend"
ok "loads and unloads without the self-test"
