# tcp-mesh: answer on TCP port 7001 with this node's name, and reach
# every other node of /etc/ramster.conf the same way.  Stays up so the
# slower nodes can reach this one.
[ -r /etc/ramster.conf ] || fail "no /etc/ramster.conf in the initramfs"
printf '#!/bin/sh\necho %s\n' "$RAMSTER_NODE" > /run/iam
chmod +x /run/iam
nc -ll -p 7001 -e /run/iam &
stay

peers=$(awk '/^node:/ { n = ""; a = "" }
	$1 == "name" { n = $3 } $1 == "ip_address" { a = $3 }
	n != "" && a != "" { print n "=" a; n = ""; a = "" }' /etc/ramster.conf)
[ -n "$peers" ] || fail "no nodes in /etc/ramster.conf"
for p in $peers; do
	name=${p%%=*} addr=${p#*=}
	[ "$name" = "$RAMSTER_NODE" ] && continue
	tries=0
	until [ "$(nc -w 2 "$addr" 7001 </dev/null 2>/dev/null)" = "$name" ]; do
		tries=$((tries + 1))
		[ $tries -lt 120 ] || fail "no answer from $name at $addr:7001"
		sleep 1
	done
	ok "reached $name at $addr over TCP"
done
