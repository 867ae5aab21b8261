# r2net-configfs: the r2net node manager builds the cluster of
# /etc/ramster.conf in configfs, enforces the write order and refuses bad
# values (leaving the old value in place), and unloads and reloads cleanly.
r2=/sys/kernel/config/r2net
ko=/lib/modules/ramster/r2net.ko

[ -r /etc/ramster.conf ] || fail "no /etc/ramster.conf in the initramfs"
[ -n "$RAMSTER_NODE" ] || fail "RAMSTER_NODE is not set"

# put FILE VALUE: the write must succeed.
put() {
	err=$( { echo "$2" > "$1"; } 2>&1 ) ||
		fail "writing '$2' to ${1#"$r2"/} was refused: $err"
}

# get FILE WANT: the file must read WANT.
get() {
	v=$(cat "$1") || fail "cannot read ${1#"$r2"/}"
	[ "$v" = "$2" ] || fail "${1#"$r2"/} reads '$v', want '$2'"
}

# refuse FILE VALUE WHAT: the write must fail and leave the value as it was.
refuse() {
	before=$(cat "$1") || fail "cannot read ${1#"$r2"/}"
	if err=$( { echo "$2" > "$1"; } 2>&1 ); then
		fail "$3: writing '$(echo "$2" | cut -c1-40)' to ${1#"$r2"/} was accepted"
	fi
	get "$1" "$before"
	ok "refused $3 (${err##*: })"
}

insmod $ko || fail "insmod r2net"
[ -d $r2 ] || fail "no $r2 after insmod"

