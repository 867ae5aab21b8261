# demo: the main job (scripts/demo.sh).  Every node configures r2net from
# /etc/ramster.conf and stays up for the user to look at.  A memory server
# loads the backend; a client turns on its swap disk and loads the
# frontend (target: the first memory server).  Both report their counters
# ("STATUS name=value...", for ramster-cluster status) whenever they
# change; the server's include the most pages it held and its page frames
# then.  The first client then runs "swapcheck timed MIB 0" (every page
# written, then every page read back and checked; ramster.demo=MIB,
# default 320, more than its RAM) and reports "DEMO client name=value...".
mib=320
for arg in $(cat /proc/cmdline); do
	case $arg in
	ramster.demo=*) mib=${arg#*=} ;;
	esac
done
case $mib in
''|*[!0-9]*) fail "ramster.demo=$mib: give the workload's size in MiB" ;;
esac
r2n=/sys/kernel/debug/r2net
be=/sys/kernel/debug/ramster_backend
fe=/sys/kernel/debug/ramster_frontend
ko=/lib/modules/ramster

# r2net_up: how many other nodes r2net has up.
r2net_up() {
	cat $r2n/nodes/* 2>/dev/null | grep -c '^state up'
}

insmod $ko/r2net.ko || fail "insmod r2net"
ramsterctl configure || fail "ramsterctl configure"
stay

if [ "$RAMSTER_ROLE" = memory-server ]; then
	insmod $ko/ramster_backend.ko || fail "insmod ramster_backend"
	ok "ramster_backend serves tmem"
	last= peak=0 frames=0
	while :; do
		l="r2net_up=$(r2net_up)"
		for k in stored_pages pool_pages puts get_hits; do
			l="$l $k=$(cat $be/$k)"
		done
		l="$l clients=$(grep -c pools $be/clients)"
		p=$(cat $be/stored_pages)
		[ "$p" -gt $peak ] && peak=$p frames=$(cat $be/pool_pages)
		l="$l peak_pages=$peak peak_frames=$frames"
		[ "$l" = "$last" ] || result "STATUS $l"
		last=$l
		sleep 1
	done &
	exit 0
fi

# The first memory server and the first client of the configuration.
first() {
	awk -v r="$1" '/^node:/ { n = ""; m = ""; next } /^[a-z]+:/ { n = "" }
		$1 == "name" { m = $3 } $1 == "number" { n = $3 }
		$1 == "role" && $3 == r && n != "" { print n, m; exit }' /etc/ramster.conf
}
set -- $(first memory-server)
srv=$1
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
t=0
until grep -q "^state up" $r2n/nodes/$srv 2>/dev/null; do
	t=$((t + 1))
	[ $t -le 600 ] || fail "memory server node $srv not up after 60 s"
	sleep 0.1
done
# Readahead by address (kernel patch 7) wants no rotational swap device.
echo 0 > /sys/block/vda/queue/rotational
swap_on
insmod $ko/ramster_frontend.ko target=$srv cleancache=0 ||
	fail "insmod ramster_frontend target=$srv"
t=0
until grep -q "swap type 0 pool [0-9]" $fe/swap_pools; do
	t=$((t + 1))
	[ $t -le 600 ] || fail "no pool on node $srv after 60 s"
	sleep 0.1
done
ok "swapping to memory server node $srv (and to /dev/vda: writethrough)"
# The client's counters, whenever they change.
last=
while :; do
	l="r2net_up=$(r2net_up) target=$srv"
	for k in remote_puts remote_get_hits window_hits remote_put_failures \
		remote_get_misses lost_loads; do
		l="$l $k=$(cat $fe/$k)"
	done
	[ "$l" = "$last" ] || result "STATUS $l"
	last=$l
	sleep 1
done &
set -- $(first client)
[ "$2" = "$RAMSTER_NODE" ] || exit 0

# Windows of up to 32 neighbouring pages, each asked for in a few frames.
echo 5 > /proc/sys/vm/page-cluster
swapcheck timed $mib 0 > /run/sc.out 2>&1 ||
	{ cat /run/sc.out; fail "swapcheck: pages came back wrong"; }
l="mem_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)"
l="$l $(sed -n 's/^timed: //p' /run/sc.out)"
for k in remote_puts remote_get_hits window_hits remote_put_failures \
	remote_get_misses lost_loads; do
	l="$l $k=$(cat $fe/$k)"
done
result "DEMO client $l"
ok "$(head -n 1 /run/sc.out)"
