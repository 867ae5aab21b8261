# r2net-down: the host destroys node 3 while nodes 1 and 2 echo to it.
# They must see it go down within idle_timeout_ms + 1 s (plus their
# longest vCPU stall) of the last echo it answered (the echo fails with an
# error, r2echo logs "down 3", r2net stops showing it up), keep echoing to
# each other, and see it come back
# and answer again once the host has started it again.  Node 3 only
# serves, on both boots.  The host waits for "all pairs up" from 1 and 2
# before it destroys 3, and for "node 3 down" before it starts it again.
. /jobs/r2net-lib.sh
victim=3
r2net_up
stay
if [ "$me" = $victim ]; then
	ok "node $me serves until the host stops it"
	exit 0
fi
other=$(echo "$peers" | grep -vx $victim)
[ -n "$other" ] || fail "no node besides $me and $victim in /etc/ramster.conf"

echo_ok sync "$other" 64 20
echo_ok sync $victim 64 20
last=$(now_ms) start=$(now_ms) n=0
ok "all pairs up; echoing to node $victim until it stops answering"

# One echo at a time to the victim until one fails: the host destroys it.
while :; do
	echo_run sync $victim 64 1
	t=$(now_ms)
	[ "$(val ok)" = 1 ] || break
	last=$t n=$((n + 1))
	[ $((t - start)) -lt 300000 ] ||
		fail "node $victim still answers after 300 s: the host did not destroy it"
done
failed=$t err=$(val first_error)
[ "$(val errors)" = 1 ] ||
	{ cat /run/echo.out; fail "echo to node $victim came back wrong: $(summary)"; }

t=0
until down=$(events_last down $victim) && [ -n "$down" ]; do
	t=$((t + 1))
	[ $t -le 100 ] ||
		{ diag; fail "no 'down $victim' event 20 s after an echo to it failed ($err)"; }
	sleep 0.2
done
[ "$down" -ge "$last" ] ||
	fail "'down $victim' at $down ms, before the echo it answered at $last ms"
state=$(nstat $victim state)
case $state in
down|connecting) ;;
*) fail "node $victim is '$state' in r2net after its down event" ;;
esac
t0=$(now_ms)
echo_run sync $victim 64 1
t1=$(now_ms)
[ "$(val errors)" = 1 ] ||
	{ cat /run/echo.out; fail "an echo to node $victim after its down event: $(summary)"; }

# A guest whose vCPU stalls (TCG on a loaded host; watch_gaps measures
# it) runs its timers that much late: the limit allows for the longest
# stall seen.
gap=$(awk '{ print $1 }' /run/gap 2>/dev/null)
stall=$(( ${gap:-500} > 500 ? ${gap:-500} - 500 : 0 ))
limit=$((idle_ms + 1000 + stall))
msg="$n echoes answered, the last at $last ms; the next failed ($err)
after $((failed - last)) ms, 'down $victim' after $((down - last)) ms
(limit $limit: idle + 1 s + $stall ms of vCPU stall); state $state;
a new echo fails ($(val first_error)) in $((t1 - t0)) ms"
msg=$(echo $msg)
[ $((failed - last)) -le $limit ] && [ $((down - last)) -le $limit ] &&
	[ $((t1 - t0)) -le 1000 ] || { diag; fail "node $victim down too slowly: $msg"; }
ok "node $victim down: $msg"

echo_ok sync "$other" 4096 100
echo_ok async "$other" 64-4096 2000 64

# The host starts the victim again; it boots, and r2net reconnects.
t=0
until up=$(events_last up $victim) && [ "${up:-0}" -gt "$down" ]; do
	t=$((t + 1))
	[ $t -le 1500 ] || { diag; fail "no 'up $victim' event 300 s after it went down"; }
	sleep 0.2
done
wait_state $victim up 10
ok "node $victim back: 'up $victim' $((up - down)) ms after 'down $victim'"
echo_ok sync $victim 4096 40
echo_ok page $victim 50
echo_ok async $victim 64-4096 500 64
echo_ok sync "$other" 64 20

for p in $peers; do
	bad=$(awk '/^rejected_|^no_handler |^in_flight / && $2 != 0' "$r2n/nodes/$p")
	[ -z "$bad" ] || { cat "$r2n/nodes/$p"; fail "node $p: r2net counts" $bad; }
done
ok "r2net: connects $(nstat $victim connects) disconnects $(nstat $victim disconnects)" \
	"timeouts $(nstat $victim timeouts) to node $victim; no rejects, in_flight 0"