# The cluster, and each node as "name number address port".
cluster=$(awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	c && $1 == "name" { print $3; exit }' /etc/ramster.conf)
[ -n "$cluster" ] || fail "no cluster name in /etc/ramster.conf"
nodes=$(awk -v port=7777 '
	function out() { if (n != "") print n, num, a, (p == "" ? port : p) }
	/^[a-z]+:/ { out(); n = num = a = p = ""; in_node = ($1 == "node:"); next }
	in_node && $1 == "name" { n = $3 }
	in_node && $1 == "number" { num = $3 }
	in_node && $1 == "ip_address" { a = $3 }
	in_node && $1 == "ip_port" { p = $3 }
	END { out() }' /etc/ramster.conf)
[ -n "$nodes" ] || fail "no nodes in /etc/ramster.conf"

c=$r2/$cluster
mkdir $c || fail "mkdir cluster $cluster"
get $c/idle_timeout_ms 30000
get $c/keepalive_delay_ms 2000
get $c/reconnect_delay_ms 2000
ok "cluster $cluster has the o2net default timeouts"
mkdir $r2/second 2>/dev/null && fail "a second cluster was created"
ok "a second cluster is refused"

# Each node the way ocfs2-tools does it: port, address, number.
me= mynum= myaddr=
echo "$nodes" > /run/r2nodes
while read -r name num addr port; do
	[ -n "$num" ] && [ -n "$addr" ] || fail "node $name lacks number or ip_address"
	d=$c/node/$name
	mkdir $d || fail "mkdir node $name"
	put $d/ipv4_port "$port"
	put $d/ipv4_address "$addr"
	put $d/num "$num"
	get $d/ipv4_port "$port"
	get $d/ipv4_address "$addr"
	get $d/num "$num"
	get $d/local 0
	ok "node $name is $num at $addr:$port"
	if [ "$name" = "$RAMSTER_NODE" ]; then
		me=$name mynum=$num myaddr=$addr
	fi
done < /run/r2nodes
[ -n "$me" ] || fail "this node $RAMSTER_NODE is not in /etc/ramster.conf"
n=$c/node/$me

# Timeouts: all > 0, keepalive below idle, numbers only.
long=$(head -c 5000 /dev/zero | tr '\0' 1)
refuse $c/keepalive_delay_ms 30000 "keepalive = idle timeout"
refuse $c/keepalive_delay_ms 40000 "keepalive above idle timeout"
refuse $c/idle_timeout_ms 2000 "idle timeout = keepalive"
refuse $c/idle_timeout_ms 0 "idle timeout 0"
refuse $c/keepalive_delay_ms 0 "keepalive 0"
refuse $c/reconnect_delay_ms 0 "reconnect delay 0"
refuse $c/reconnect_delay_ms -5 "negative reconnect delay"
refuse $c/idle_timeout_ms soon "non-numeric idle timeout"
refuse $c/idle_timeout_ms "$long" "overlong idle timeout"
put $c/idle_timeout_ms 40000
put $c/keepalive_delay_ms 5000
put $c/reconnect_delay_ms 3000
get $c/idle_timeout_ms 40000
get $c/keepalive_delay_ms 5000
get $c/reconnect_delay_ms 3000
put $c/keepalive_delay_ms 2000
put $c/idle_timeout_ms 30000
put $c/reconnect_delay_ms 2000
ok "timeouts change and read back"

# A fresh node: the order is enforced, bad values are refused.
s=$c/node/spare
mkdir $s || fail "mkdir node spare"
refuse $s/num 200 "num before ipv4_address and ipv4_port"
refuse $s/local 1 "local before num, ipv4_address and ipv4_port"
refuse $s/ipv4_port 0 "port 0"
refuse $s/ipv4_port 70000 "port 70000"
refuse $s/ipv4_port http "non-numeric port"
refuse $s/ipv4_address 300.1.2.3 "address 300.1.2.3"
refuse $s/ipv4_address 10.77.2 "address with three parts"
refuse $s/ipv4_address 1.2.3.4.5 "address with five parts"
refuse $s/ipv4_address "10.0.0.1 junk" "address with trailing junk"
refuse $s/ipv4_address "$long" "overlong address"
refuse $s/ipv4_address "$myaddr" "duplicate address $myaddr"
put $s/ipv4_port 7777
refuse $s/num 200 "num before ipv4_address"
put $s/ipv4_address 10.77.1.201
refuse $s/num 255 "num 255"
refuse $s/num -1 "num -1"
refuse $s/num "$mynum" "duplicate num $mynum"
refuse $s/num two "non-numeric num"
refuse $s/num "$long" "overlong num"
refuse $s/local 2 "local 2"
put $s/num 200
get $s/num 200
put $s/num 201
get $s/num 201
ok "spare node is renumbered while no node is local"

# The cluster key: write-only, 64 hex digits, needed before local.
key=$(awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	c && $1 == "cluster_key" { print $3 }' /etc/ramster.conf)
[ ${#key} = 64 ] || fail "no 64-digit cluster_key in /etc/ramster.conf"
[ "$(stat -c %a $c/cluster_key)" = 200 ] ||
	fail "cluster_key has mode $(stat -c %a $c/cluster_key), want 200"
cat $c/cluster_key > /dev/null 2>&1 && fail "cluster_key could be read"
refuse $n/local 1 "local before cluster_key"
# refuse_key VALUE WHAT: the write of VALUE to cluster_key must fail.
refuse_key() {
	if err=$( { echo "$1" > $c/cluster_key; } 2>&1 ); then
		fail "$2: writing it to cluster_key was accepted"
	fi
	ok "refused a cluster_key of $2 (${err##*: })"
}
refuse_key "$(echo "$key" | cut -c2-)" "63 hex digits"
refuse_key "${key}0" "65 hex digits"
refuse_key "g$(echo "$key" | cut -c2-)" "a non-hex digit"
refuse_key "" "nothing"
refuse_key "$key$key" "two keys"
refuse $n/local 1 "local after only bad cluster_keys"
put $c/cluster_key "$key"
ok "cluster_key taken"
get $c/security integrity
refuse $c/security tls "security tls"
refuse $c/security "" "an empty security"
put $c/security encrypt
get $c/security encrypt
put $c/security none
put $c/security integrity
ok "security is integrity by default, and takes encrypt and none"

# This node becomes local; the cluster is then live.
put $n/local 1
get $n/local 1
dmesg | grep -q "r2net: node $mynum listening on $myaddr:" ||
	fail "no 'node $mynum listening on $myaddr' in dmesg"
ok "node $me is local and listening"
put $n/local 1
refuse $s/local 1 "a second local node"
refuse $n/num 222 "num of the local node"
refuse $n/ipv4_port 1234 "port of the local node"
refuse $n/ipv4_address 10.9.9.9 "address of the local node"
refuse $s/num 202 "num of a node while the cluster is live"
refuse $c/idle_timeout_ms 60000 "idle timeout while live"
refuse $c/keepalive_delay_ms 1000 "keepalive while live"
refuse $c/reconnect_delay_ms 1000 "reconnect delay while live"
refuse_key "$key" "any value while live"
refuse $c/security encrypt "security while live"
! dmesg | grep -qi "$key\|$(echo "$key" | cut -c1-16)" ||
	fail "the cluster key is in the kernel log"
ok "the cluster key is nowhere in the kernel log"
# A node added while live can still be set up.
mkdir $c/node/late || fail "mkdir node late while live"
put $c/node/late/ipv4_port 7778
put $c/node/late/ipv4_address 10.77.1.202
put $c/node/late/num 202
ok "a node can be added while the cluster is live"
rmmod r2net 2>/dev/null && fail "rmmod r2net succeeded with a cluster configured"
ok "rmmod is refused while the cluster exists"

# Clearing local unfreezes; setting it again and removing the node clears it.
put $n/local 0
get $n/local 0
put $c/reconnect_delay_ms 2500
put $n/local 1
rmdir $c/node/spare $c/node/late || fail "rmdir spare nodes"
rmdir $n || fail "rmdir the local node"
dmesg | grep -q "local node $mynum ($me) cleared" || fail "removing the local node did not clear it"
dmesg | grep -q "r2net: node $mynum stopped; every connection is closed" ||
	fail "r2net did not stop when the local node went"
while read -r name num addr port; do
	[ -d $c/node/$name ] || continue
	rmdir $c/node/$name || fail "rmdir node $name"
done < /run/r2nodes
rmdir $c || fail "rmdir cluster $cluster"
[ -d $c ] && fail "cluster $cluster still there"
ok "nodes and cluster removed"

rmmod r2net || fail "rmmod r2net"
[ -d $r2 ] && fail "$r2 still there after rmmod"
insmod $ko || fail "insmod r2net again"
mkdir $c || fail "mkdir cluster after reload"
get $c/idle_timeout_ms 30000
rmdir $c || fail "rmdir cluster after reload"
rmmod r2net || fail "rmmod r2net again"
ok "r2net unloads and loads again"

# ramsterctl does the same from /etc/ramster.conf in one command.
insmod $ko || fail "insmod r2net for ramsterctl"
ramsterctl configure || fail "ramsterctl configure"
ramsterctl status > /run/status.out || fail "ramsterctl status"
cat /run/status.out
grep -q "^$RAMSTER_NODE .* local " /run/status.out || fail "status does not show $RAMSTER_NODE as local"
get $c/node/$RAMSTER_NODE/local 1
ramsterctl configure 2>/dev/null && fail "a second configure was accepted"
ramsterctl unconfigure || fail "ramsterctl unconfigure"
[ -d $c ] && fail "cluster $cluster still there after unconfigure"
rmmod r2net || fail "rmmod r2net after ramsterctl"
ok "ramsterctl configures, shows and removes the cluster"
