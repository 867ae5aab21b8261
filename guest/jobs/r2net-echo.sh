# r2net-echo: every node echoes to every other through r2net (r2echo.ko):
# synchronous echoes of 1, 4096, 0 and 66184 bytes and of tmem pages, then
# 200 asynchronous echoes of 64..4096 bytes, 64 in flight, all nodes
# at once.  Every reply is checked; r2net's counters must agree on both
# ends.  Nodes stay up until every peer has had its echoes served here;
# then, idle, each connection (the first and only one to each peer)
# must see keepalives, and ramsterctl status runs.
#
# Three TCG guests on two host CPUs manage some 60 echoes a second, and
# TCP's retransmit backoff on the loaded bridge can leave a link silent
# for seconds: this job runs with r2net's default timeouts (30 s idle),
# as a cluster would; r2net-down tests the short ones.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
r2net_up
stay

for p in $peers; do
	[ "$(events_last up "$p")" ] || fail "r2echo saw no 'up $p' event"
done
ok "r2echo saw every peer come up: $(tr '\n' ' ' < $r2e/events)"

peer=${peers%%[!0-9]*}
for bad in bogus "sync $peer" "sync $peer 66185 1" "sync $peer 1 0" \
	"sync $peer 9-3 1" "sync 255 1 1" "page $peer 1000001" \
	"async $peer 64 1000001 8" "async $peer 64 10 0" "async $peer 64 10"; do
	echo "$bad" 2>/dev/null > $r2e/run && fail "r2echo accepted '$bad'"
done
dmesg | grep -q "r2echo: bad command; usage: sync NODE LEN COUNT" ||
	fail "r2echo refused bad commands without saying the syntax"
ok "r2echo refuses bad commands and says the syntax"

# Everything each node sends to each peer; the peers send as much here.
sent=$((20 + 20 + 20 + 20 + 20 + 200))
for p in $peers; do
	echo_ok sync "$p" 1 20
	echo_ok sync "$p" 4096 20
	echo_ok sync "$p" 0 20
	echo_ok sync "$p" 66184 20
	echo_ok page "$p" 20
done
for p in $peers; do
	echo_ok async "$p" 64-4096 200 64
done

# frames NODE tx|rx: messages to or from NODE, keepalives not counted.
frames() {
	echo $(( $(nstat "$1" "msgs_$2") - $(nstat "$1" "keepalives_$2") ))
}

# Each peer's echoes here are served when r2net has seen its requests and
# sent the replies, on top of the replies to this node's own requests and
# a handshake per connection.
end=$(($(now_ms) + 300000))
for p in $peers; do
	want=$((2 * sent + $(nstat "$p" connects)))
	while rx=$(frames "$p" rx) tx=$(frames "$p" tx); [ "$rx" -lt $want ] || [ "$tx" -lt $want ]; do
		[ "$(now_ms)" -lt $end ] ||
			{ diag; fail "node $p: $rx messages in and $tx out, want $want each"; }
		sleep 0.5
	done
	ok "node $p: its $sent echoes were served here ($rx messages in, $tx out, want $want; keepalives not counted)"
done

# Idle now: keepalives (every 2 s; whichever end is quiet first asks,
# the other answers) keep each connection up, the one it made first.
sleep 5
for p in $peers; do
	[ "$(nstat "$p" keepalives_rx)" -gt 0 ] || fail "no keepalive from node $p"
	[ "$(nstat "$p" connects)" = 1 ] || fail "node $p connected $(nstat "$p" connects) times"
done
ramsterctl status > /run/status.out || { cat /run/status.out; fail "ramsterctl status"; }
for p in $peers; do
	bad=$(awk '/^rejected_|^timeouts |^send_errors |^late_replies |^no_handler |^disconnects |^in_flight / && $2 != 0' "$r2n/nodes/$p")
	[ -z "$bad" ] || { cat "$r2n/nodes/$p"; fail "node $p: r2net counts" $bad; }
	ok "node $p: msgs_tx $(nstat "$p" msgs_tx) msgs_rx $(nstat "$p" msgs_rx)" \
		"(keepalives $(nstat "$p" keepalives_tx)/$(nstat "$p" keepalives_rx))," \
		"bytes_tx $(nstat "$p" bytes_tx) bytes_rx $(nstat "$p" bytes_rx), in_flight 0," \
		"no rejects, timeouts, errors or disconnects; rtt avg $(nstat "$p" rtt_avg_us) us"
done
diag
ok "longest 0.5 s sleep took $(cat /run/gap)"

# The bridge's guard (nwfilter clean-traffic in the cluster description):
# this guest sends only as its own address.  Pings from it reach a peer;
# from an address it gave itself (200 + its number) they do not.
tgt=$(awk -v f="$peer" '/^node:/ { n = ""; a = "" } $1 == "number" { n = $3 }
	$1 == "ip_address" { a = $3 } n == f && a != "" { print a; exit }' /etc/ramster.conf)
mine=$(ip -4 -o addr show dev eth0 | awk '{ sub("/.*", "", $4); print $4; exit }')
spoof=${mine%.*}.$((200 + me))
ping -c 1 -W 5 "$tgt" > /dev/null || fail "node $peer ($tgt) does not answer pings from $mine"
ip addr add "$spoof/32" dev eth0 || fail "ip addr add $spoof/32 dev eth0"
if ping -c 2 -W 3 -I "$spoof" "$tgt" > /dev/null 2>&1; then
	fail "node $peer answered pings from $spoof, not this node's address: is libvirt's clean-traffic on this guest's interface?"
fi
ip addr del "$spoof/32" dev eth0
ok "pings from $mine reach node $peer; from $spoof (not this node's) they do not"
no_leaks
