# r2net-inject: r2net refuses bad frames, bad handshakes (another key, a
# replayed one), a flood of idle connections and a stranger, counts each
# under its reason, closes a peer that sends requests and never reads the
# replies, and keeps serving its real peers meanwhile.
#
# Every node adds a "ghost" node 0 at 10.77.2.200 to /etc/ramster.conf;
# nobody connects to it (it has the lowest number) and it never connects.
# The lowest-numbered real node, the injector, takes the ghost's address
# and a stranger's (10.77.2.201) and runs r2inject as the ghost against
# the highest-numbered node, the target, which then checks its counters.
# Nodes tell each other how far they are on TCP port 7100 (phase lines).
r2d=/sys/kernel/debug/r2net
echo_run=/sys/kernel/debug/r2echo/run
mods=/lib/modules/ramster
conf=/etc/ramster.conf
ghost=10.77.2.200
stranger=10.77.2.201
timeouts=4000,1000,1000
phase_port=7100

# Phases: each node serves its phase lines; the others poll them.
: > /run/phase
printf '#!/bin/sh\ncat /run/phase\n' > /run/phase.sh
chmod +x /run/phase.sh
nc -ll -p $phase_port -e /run/phase.sh &
stay
phase() { echo "$*" >> /run/phase; }
# A failure says so to the nodes waiting for this one, then fails the job.
fail() {
	phase failed
	echo "FAIL: $*"
	result "FAIL $*"
	exit 1
}
# wait_phase NODE WORD SECONDS: until NODE's phase lines have WORD.
wait_phase() {
	t=0
	until nc -w 2 "$(ip_of "$1")" $phase_port < /dev/null > /run/their.phase 2> /dev/null &&
		grep -q "^$2\$" /run/their.phase; do
		! grep -q '^failed$' /run/their.phase ||
			fail "node $1 failed before phase '$2'; see its results"
		t=$((t + 1))
		[ $t -lt "$3" ] || fail "node $1 not at phase '$2' after $3 s"
		sleep 1
	done
}

