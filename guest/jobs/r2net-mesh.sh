# r2net-mesh: r2net connects every pair of nodes of /etc/ramster.conf
# (default timeouts), keepalives flow both ways, and nothing is rejected.
r2n=/sys/kernel/debug/r2net
[ -r /etc/ramster.conf ] || fail "no /etc/ramster.conf in the initramfs"
me=$RAMSTER_NUMBER
peers=$(awk '/^node:/ { n = 1; next } /^[a-z]+:/ { n = 0 }
	n && $1 == "number" { print $3 }' /etc/ramster.conf | grep -vx "$me")
[ -n "$peers" ] || fail "no other nodes in /etc/ramster.conf"

# stat NODE NAME
stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$r2n/nodes/$1"
}

insmod /lib/modules/ramster/r2net.ko || fail "insmod r2net"
ramsterctl configure || fail "ramsterctl configure"
stay
for p in $peers; do
	t=0
	until [ "$(stat "$p" state)" = up ]; do
		t=$((t + 1))
		[ $t -le 300 ] || fail "node $p is '$(stat "$p" state)' after 60 s"
		sleep 0.2
	done
	ok "node $p is up after about $((t / 5)) s"
done
# Idle connections: keepalives (every 2 s; whichever end is quiet first
# asks, the other answers) keep them up.
sleep 5
for p in $peers; do
	[ "$(stat "$p" keepalives_rx)" -gt 0 ] || fail "no keepalive from node $p"
	[ "$(stat "$p" connects)" = 1 ] || fail "node $p connected $(stat "$p" connects) times"
	[ "$(stat "$p" disconnects)" = 0 ] || fail "node $p disconnected"
	rej=$(awk '$1 ~ /^rejected_/ && $2 != 0' "$r2n/nodes/$p")
	[ -z "$rej" ] || fail "node $p: $rej"
	ok "node $p: $(stat "$p" keepalives_rx) keepalives in, $(stat "$p" keepalives_tx) out"
done
ramsterctl status || fail "ramsterctl status"
# Stay up until every peer has seen keepalives from this node too.
sleep 6
