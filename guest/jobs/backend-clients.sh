# backend-clients: one memory server, two clients, through r2net.  The
# server runs with a quota of 3u pages per client (u = 400: the debug
# kernel under TCG does some 80 a second) and a 20 s grace period.
#
# Node 2: puts 2u pages into an ephemeral pool (the random ones are
# refused), then 2u into a persistent pool; at the quota those puts
# evict its ephemeral pages, oldest first, and every get shows which.
# Up to the quota persistent puts succeed, past it they fail with
# -TMEM_ENOMEM, and every page accepted comes back right.  Then it drops
# r2net for a few seconds and comes back within the grace period.
#
# Node 3: while node 2 is away, names node 2's pool ids and handles.
# The server tags pool ids with a counter (tmem_abi.h), so node 3's first
# pool, made after node 2's two, tells it their ids: they do not exist
# for it (-TMEM_ENODEV).  Its own pools in the same slots as node 2's:
# gets miss, and flushes and a destroy touch only its own.  Then it
# puts same-filled pages at scattered handles, each an object of its own,
# the most a page can cost the server for the fewest bytes sent: with the
# weight 1 the server gives it at run time (a share of 1% of the default
# one) it is held to its share, and the rest are refused.  Then it
# leaves r2net.
#
# Node 2, back: every page it had is still there and right.  The server
# frees each client's pools once it has been gone for the grace period,
# and holds no page at the end.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
u=400
quota=$((3 * u)) grace_ms=20000
r2net_up
srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
b=/sys/kernel/debug/ramster_backend

if [ "$RAMSTER_ROLE" = memory-server ]; then
	insmod $ko/ramster_backend.ko client_quota_pages=$quota \
		client_grace_ms=$grace_ms || fail "insmod ramster_backend"
	echo "3 1" > /sys/module/ramster_backend/parameters/client_weight ||
		fail "cannot set node 3's weight"
	ok "node $me: serving $(echo $peers) with a quota of $quota pages, grace $grace_ms ms, node 3 at weight 1"
	ms_now
	end=$((ms + 900000))
	# The most node 3 was charged, and its share then.
	max3=0 share3=0
	while read -r freed < $b/clients_freed; [ "$freed" -lt 2 ]; do
		ms_now
		[ $ms -lt $end ] ||
			{ diag; grep . $b/clients*; fail "clients' pools not freed after 900 s"; }
		while read -r n _ c _ sh _ w _; do
			[ "$n" = 3 ] && [ "$c" -gt $max3 ] && max3=$c share3=$sh
		done < $b/shares
		sleep 1
	done
	[ $share3 -gt 0 ] && [ $max3 -le $share3 ] && [ $((2 * max3)) -gt $share3 ] ||
		fail "node 3 was charged at most $max3 bytes; want up to its share $share3, and more than half of it"
	[ "$(cat $b/reject_share)" -gt 0 ] || fail "reject_share is 0: node 3's same-filled pages were never held to its share"
	ok "node 3 charged at most $max3 bytes of its share $share3; reject_share $(cat $b/reject_share)"
	for kv in clients_downs=3 clients_returns=1 clients_freed=2 \
		clients_pending=0 stored_pages=0 eph_pages=0 pers_pages=0; do
		v=$(cat $b/${kv%%=*})
		[ "$v" = "${kv#*=}" ] || fail "${kv%%=*} is $v, want ${kv#*=}"
	done
	[ -z "$(cat $b/clients)" ] || fail "clients still listed: $(cat $b/clients)"
	[ "$(cat $b/reject_quota)" -ge $u ] || fail "reject_quota is $(cat $b/reject_quota), want >= $u"
	[ "$(cat $b/evictions)" -gt 0 ] || fail "no evictions"
	dmesg | grep -q 'ramster_backend: node 2: back within its grace period' ||
		fail "no log line of node 2 coming back within its grace period"
	dmesg | grep -q 'ramster_backend: node 3: down for its grace period; freed its 1 pool(s)' ||
		fail "no log line of node 3's pool freed after its grace period"
	ok "node 2 came back within its grace period and kept its pools;" \
		"both clients' pools freed $grace_ms ms after they left;" \
		"reject_quota $(cat $b/reject_quota), evictions $(cat $b/evictions), nothing stored"
	rmmod ramster_backend || fail "rmmod ramster_backend"
	no_leaks
	exit 0
fi

insmod $ko/tmemclient.ko || fail "insmod tmemclient"

