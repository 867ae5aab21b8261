# r2net-lib: helpers for the r2net-* jobs that echo through r2echo.ko
# (sourced by them; not a job of its own).
r2e=/sys/kernel/debug/r2echo
r2n=/sys/kernel/debug/r2net
# Short timeouts by default, so that a dead node is noticed in seconds; a
# job may set its own before sourcing this.
: "${idle_ms:=4000}" "${keepalive_ms:=1000}" "${reconnect_ms:=1000}"

# now_ms: CLOCK_BOOTTIME in ms (/proc/uptime, 10 ms steps), the clock of
# r2echo's events.
# ms_now sets ms to it without a subshell.
ms_now() {
	read -r up _ < /proc/uptime
	ms=$(( ${up%.*} * 1000 + 1${up#*.} * 10 - 1000 ))
}

now_ms() {
	ms_now
	echo $ms
}

# nstat NODE NAME: r2net's counter or state NAME for NODE (read in the
# shell: see sleep in lib.sh).
nstat() {
	while read -r nk nv; do
		[ "$nk" = "$2" ] && { echo "$nv"; return 0; }
	done < "$r2n/nodes/$1"
	fail "no $2 in $r2n/nodes/$1"
}

# wait_state NODE STATE SECONDS: until r2net shows NODE in STATE.
wait_state() {
	t=0
	while [ "$(nstat "$1" state)" != "$2" ]; do
		t=$((t + 1))
		[ $t -le $(($3 * 5)) ] ||
			fail "node $1 is '$(nstat "$1" state)' after $3 s, want '$2'"
		sleep 0.2
	done
}

# watch_gaps: in the background, note the longest time this guest took
# to come back from a 0.5 s sleep (a stalled vCPU shows here).
watch_gaps() {
	(
		ms_now
		prev=$ms max=0
		while sleep 0.5; do
			ms_now
			if [ $((ms - prev)) -gt $max ]; then
				max=$((ms - prev))
				echo "$max ms, ending at $ms ms" > /run/gap
			fi
			prev=$ms
		done
	) &
}

# diag: what r2net and TCP saw, on the console, for a failure's log.
diag() {
	echo "--- diag at $(now_ms) ms; longest sleep 0.5 s: $(cat /run/gap 2>/dev/null)"
	for f in "$r2n"/nodes/*; do
		echo "$f: $(awk '$2 != 0 { printf "%s %s  ", $1, $2 }' "$f")"
	done
	awk '/^(Tcp|TcpExt):/ { if (h[$1]) { for (i = 2; i <= NF; i++)
		if ($i != 0) printf "%s=%s ", n[$1, i], $i; print "" }
		else { h[$1] = 1; for (i = 2; i <= NF; i++) n[$1, i] = $i } }' \
		/proc/net/snmp /proc/net/netstat
	cat $r2e/events 2>/dev/null
}

# on_fail (see lib.sh): r2net's and TCP's view, and the NICs' drops and
# interrupts, for a link that went quiet.
on_fail() {
	diag
	cat /proc/net/dev
	grep -i -e virtio -e CPU0 /proc/interrupts
}

# r2net_up: load r2net and r2echo (r2net alone on Debian's kernel),
# configure the cluster of /etc/ramster.conf with the short timeouts, and
# wait until every other node is up.  Sets me (this node's number) and
# peers (the others').
r2net_up() {
	[ -r /etc/ramster.conf ] || fail "no /etc/ramster.conf in the initramfs"
	me=$RAMSTER_NUMBER
	[ -n "$me" ] || fail "RAMSTER_NUMBER is not set"
	peers=$(awk '/^node:/ { n = 1; next } /^[a-z]+:/ { n = 0 }
		n && $1 == "number" { print $3 }' /etc/ramster.conf | grep -vx "$me")
	[ -n "$peers" ] || fail "no other nodes in /etc/ramster.conf"
	# ramster.conf holds the cluster key: its copies are 0600 too.
	(umask 077
	awk -v i=$idle_ms -v k=$keepalive_ms -v r=$reconnect_ms '{ print }
		/^cluster:/ { print "\tidle_timeout_ms = " i
			print "\tkeepalive_delay_ms = " k
			print "\treconnect_delay_ms = " r }' /etc/ramster.conf > /run/conf)
	cat /run/conf > /etc/ramster.conf
	insmod /lib/modules/ramster/r2net.ko || fail "insmod r2net"
	# r2echo.ko is built for the project's kernels only: an image for
	# Debian's kernel (/lib/modules/stock) has r2net and the backend.
	[ -e /lib/modules/stock/load.list ] ||
		insmod /lib/modules/ramster/r2echo.ko || fail "insmod r2echo"
	ramsterctl configure || fail "ramsterctl configure"
	c=$(ls -d /sys/kernel/config/r2net/*/)
	[ "$(cat "$c/idle_timeout_ms")" = $idle_ms ] ||
		fail "idle_timeout_ms is $(cat "$c/idle_timeout_ms"), want $idle_ms from ramster.conf"
	watch_gaps
	t0=$(now_ms)
	for p in $peers; do
		# up_once=1: a peer that was up and left already will do (a
		# client that leaves as soon as it sees this node come back).
		t=0
		until [ "$(nstat "$p" state)" = up ] ||
			{ [ "${up_once:-0}" = 1 ] && [ "$(nstat "$p" connects)" -ge 1 ]; }; do
			t=$((t + 1))
			[ $t -le 600 ] ||
				fail "node $p is '$(nstat "$p" state)' after 120 s, want 'up'"
			sleep 0.2
		done
	done
	ok "node $me: r2net up with $(echo $peers) after $(($(now_ms) - t0)) ms (idle $idle_ms ms)"
}

# echo_run CMD...: one r2echo command; its result goes to /run/echo.out.
echo_run() {
	echo "$*" > $r2e/run || fail "r2echo refused '$*'"
	cat $r2e/run > /run/echo.out || fail "cannot read the result of '$*'"
}

# val NAME: a value of the last result.
val() {
	awk -v k="$1" '$1 == k { print $2 }' /run/echo.out
}

summary() {
	awk '{ v[$1] = $2 }
		END { printf "ok %s/%s errors %s (first %s) mismatches %s lost %s duplicates %s, p50 %s p99 %s max %s us, %s msgs/s\n",
			v["ok"], v["count"], v["errors"], v["first_error"],
			v["mismatches"], v["lost"], v["duplicates"],
			v["lat_p50_us"], v["lat_p99_us"], v["lat_max_us"],
			v["msgs_per_s"] }' /run/echo.out
}

# echo_ok CMD...: every echo of the command must have come back right.
# One awk checks and sums it up: see sleep in lib.sh.
echo_ok() {
	echo_run "$@"
	if ! sum=$(awk '{ v[$1] = $2 }
		END { s = "ok " v["ok"] "/" v["count"] " errors " v["errors"] \
			" (first " v["first_error"] ") mismatches " v["mismatches"] \
			" lost " v["lost"] " duplicates " v["duplicates"] \
			", p50 " v["lat_p50_us"] " p99 " v["lat_p99_us"] \
			" max " v["lat_max_us"] " us, " v["msgs_per_s"] " msgs/s"
			print s
			exit !(v["count"] != "" && v["ok"] == v["count"] &&
				v["errors"] == 0 && v["mismatches"] == 0 &&
				v["lost"] == 0 && v["duplicates"] == 0) }' /run/echo.out); then
		cat /run/echo.out
		diag
		fail "$*: $sum"
	fi
	ok "$*: $sum"
}

# events_last KIND NODE: the time of the last "KIND NODE MS" event, or
# nothing.
events_last() {
	awk -v k="$1" -v n="$2" '$1 == k && $2 == n { t = $3 }
		END { if (t != "") print t }' $r2e/events
}

# no_leaks: a kmemleak scan (init skips it on nodes that stay up).
no_leaks() {
	kl=/sys/kernel/debug/kmemleak
	[ -w $kl ] || return 0
	# kmemleak reports an object that no scan finds a pointer to once
	# it is 5 s old when the scan starts: one scan after 5 s reports
	# every leak the job made; a second scan would only add objects made
	# since, and each takes minutes on the debug kernel under TCG.
	sleep 5
	echo scan > $kl
	if grep -q unreferenced $kl; then
		head -n 40 $kl
		fail "kmemleak reports leaks"
	fi
	ok "no kmemleak reports"
	# Every caller exits next: init need not scan again.
	: > /run/leaks-scanned
}
