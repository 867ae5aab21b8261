# bench-r2net: r2net's echo (r2echo.ko) beside a plain userspace TCP
# ping-pong (tcpping) between the same two guests; bench/r2net.sh runs it.
# The memory server answers (r2echo, "tcpping server", and its /proc/stat
# through nc) and stays up.  The first client measures against it, ROUNDS
# times: back-to-back ICMP pings; TCP 1 B inside itself (lo); synchronous
# echoes of 0, 1, 33 and 4096 bytes and of tmem pages (4128 bytes); 4 KiB
# messages with 64 and 256 in flight; each through r2net and through
# tcpping, in turns first.  Every echo is checked; one wrong echo fails
# the job.  Each measurement is a results line "BENCH round=R impl=I
# test=T name=value...", with the CPU time and context switches per
# message on both guests above their idle baseline.
# ramster.bench=ROUNDS,SYNC,ASYNC on the kernel command line sets the
# rounds and the messages per sync and per throughput measurement.
r2e=/sys/kernel/debug/r2echo
r2n=/sys/kernel/debug/r2net
port=7778 stats_port=7779

rounds=3 nsync=1000 nasync=10000 nping=500
for arg in $(cat /proc/cmdline); do
	case $arg in
	ramster.bench=*)
		v=${arg#*=}
		rounds=${v%%,*} v=${v#*,}
		nsync=${v%%,*} nasync=${v#*,}
		;;
	esac
done
for v in "$rounds" "$nsync" "$nasync"; do
	case $v in
	''|*[!0-9]*|0)
		fail "ramster.bench=$rounds,$nsync,$nasync: want ROUNDS,SYNC,ASYNC, numbers above 0" ;;
	esac
done
# Its scans take seconds of CPU under TCG; init still scans after the job.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off > /sys/kernel/debug/kmemleak

# conf_nodes: "number role address" for every node of /etc/ramster.conf.
conf_nodes() {
	awk '/^node:/ { if (n != "") print n, r, a; n = r = a = ""; next }
		$1 == "number" { n = $3 } $1 == "role" { r = $3 }
		$1 == "ip_address" { a = $3 }
		END { if (n != "") print n, r, a }' /etc/ramster.conf
}

[ -r /etc/ramster.conf ] || fail "no /etc/ramster.conf in the initramfs"
me=$RAMSTER_NUMBER
server=$(conf_nodes | awk '$2 == "memory-server" { print $1; exit }')
measurer=$(conf_nodes | awk '$2 == "client"' | sort -n | awk '{ print $1; exit }')
[ -n "$server" ] && [ -n "$measurer" ] ||
	fail "the bench needs a memory-server and a client in /etc/ramster.conf"
server_ip=$(conf_nodes | awk -v s="$server" '$1 == s { print $3 }')

insmod /lib/modules/ramster/r2net.ko || fail "insmod r2net"
insmod /lib/modules/ramster/r2echo.ko ||
	fail "insmod r2echo: is tests/r2echo/r2echo.ko in the image (MODULES)?"
ramsterctl configure || fail "ramsterctl configure"
command -v tcpping >/dev/null || fail "no tcpping in the image (GUEST_BINS)"

# state NODE: r2net's state for NODE.
state() {
	awk '$1 == "state" { print $2 }' "$r2n/nodes/$1"
}

# snap: seconds up, context switches and CPU jiffies (busy, user, sys,
# softirq, idle) from "/proc/uptime /proc/stat" on stdin, one line.
snap() {
	awk 'NR == 1 { t = $1 } $1 == "ctxt" { c = $2 }
		$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8; u = $2 + $3; s = $4
			q = $8; i = $5 + $6 }
		END { if (c != "") print t, c, b, u, s, q, i }'
}

# both: this node's snap and the server's (through nc; see stats_port).
both() {
	cat /proc/uptime /proc/stat | snap
	nc -w 10 "$server_ip" $stats_port < /dev/null | snap
}

# delta BEFORE MSGS RATE: per message, for this node (c_) and the server
# (s_), the CPU time (us: the busy share of the run over the message rate)
# and the context switches, both above the idle baseline, and the run's
# user, sys, softirq and idle shares (%).
delta() {
	printf '%s\n%s\n%s\n' "$base" "$1" "$(both)" | awk -v m="$2" -v rate="$3" '
		{ for (i = 1; i <= 7; i++) v[NR, i] = $i }
		function d(r, i) { return v[r + 2, i] - v[r, i] }
		function pos(x) { return x > 0 ? x : 0 }
		END { split("c s", who, " ")
			for (w = 1; w <= 2; w++) {
				r = w + 2; t = d(r, 1); all = d(r, 3) + d(r, 7)
				if (all < 1) all = 1
				printf "%s_cpu_us=%d %s_ctxt=%.1f %s_user=%d %s_sys=%d %s_softirq=%d %s_idle=%d ",
					who[w], rate ? pos(d(r, 3) / all - v[w, 3]) * 1e6 / rate : 0,
					who[w], pos(d(r, 2) - t * v[w, 2]) / m,
					who[w], 100 * d(r, 4) / all, who[w], 100 * d(r, 5) / all,
					who[w], 100 * d(r, 6) / all, who[w], 100 * d(r, 7) / all
			} }'
}

if [ "$me" = "$server" ]; then
	tcpping server -q "$server_ip:$port" &
	printf '#!/bin/sh\ncat /proc/uptime /proc/stat\n' > /run/stat
	chmod +x /run/stat
	nc -ll -p $stats_port -e /run/stat &
	stay
	ok "node $me serves: r2echo, tcpping on $server_ip:$port, /proc/stat on $stats_port"
	exit 0
fi
if [ "$me" != "$measurer" ]; then
	stay
	ok "node $me idles"
	exit 0
fi

# Latencies need a fine clock: the TSC, not jiffies (bench/r2net.sh passes
# tsc_early_khz for that).
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
[ "$cs" = tsc ] ||
	fail "the clock is $cs, not tsc: latencies would come in 4 ms steps; boot with tsc_early_khz=<host TSC kHz> tsc=reliable"
t=0
until [ "$(state "$server")" = up ]; do
	t=$((t + 1))
	[ $t -le 600 ] || fail "node $server is '$(state "$server")' after 120 s"
	sleep 0.2
done
t=0
until tcpping client -n 1 -w 0 "$server_ip:$port" >/dev/null 2>&1; do
	t=$((t + 1))
	[ $t -le 60 ] || fail "no tcpping server at $server_ip:$port after 60 s"
	sleep 1
done
t=0
until [ "$(both | wc -l)" = 2 ]; do
	t=$((t + 1))
	[ $t -le 30 ] || fail "no /proc/stat from $server_ip:$stats_port after 30 s"
	sleep 1
done
# The idle baseline: context switches per second and the busy share.
before=$(both)
sleep 10
base=$(printf '%s\n%s\n' "$before" "$(both)" | awk '{ v[NR] = $0 }
	END { for (i = 1; i <= 2; i++) {
		split(v[i], a, " "); split(v[i + 2], b, " "); t = b[1] - a[1]
		print 0, (b[2] - a[2]) / t, (b[3] - a[3]) / (b[3] - a[3] + b[7] - a[7]),
			0, 0, 0, 0 } }')
result "BENCH-BASE" $(echo "$base" | awk '{ printf "%s_ctxt_per_s=%d %s_busy=%.1f%% ",
	NR == 1 ? "c" : "s", $2, NR == 1 ? "c" : "s", 100 * $3 }')
ok "node $me measures against node $server ($server_ip): $rounds rounds," \
	"$nsync sync and $nasync async messages each; kernel $(uname -r)"
result "BENCH-INFO kernel=$(uname -r) clock=$cs server=$server measurer=$me" \
	"rounds=$rounds sync=$nsync async=$nasync"

# val FILE NAME: a "name value" line's value.
val() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { exit !f }' "$1" ||
		fail "no $2 in $(cat "$1")"
}

# r2 ROUND TEST CMD...: one r2echo command; every echo must be right.
r2() {
	round=$1 test=$2
	shift 2
	before=$(both)
	echo "$*" > $r2e/run || fail "r2echo refused '$*'"
	cat $r2e/run > /run/r2.out || fail "cannot read the result of '$*'"
	count=$(val /run/r2.out count)
	if [ "$(val /run/r2.out ok)" != "$count" ] ||
	   [ "$(val /run/r2.out errors)" != 0 ] ||
	   [ "$(val /run/r2.out mismatches)" != 0 ] ||
	   [ "$(val /run/r2.out lost)" != 0 ] ||
	   [ "$(val /run/r2.out duplicates)" != 0 ]; then
		cat /run/r2.out
		fail "r2net $test: wrong echoes:" $(tr '\n' ' ' < /run/r2.out)
	fi
	result "BENCH round=$round impl=r2net test=$test count=$count" \
		"p50=$(val /run/r2.out lat_p50_us) p99=$(val /run/r2.out lat_p99_us)" \
		"max=$(val /run/r2.out lat_max_us) mps=$(val /run/r2.out msgs_per_s)" \
		"rtt_avg=$(awk '$1 == "rtt_avg_us" { print $2 }' "$r2n/nodes/$server")" \
		"$(delta "$before" "$count" "$(val /run/r2.out msgs_per_s)")"
}

# tcp ROUND TEST [lo] TCPPING-OPTIONS...: one tcpping client run, to the
# server or (lo) to this guest's own tcpping server.
tcp() {
	round=$1 test=$2 addr=$server_ip impl=tcp
	shift 2
	if [ "$1" = lo ]; then
		addr=127.0.0.1 impl=tcp-lo
		shift
	fi
	before=$(both)
	tcpping client -T 30000 "$@" "$addr:$port" > /run/tcp.out 2> /run/tcp.err
	rc=$?
	if [ $rc != 0 ]; then
		cat /run/tcp.out /run/tcp.err
		fail "tcpping $test (exit $rc): $(cat /run/tcp.err)"
	fi
	[ "$(val /run/tcp.out mismatches)" = 0 ] || fail "tcpping $test: wrong echoes"
	if grep -q '^sync_len ' /run/tcp.out; then
		p=sync_ count=$(val /run/tcp.out sync_ok)
	else
		p=tput_ count=$(val /run/tcp.out tput_ok)
	fi
	result "BENCH round=$round impl=$impl test=$test count=$count" \
		"p50=$(val /run/tcp.out ${p}lat_p50_us) p99=$(val /run/tcp.out ${p}lat_p99_us)" \
		"max=$(val /run/tcp.out ${p}lat_max_us) mps=$(val /run/tcp.out ${p}msgs_per_s)" \
		"$(delta "$before" "$count" "$(val /run/tcp.out ${p}msgs_per_s)")"
}

# icmp ROUND: ping's round trips, back to back; the server answers in its
# softirq, no task of its wakes up.
icmp() {
	before=$(both)
	ping -A -c "$nping" "$server_ip" > /run/ping.out 2>&1 ||
		fail "ping $server_ip: $(tail -n 3 /run/ping.out)"
	sed -n 's/.*time=\([0-9.]*\) ms.*/\1/p' /run/ping.out | sort -n > /run/ping.lat
	n=$(wc -l < /run/ping.lat)
	[ "$n" = "$nping" ] || fail "ping $server_ip: $n of $nping answers"
	lat=$(awk -v n="$n" '{ v[NR] = $1 * 1000; s += $1 / 1000 }
		END { a = int((n * 50 + 99) / 100); b = int((n * 99 + 99) / 100)
			printf "p50=%d p99=%d max=%d mps=%d", v[a], v[b], v[n],
				n / s }' /run/ping.lat)
	result "BENCH round=$1 impl=icmp test=sync-56 count=$n $lat" \
		"$(delta "$before" "$n" "${lat##*mps=}")"
}

# pair ROUND TEST R2ECHO-CMD -- TCPPING-OPTIONS: both, r2net first in odd
# rounds, TCP first in even ones, so that drift does not favour one.
pair() {
	round=$1 test=$2
	shift 2
	r2cmd=
	while [ "$1" != -- ]; do
		r2cmd="$r2cmd $1"
		shift
	done
	shift
	if [ $((round % 2)) = 1 ]; then
		r2 "$round" "$test" $r2cmd
		tcp "$round" "$test" "$@"
	else
		tcp "$round" "$test" "$@"
		r2 "$round" "$test" $r2cmd
	fi
}

# Plain TCP inside this guest, through lo: no virtio, no QEMU, no host.
tcpping server -q "127.0.0.1:$port" &
r=1
while [ $r -le "$rounds" ]; do
	icmp $r
	tcp $r sync-1 lo -l 1 -n "$nsync" -w 0
	pair $r sync-1 sync "$server" 1 "$nsync" -- -l 1 -n "$nsync" -w 0
	# The same bytes on the wire as r2net's 1 B echo; r2net's least.
	tcp $r sync-33 -l 33 -n "$nsync" -w 0
	r2 $r sync-0 sync "$server" 0 "$nsync"
	pair $r sync-4096 sync "$server" 4096 "$nsync" -- -l 4096 -n "$nsync" -w 0
	pair $r page page "$server" "$nsync" -- -l 4128 -n "$nsync" -w 0
	pair $r async-4096-w64 async "$server" 4096 "$nasync" 64 -- \
		-n 0 -s 4096 -w 64 -m "$nasync"
	pair $r async-4096-w256 async "$server" 4096 "$nasync" 256 -- \
		-n 0 -s 4096 -w 256 -m "$nasync"
	ok "round $r of $rounds done"
	r=$((r + 1))
done

bad=$(awk '/^rejected_|^timeouts |^send_errors |^late_replies |^no_handler |^disconnects |^in_flight / && $2 != 0' "$r2n/nodes/$server")
[ -z "$bad" ] || fail "node $server: r2net counts" $bad
ok "r2net to node $server: msgs_tx $(awk '$1 == "msgs_tx" { print $2 }' "$r2n/nodes/$server")," \
	"no rejects, timeouts, errors or disconnects"
