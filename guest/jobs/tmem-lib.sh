# tmem-lib: helpers for jobs that drive tmemclient.ko (sourced after
# r2net-lib.sh; not a job of its own).
tc=/sys/kernel/debug/tmemclient
ko=/lib/modules/ramster

# tc_run CMD...: one tmemclient command; its result goes to /run/tc.out.
tc_run() {
	echo "$*" > $tc/run || fail "tmemclient refused '$*'"
	cat $tc/run > /run/tc.out || fail "cannot read the result of '$*'"
}

# tval NAME: a value of the last result.
tval() {
	awk -v k="$1" '$1 == k { print $2 }' /run/tc.out
}

# One awk for what a step checks: on the debug kernel under TCG each
# process a job starts costs a good part of a second.
tsummary() {
	awk '{ v[$1] = $2 }
		END { printf "ok %s/%s missing %s errors %s (first %s) mismatches %s, %s pages/s, p50 %s p99 %s us\n",
			v["ok"], v["count"], v["missing"], v["errors"],
			v["first_status"], v["mismatches"], v["pages_per_s"],
			v["lat_p50_us"], v["lat_p99_us"] }' /run/tc.out
}

# tc_check "NAME=VALUE..." CMD...: the last result (of CMD) must have
# these values, and unless named otherwise ok = count and no misses,
# errors, mismatches, r2net errors, lost or duplicate completions.
tc_check() {
	bad=$(awk -v want="$1" '{ v[$1] = $2 }
		END {
			d = "ok=" v["count"] " missing=0 errors=0 mismatches=0"
			d = d " net_errors=0 lost=0 duplicates=0"
			n = split(want " " d, kv, " ")
			for (i = 1; i <= n; i++) {
				k = kv[i]
				sub(/=.*/, "", k)
				if (k in w)
					continue
				w[k] = substr(kv[i], length(k) + 2)
				if (v[k] "" != w[k] "")
					printf " %s %s (want %s)", k, v[k], w[k]
			}
		}' /run/tc.out)
	shift
	if [ -n "$bad" ]; then
		cat /run/tc.out
		diag
		fail "$*:$bad"
	fi
}

# tc_expect "NAME=VALUE..." CMD...: run CMD, then tc_check.
tc_expect() {
	want=$1
	shift
	tc_run "$@"
	tc_check "$want" "$@"
}

# memory_server: the number of the cluster's memory server.
memory_server() {
	awk '/^node:/ { n = ""; s = 0; next } /^[a-z]+:/ { s = 0 }
		$1 == "number" { n = $3 } $1 == "role" && $3 == "memory-server" { s = 1 }
		s && n != "" { print n; exit }' /etc/ramster.conf
}

# first_client: the number of the cluster's first client.
first_client() {
	awk '/^node:/ { n = ""; s = 0; next } /^[a-z]+:/ { s = 0 }
		$1 == "number" { n = $3 } $1 == "role" && $3 == "client" { s = 1 }
		s && n != "" { print n; exit }' /etc/ramster.conf
}

# node_ip NODE: the cluster address of node number NODE.
node_ip() {
	awk -v f="$1" '/^node:/ { n = ""; a = "" } $1 == "number" { n = $3 }
		$1 == "ip_address" { a = $3 } n == f && a != "" { print a; exit }' /etc/ramster.conf
}

# wait_ready NODE PORT SECONDS [NAME]: until NODE serves /NAME (default
# ready) on PORT (busybox httpd over the cluster's bridge: one client
# telling another it is done with a step); fail after SECONDS.
wait_ready() {
	wr_ip=$(node_ip "$1")
	[ -n "$wr_ip" ] || fail "no address for node $1 in /etc/ramster.conf"
	t=0
	until wget -q -O /run/ready "http://$wr_ip:$2/${4:-ready}" 2>/dev/null; do
		t=$((t + 1))
		[ $t -le "$3" ] || fail "node $1 ($wr_ip) did not say ${4:-ready} in $3 s"
		sleep 1
	done
}

# tc_pool NODE persistent|ephemeral: create a pool once the server has
# its tmem handlers (r2net answers -EOPNOTSUPP until it loads the
# backend); sets P to its id.
tc_pool() {
	t=0
	while tc_run pool "$1" "$2"; [ "$(tval first_net_error)" = -95 ]; do
		t=$((t + 1))
		[ $t -le 120 ] || fail "node $1 has no tmem handler after 120 s"
		sleep 1
	done
	tc_check "" pool "$1" "$2"
	P=$(tval status)
}

# not_up_for "NODE..." SECONDS LIMIT: until r2net has not seen any of
# the NODEs up for SECONDS in a row, each counted on its own, all in
# one wait; fail after LIMIT seconds.
not_up_for() {
	t=0
	for n in $1; do eval "gone_$n=0"; done
	while :; do
		left=
		for n in $1; do
			eval "g=\$gone_$n"
			[ "$g" -ge "$2" ] && continue
			if [ "$(nstat "$n" state)" = up ]; then g=0; else g=$((g + 1)); fi
			eval "gone_$n=$g"
			[ "$g" -ge "$2" ] || left="$left $n"
		done
		[ -n "$left" ] || return 0
		t=$((t + 1))
		[ $t -le "$3" ] || { diag; fail "node(s)$left still up after $3 s"; }
		sleep 1
	done
}

# serve_clients: a memory server's job: serve_start, then serve_finish.
# serve_start [PARAM=VALUE...]: load the backend with these module
# parameters.  serve_finish: serve until every other
# node has let go of r2net for 10 s running, run before_rmmod if the job
# defines it, unload the backend, and set served_line to its "served:"
# line (counts of what it did).
serve_clients() {
	serve_start
	serve_finish
}

serve_start() {
	insmod $ko/ramster_backend.ko "$@" || fail "insmod ramster_backend $*"
	ok "node $me: ramster_backend serves tmem to $(echo $peers)${1:+ ($*)}"
}

serve_finish() {
	not_up_for "$peers" 10 6000
	ok "node(s) $(echo $peers) done: r2net has not seen them up for 10 s"
	# What is gone with the module: how many pages the store evicted.
	evicted=$(cat /sys/kernel/debug/ramster_backend/evictions)
	! command -v before_rmmod >/dev/null || before_rmmod
	rmmod ramster_backend || fail "rmmod ramster_backend"
	served_line=$(dmesg | grep 'ramster_backend: served:' | tail -n 1)
	[ -n "$served_line" ] || fail "ramster_backend logged no 'served:' line"
	ok "${served_line#*ramster_backend: }"
}

# served NAME: a count from served_line.
served() {
	echo "$served_line" | awk -v k="$1" '{ for (i = 1; i < NF; i++)
		if ($i == k) { print $(i + 1); f = 1 } } END { exit !f }' ||
		fail "no $1 in '$served_line'"
}