[ -r $conf ] || fail "no $conf in the initramfs"
me=$RAMSTER_NUMBER
cluster=$(awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	c && $1 == "name" { print $3; exit }' $conf)
# "number address" of every node, lowest number first.
awk '/^[a-z]+:/ { n = ($1 == "node:") } n && $1 == "number" { num = $3 }
	n && $1 == "ip_address" { ip = $3 }
	n && num != "" && ip != "" { print num, ip; num = ip = "" }' $conf |
	sort -n > /run/nodes
[ "$(wc -l < /run/nodes)" -ge 3 ] || fail "want 3 nodes or more in $conf"
injector=$(head -n 1 /run/nodes | cut -d' ' -f1)
target=$(tail -n 1 /run/nodes | cut -d' ' -f1)
ip_of() { awk -v n="$1" '$1 == n { print $2 }' /run/nodes; }
peers=$(awk -v me="$me" '$1 != me { print $1 }' /run/nodes)
[ "$injector" != 0 ] || fail "$conf has a node 0 already; the ghost needs it"

# The ghost and short timeouts, the same on every node.  (The file has
# the cluster key: its copies are 0600 too.)
umask 077
awk -v ghost=$ghost -v cl="$cluster" -v t=$timeouts '
	/^cluster:/ { print; c = 1; split(t, v, ",")
		print "\tidle_timeout_ms = " v[1]
		print "\tkeepalive_delay_ms = " v[2]
		print "\treconnect_delay_ms = " v[3]; next }
	/^[a-z]+:/ { c = 0 }
	c && $1 == "node_count" { print "\tnode_count = " $3 + 1; next }
	{ print }
	END { printf "node:\n\tip_port = 7777\n\tip_address = %s\n\tnumber = 0\n" \
		"\tname = ghost\n\tcluster = %s\n\trole = client\n", ghost, cl }
	' $conf > /run/ramster.conf
cp /run/ramster.conf $conf

# st NODE NAME: a counter of nodes/NODE; snap FILE, delta FILE NAME.
# (kv, lib.sh: read in the shell, as the echo loop runs all along.)
st() { kv $r2d/nodes/"$1" "$2"; }
snap() { for n in 0 $peers; do cat $r2d/nodes/$n > /run/base.$n; done
	cat $r2d/listener > /run/base.listener; }
was() { kv /run/base."$1" "$2"; }
delta() { echo $(( $(st "$1" "$2") - $(was "$1" "$2") )); }
ldelta() { echo $(( $(kv $r2d/listener "$1") - $(was listener "$1") )); }

insmod $mods/r2net.ko || fail "insmod r2net"
have_echo=
if [ -f $mods/r2echo.ko ]; then
	insmod $mods/r2echo.ko || fail "insmod r2echo"
	have_echo=1
fi
ramsterctl configure || fail "ramsterctl configure"
v=$(cat /sys/kernel/config/r2net/"$cluster"/idle_timeout_ms)
[ "$v" = "${timeouts%%,*}" ] ||
	fail "idle_timeout_ms is $v, not ${timeouts%%,*} from $conf"
t=0
for p in $peers; do
	until [ "$(st "$p" state)" = up ]; do
		t=$((t + 1))
		[ $t -lt 120 ] || fail "node $p not up after 120 s: $(tr '\n' ' ' < $r2d/nodes/"$p")"
		sleep 1
	done
done
ok "peers $(echo $peers) up; ghost node 0 added, timeouts $timeouts"
snap
phase up

# Real traffic while the injection runs: echoes to every peer, all checked.
echo_loop() {
	n=0
	echo 0 > /run/echo.n
	while [ ! -e /run/echo.stop ]; do
		for p in $peers; do
			if ! echo "sync $p 1024 20" > $echo_run; then
				echo "sync $p refused" >> /run/echo.err
				sleep 1
				continue
			fi
			got= bad=0 res=
			while read -r k v; do
				res="$res $k $v"
				case $k in
				ok) got=$v ;;
				errors|mismatches) bad=$((bad + v)) ;;
				esac
			done < $echo_run
			[ "$got" = 20 ] && [ "$bad" = 0 ] ||
				echo "$res" >> /run/echo.err
			n=$((n + ${got:-0}))
			echo $n > /run/echo.n
		done
		# Traffic, not a load: leave the CPU to the checks.
		sleep 0.5
	done
	: > /run/echo.done
}
[ -n "$have_echo" ] && { echo_loop & }