if [ "$me" = 3 ]; then
	# Wait for node 2 to leave: it has filled its pools then.
	t=0
	while [ "$(nstat 2 state)" = up ]; do
		t=$((t + 1))
		[ $t -le 3000 ] || fail "node 2 still up after 600 s"
		sleep 0.2
	done
	ok "node 2 is away; its two pools hold its pages"
	tc_pool "$srv" persistent
	P0=$P
	[ $((P0 % 16)) = 0 ] || fail "node 3's first pool $P0 is not in slot 0"
	# Node 2's: slot 0 two tags before, slot 1 one tag before.
	E2=$((P0 - 32)) Q2=$((P0 - 16 + 1))
	for id in $E2 $Q2; do
		for op in "get $srv $id 100 2" "put $srv $id 10 3" \
			"flush $srv $id 100" "flushobj $srv $id 50"; do
			n=$(echo "$op" | awk '{ print $4 }')
			tc_expect "ok=0 errors=$n err_enodev=$n first_status=-19" $op
		done
		tc_expect "ok=0 missing=1 status=0" destroy "$srv" $id
	done
	ok "node 2's pools $E2 and $Q2 do not exist for node 3: -TMEM_ENODEV, destroy finds nothing"
	tc_expect "" put "$srv" $P0 100 3
	tc_pool "$srv" persistent
	P1=$P
	[ $((P1 % 16)) = 1 ] || fail "node 3's second pool $P1 is not in slot 1"
	tc_expect "ok=0 missing=$((3 * u))" get "$srv" $P1 $((3 * u)) 2
	tc_expect "ok=0 missing=$u" get "$srv" $P0 $u 2 $u
	tc_expect "" flush "$srv" $P1 $((3 * u))
	tc_expect "" flushobj "$srv" $P1 50
	tc_expect "" destroy "$srv" $P1
	tc_expect "" get "$srv" $P0 100 3
	ok "node 3's own pools $P0 and $P1, in node 2's slots, do not show node 2's pages; it flushed and destroyed $P1"
	# Same-filled pages at scattered handles, until held to its share.
	n=2000
	tc_run zsames "$srv" $P0 $n 7
	tc_check "ok=$(tval ok) errors=$(tval err_enomem) first_status=-12" zsames "$srv" $P0 $n 7
	[ "$(tval ok)" -gt 0 ] && [ "$(tval errors)" -gt 0 ] &&
		[ $(( $(tval ok) + $(tval errors) )) = $n ] ||
		fail "zsames: $(tsummary)"
	ok "same-filled pages at scattered handles: $(tval ok) of $n stored, then -TMEM_ENOMEM (its share)"
	# Leave at once, rather than by the idle timeout when the node stops.
	ramsterctl unconfigure || fail "ramsterctl unconfigure"
	exit 0
fi

# Node 2.
tc_pool "$srv" ephemeral
E=$P
tc_run put "$srv" "$E" $u 5 0
rA=$(tval pages_random) okA=$((u - $(tval pages_random)))
tc_check "ok=$okA errors=$rA err_enomem=$rA" put "$srv" "$E" $u 5 0
tc_run put "$srv" "$E" $u 5 $u
rB=$(tval pages_random) okB=$((u - $(tval pages_random)))
tc_check "ok=$okB errors=$rB err_enomem=$rB" put "$srv" "$E" $u 5 $u
x=$((okA + okB - u))
[ $x -gt 0 ] && [ $x -lt $okA ] || fail "ephemeral pages $okA + $okB: this test needs $u < total < $u + $okA"
ok "ephemeral pool $E: $okA + $okB pages stored (random ones refused)"

tc_pool "$srv" persistent
Q=$P
tc_expect "" put "$srv" "$Q" $((2 * u)) 2
ok "persistent pool $Q: $((2 * u)) pages; at the quota they evicted $x ephemeral pages"
tc_expect "ok=$((okA - x)) missing=$((rA + x)) missing_random=$rA" get "$srv" "$E" $u 5 0
tc_expect "ok=$okB missing=$rB missing_random=$rB" get "$srv" "$E" $u 5 $u
ok "the $x evicted were the oldest: pages 0..$((u - 1)) lost $x, pages $u..$((2 * u - 1)) none"

tc_expect "" put "$srv" "$Q" $u 2 $((2 * u))
tc_expect "ok=0 errors=$u err_enomem=$u first_status=-12" put "$srv" "$Q" $u 2 $((3 * u))
tc_expect "" get "$srv" "$Q" $((3 * u)) 2
tc_expect "ok=0 missing=$u" get "$srv" "$Q" $u 2 $((3 * u))
ok "persistent puts up to the quota ($quota) stored, past it -TMEM_ENOMEM; all $((3 * u)) pages back right"

# Away for a few seconds, within the grace period.
ramsterctl unconfigure || fail "ramsterctl unconfigure"
sleep 4
ramsterctl configure || fail "ramsterctl configure again"
wait_state "$srv" up 60
ok "back: r2net up with node $srv again"
not_up_for 3 3 600
tc_expect "" get "$srv" "$Q" $((3 * u)) 2
tc_expect "ok=0 missing=$u" get "$srv" "$Q" $u 2 $((3 * u))
ok "after node 3 tried node 2's pool ids and left: all $((3 * u)) of node 2's pages back right"
ramsterctl unconfigure || fail "ramsterctl unconfigure"