# served_no_errors NAME...: each of these error counts is 0.
served_no_errors() {
	for k in "$@"; do
		[ "$(served $k)" = 0 ] || fail "$k is $(served $k): $served_line"
	done
}

# hold_pages N OUT: start "swapcheck hold N 3600" in the background (its
# pid in $hold, its output in OUT) and wait until its pages are out.
hold_pages() {
	: > $2		# not an earlier holder's line
	swapcheck hold $1 3600 > $2 2>&1 &
	hold=$!
	until grep -q "^hold:" $2; do
		kill -0 $hold 2>/dev/null || { cat $2; fail "swapcheck hold $1 ended early"; }
		sleep 0.5
	done
}

# local_tier_hold SERVER [PAGES]: the local tier (local_pool_percent,
# set) keeps a holder's PAGES (2000), below where remotify starts, and
# reading them back sends no GET for them (other processes' pages that
# the reclaim pushed out may come back from the server: at most a tenth
# of PAGES in GETs); set to 0, it sends what it holds on to SERVER, and
# the next holder reads its pages back from there (at most 50 loads from
# the tier after it is emptied, for other processes).  fe is the
# frontend's debugfs directory; cgroup2 must be on /sys/fs/cgroup
# (swapcheck hold then pushes the pages out of the swap cache).
local_tier_hold() {
	lt_n=${2:-2000}
	lt_most=$((lt_n * 9 / 10))
	lt_mark() { for v in local_stores local_loads remotified remote_gets; do
		eval "lt_$v=\$(cat $fe/$v)"; done; }
	lt_d() { eval "lt_v=\$lt_$1"; echo $(($(cat $fe/$1) - lt_v)); }
	lt_mark
	hold_pages $lt_n /run/hold.out
	[ $(lt_d local_stores) -ge $lt_most ] && [ $(lt_d remotified) -eq 0 ] ||
		fail "of $lt_n pages held, $(lt_d local_stores) kept here, $(lt_d remotified) sent on"
	kill -USR1 $hold
	wait $hold || { cat /run/hold.out; fail "held pages came back wrong from the local tier"; }
	[ $(lt_d local_loads) -ge $lt_most ] &&
		[ $(lt_d remote_gets) -le $((lt_n / 10)) ] ||
		fail "$lt_n held pages read back: $(lt_d local_loads) from here, $(lt_d remote_gets) GETs sent"
	ok "$lt_n held pages: $(lt_d local_stores) kept here, read back with $(lt_d local_loads) loads here and $(lt_d remote_gets) GETs"
	hold_pages $lt_n /run/hold.out
	lt_mark
	echo 0 > /sys/module/ramster_frontend/parameters/local_pool_percent ||
		fail "local_pool_percent=0"
	t=0
	until [ "$(cat $fe/local_pages)" = 0 ]; do
		t=$((t + 1))
		[ $t -le 120 ] || fail "local_pool_percent=0: $(cat $fe/local_pages) pages still here after 60 s"
		sleep 0.5
	done
	kill -USR1 $hold
	wait $hold || { cat /run/hold.out; fail "held pages came back wrong after the tier emptied"; }
	[ $(lt_d remotified) -ge $lt_most ] && [ $(lt_d local_loads) -le 50 ] &&
		[ $(lt_d remote_gets) -ge $lt_most ] ||
		fail "local_pool_percent=0: $(lt_d remotified) sent on, then $(lt_d local_loads) loads here, $(lt_d remote_gets) GETs"
	ok "local_pool_percent=0: the tier sent its $(lt_d remotified) pages on; the holder read them back from node $1"
}