if [ "$me" = "$injector" ]; then
	ip addr add $ghost/24 dev eth0 || fail "ip addr add $ghost"
	ip addr add $stranger/24 dev eth0 || fail "ip addr add $stranger"
	wait_phase "$target" ready 300
	to=$(ip_of "$target"):7777
	# The key, for the ghost's handshakes: never on a command line.
	(umask 077; awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
		c && $1 == "cluster_key" { print $3 }' $conf > /run/key)
	[ -s /run/key ] || fail "no cluster_key in $conf"
	sec=$(cat /sys/kernel/config/r2net/"$cluster"/security)
	as_ghost="-b $ghost -c $cluster -s 0 -r $target -T $timeouts -k /run/key -S $sec"
	# inject ARGS...: r2inject must exit 0; its line goes to the results.
	inject() {
		out=$(r2inject "$@" 2>&1) || fail "r2inject $*: $out"
		echo "$out"
		ok "$(echo "$out" | tail -n 1)"
	}
	for c in bad-magic bad-version too-long truncated unknown-type bad-key \
		mismatched-handshake wrong-key replayed-handshake forged-frame \
		replayed-frame; do
		inject $as_ghost $c "$to"
	done
	inject -b $stranger not-a-node "$to"
	inject $as_ghost -n 64 flood "$to"
	refused=$(echo "$out" | sed -n 's/.* \([0-9]*\) closed at once.*/\1/p')
	# Requests without end, no reply read: closed once its replies have
	# waited the idle timeout (4 s) to go out, the real peers served.
	# (After the flood, whose closes "at once" it would slow.)
	inject $as_ghost -w 20000 never-read "$to"
	# After the flood, the ghost's handshake must be taken again.
	inject $as_ghost garbage-after-handshake "$to"
	phase "flood_refused $refused"
	phase injected
fi

if [ "$me" = "$target" ]; then
	phase ready
	wait_phase "$injector" injected 300
	grep '^flood_refused ' /run/their.phase > /run/refused
	refused=$(cut -d' ' -f2 /run/refused)
	sleep 1
	cat $r2d/nodes/0 $r2d/listener
	# One rejection per case; garbage after the handshake is a bad magic;
	# a wrong key, a replayed handshake, a forged and a replayed frame
	# fail their MACs.
	seen=
	for w in truncated:1 bad_magic:2 bad_version:1 bad_type:1 bad_flags:0 \
		too_long:1 bad_length:0 bad_status:0 bad_key:1 bad_payload:0 \
		handshake:1 direction:0 duplicate:0 unexpected:0 auth:4; do
		d=$(delta 0 rejected_${w%:*})
		[ "$d" = "${w#*:}" ] ||
			fail "node 0 rejected_${w%:*} rose by $d, want ${w#*:}"
		[ "$d" = 0 ] || seen="$seen ${w%:*} +$d"
	done
	ok "node 0 rejected:$seen (one per case; the garbage is a bad_magic), nothing else"
	[ "$(delta 0 connects)" = 5 ] ||
		fail "node 0 connects rose by $(delta 0 connects), want 5 (the handshakes before the replay, the forged and replayed frames, the one that never read and the garbage)"
	# The stalled reply's send fails too when the link is shut.
	[ "$(delta 0 send_errors)" -ge 1 ] ||
		fail "node 0 send_errors rose by $(delta 0 send_errors), want 1 or more (the connection that never read)"
	dmesg | grep -q "node 0 ($ghost): it read none of .* for ${timeouts%%,*} ms.*; closing the connection" ||
		fail "no log line of node 0's connection closed for never reading"
	[ "$(st 0 state)" != up ] || fail "node 0 is still up after its garbage"
	dmesg | grep -q "node 0 ($ghost): its AUTH is wrong: a handshake replayed" ||
		fail "no log line naming $ghost and the replayed handshake"
	ok "node 0's five good handshakes were taken; its replay, wrong key, forged and replayed frames and garbage were not; the one that never read was closed"
	[ "$(ldelta refused_unknown_address)" = 1 ] ||
		fail "listener refused_unknown_address rose by $(ldelta refused_unknown_address), want 1 (the stranger)"
	d=$(ldelta refused_too_many_pending)
	[ "$d" -ge 1 ] && [ "$d" = "$refused" ] ||
		fail "listener refused_too_many_pending rose by $d, want the $refused the flood saw closed at once"
	p=$(kv $r2d/listener pending)
	[ "$p" = 0 ] || fail "listener pending is $p after the flood's connections were closed"
	ok "listener refused the stranger and $d flood connections, none left pending"
	phase checked
else
	wait_phase "$target" checked 400
fi

# Every node: the real peers stayed up, without a disconnect, and were served.
for p in $peers; do
	[ "$(st "$p" state)" = up ] || fail "node $p is $(st "$p" state), want up"
	[ "$(delta "$p" disconnects)" = 0 ] && [ "$(delta "$p" connects)" = 0 ] ||
		fail "node $p: $(delta "$p" disconnects) disconnects, $(delta "$p" connects) connects during the injection"
	[ $(( $(delta "$p" msgs_rx) + $(delta "$p" keepalives_rx) )) -gt 0 ] ||
		fail "node $p sent nothing (no message, no keepalive) during the injection"
	ok "node $p up throughout: msgs_rx +$(delta "$p" msgs_rx), keepalives_rx +$(delta "$p" keepalives_rx)"
done
if [ -n "$have_echo" ]; then
	: > /run/echo.stop
	t=0
	until [ -e /run/echo.done ]; do
		t=$((t + 1))
		[ $t -lt 120 ] || fail "the echo loop did not stop"
		sleep 1
	done
	[ ! -s /run/echo.err ] || fail "echoes failed: $(head -c 400 /run/echo.err)"
	[ "$(cat /run/echo.n)" -gt 0 ] || fail "no echo came back"
	ok "$(cat /run/echo.n) echoes to $(echo $peers) verified"
fi