# swapcheck_until PUTS SECS [MIB]: start "swapcheck pressure MIB 1" (512) in the
# background (its pid in $sc, its output in /run/sc.out) and wait until
# the frontend's remote_puts reaches PUTS; fail after SECS or if it ends.
swapcheck_until() {
	swapcheck pressure ${3:-512} 1 > /run/sc.out 2>&1 &
	sc=$!
	t=0
	until [ "$(cat /sys/kernel/debug/ramster_frontend/remote_puts)" -ge $1 ]; do
		t=$((t + 1))
		[ $t -le $(($2 * 2)) ] ||
			fail "the servers took only $(cat /sys/kernel/debug/ramster_frontend/remote_puts) pages in $2 s"
		kill -0 $sc 2>/dev/null || { cat /run/sc.out; fail "swapcheck ended early"; }
		sleep 0.5
	done
}

# The cleancache jobs' helpers; fe is the frontend's debugfs directory,
# d the filesystem's mount point.
# cc_verify FILE SEED PAGES GEN...: fcheck verify $d/FILE, failing the job.
cc_verify() {
	fcheck verify $d/"$@" || fail "$1: wrong data read back (fcheck verify $*)"
}

# fe_pool_ready LIST PATTERN COUNTER N: until the frontend's debugfs file
# LIST has a line matching PATTERN and its counter COUNTER is N or more.
fe_pool_ready() {
	t=0
	until grep -q "$2" $fe/$1 && [ "$(cat $fe/$3)" -ge "$4" ]; do
		t=$((t + 1))
		[ $t -le 120 ] || { cat $fe/$1; fail "no '$2' in $1 with $3 >= $4 after 120 s"; }
		sleep 1
	done
}

# cc_pool_ready N [shared]: until the filesystem has a server pool (a
# shared one), N made so far.
cc_pool_ready() {
	fe_pool_ready cleancache_pools "server pool [0-9]* ${2:-}" cc_pools_created "$1"
}

# stall_watch FUNC: in the background (pid in $stall_pid), call FUNC
# every 0.5 s; it sets sw_v to a count of progress (pages swapped, say).
# From its first move on, when the count stands still for 3 s or more,
# what was stuck is noted once in /run/stall.txt (r2net's and TCP's
# counters, the stacks of the r2net threads and workers and of every
# task in D state), and when it moves again "S ms without progress,
# ending at T ms" goes to /run/stalls.
stall_watch() {
	: > /run/stalls
	(
		$1
		last=$sw_v moved=0
		while sleep 0.5; do
			$1
			ms_now
			if [ "$sw_v" != "$last" ]; then
				[ $moved = 1 ] && [ $((ms - since)) -ge 3000 ] &&
					echo "$((ms - since)) ms without progress, ending at $ms ms" >> /run/stalls
				last=$sw_v since=$ms moved=1
			elif [ $moved = 1 ] && [ $((ms - since)) -ge 3000 ] &&
				[ ! -s /run/stall.txt ]; then
				stall_dump > /run/stall.txt 2>&1
			fi
		done
	) &
	stall_pid=$!
}

# stall_dump: what r2net, TCP and the tasks that wait look like now.
stall_dump() {
	ms_now
	echo "at $ms ms: $(awk '/^MemAvailable:/ { print $2 " kB available" }' /proc/meminfo)"
	for f in $r2n/nodes/*; do echo "$f: $(tr '\n' ' ' < $f)"; done
	grep -A1 '^Tcp:' /proc/net/snmp | tail -n 1
	for p in /proc/[0-9]*; do
		read -r _ c s _ < $p/stat 2>/dev/null || continue
		case "$c $s" in
		*r2net* | *" D")
			echo "$c $s: $(sed 's/+0x[0-9a-f/x]*//' $p/stack 2>/dev/null | awk '{ printf "%s ", $2 }')"
			;;
		esac
	done
}
