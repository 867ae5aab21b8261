#!/bin/bash
# ramsterctl against a plain directory standing in for r2net's configfs
# (-r): configure writes every node's ipv4_port, ipv4_address and num and
# only this node's local; status lists every node with its role (from
# the conf; '-' without one), state and counters from an emulated r2net
# debugfs (-d, or r2net under -D; '-' for a node without a file, or a
# file it cannot read), -v all counters; then, from emulated
# ramster_backend and ramster_frontend debugfs trees (-D) and module
# parameters (-M), a memory server's store and its clients named from the
# conf, a client's target, swap pools, counters and round trips, or
# "(not loaded)"; counter files missing, unreadable or garbled show '-'
# or '?' (also under ASan/UBSan); configure refuses a
# second time, a bad conf (2), an unknown node (2) and a missing root (1);
# a failure midway (a mkdir, or a write) leaves nothing behind; unconfigure
# removes it all.  The cluster timeouts from ramster.conf are written only
# when given, in an order r2net takes: a build of ramsterctl linked
# dynamically runs with fixtures/r2nm-timeouts-preload.c, which refuses
# the writes r2net refuses (keepalive not below idle) and logs them.
# share refuses a conf without shared_uuid, a node that is not a memory
# server and a missing ramster_backend (its write needs the module).
# The cluster key: configure writes the conf's cluster_key to
# CLUSTER/cluster_key (a new file 0600 here) after the timeouts and before
# any local (the preload library refuses local without it), shows it in
# no output, undoes all on a refused key write, and refuses (2) a conf
# without a key or with a malformed one, without showing the key.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# The unit tests' default.conf, with a cluster key in its cluster: stanza
# (line 4), as ramster-cluster up renders it.
key=$(printf '0123456789abcdef%.0s' 1 2 3 4)
nokey=tests/unit/fixtures/default.conf
conf=$tmp/default.conf
sed "s/^\tname = ramster\$/&\n\tcluster_key = $key/" $nokey >"$conf"

bad()
{
	echo "FAIL: $*"
	fail=1
}

make -s -C tools/ramsterctl ramsterctl conf-check CFLAGS="-O2 -g -Werror" ||
	{ echo "FAIL: ramsterctl does not build"; exit 1; }
rc=$top/tools/ramsterctl/ramsterctl

# run CMD...: sets $out (stdout+stderr) and $st (exit status).
run()
{
	set +e
	out=$("$@" 2>&1)
	st=$?
	set -e
}

"$rc" --help | grep -q unconfigure || bad "--help does not document unconfigure"
"$rc" --help | grep -q "share \[--deny\]" || bad "--help does not document share"
run "$rc"
[ $st = 2 ] || bad "no command: exit $st, want 2"

# configure
r=$tmp/r2net
mkdir "$r"
run "$rc" -c $conf -n client1 -r "$r" configure
[ $st = 0 ] || bad "configure: exit $st: $out"
n=$r/ramster/node
check()	# FILE WANT
{
	if [ ! -f "$1" ]; then
		bad "${1#"$r"/} missing"
	elif [ "$(cat "$1")" != "$2" ]; then
		bad "${1#"$r"/} reads '$(cat "$1")', want '$2'"
	fi
}
for spec in "ms0 0 10.77.0.10" "client1 1 10.77.0.11" "client2 2 10.77.0.12"; do
	set -- $spec
	check "$n/$1/ipv4_port" 7777
	check "$n/$1/ipv4_address" "$3"
	check "$n/$1/num" "$2"
done
check "$n/client1/local" 1
for o in ms0 client2; do
	[ -e "$n/$o/local" ] && [ "$(cat "$n/$o/local")" = 1 ] &&
		bad "$o/local is 1"
done
for a in idle_timeout_ms keepalive_delay_ms reconnect_delay_ms; do
	[ -e "$r/ramster/$a" ] && bad "$a written, but the conf gives none"
done
# the key, exactly as configfs takes it, in a file only root reads
printf '%s\n' "$key" | cmp -s - "$r/ramster/cluster_key" ||
	bad "ramster/cluster_key does not hold the key and a newline"
[ "$(stat -c %a "$r/ramster/cluster_key")" = 600 ] ||
	bad "ramster/cluster_key is mode $(stat -c %a "$r/ramster/cluster_key"), want 600"
case $out in *"$key"*) bad "configure printed the key: $out" ;; esac

# status, with debugfs emulated in $D (r2net's in $d = $D/r2net, found
# from -D) and /sys/module in $M: ms0 (0) has every counter, client1 is
# local (r2net shows no file for it), client2 (2) has no file; no tmem
# module is loaded.
D=$tmp/debugfs
d=$D/r2net
M=$tmp/module
mkdir -p "$d/nodes" "$M"
i=0
{
	echo "state up"
	for c in connects disconnects msgs_tx msgs_rx bytes_tx bytes_rx \
		 keepalives_tx keepalives_rx in_flight timeouts send_errors \
		 late_replies no_handler rejected_truncated rejected_bad_magic \
		 rejected_bad_version rejected_bad_type rejected_bad_flags \
		 rejected_too_long rejected_bad_length rejected_bad_status \
		 rejected_bad_key rejected_bad_payload rejected_handshake \
		 rejected_direction rejected_duplicate rejected_unexpected \
		 rtt_last_us rtt_avg_us rtt_max_us; do
		i=$((i + 1))
		echo "$c $((i * 1000 + i))"	# 1001, 2002, ...
	done
} >"$d/nodes/0"
printf 'pending 1\naccepted 7\nrefused_unknown_address 2\nrefused_too_many_pending 3\n' \
	>"$d/listener"
# the rejected_* are counters 14..27, timeouts and send_errors 10 and 11,
# in_flight 9, rtt_avg_us 29
rej=0
for i in $(seq 14 27); do rej=$((rej + i * 1001)); done
errs=$((10 * 1001 + 11 * 1001))
st_run()	# ARGS...: status with the default conf and fixture trees
{
	run "$rc" -c $conf -r "$r" -D "$D" -M "$M" "$@" status
}
st_run
[ $st = 0 ] || bad "status: exit $st: $out"
case $out in *"$key"*) bad "status printed the key: $out" ;; esac
for o in ms0 client1 client2; do
	echo "$out" | grep -q "^$o " || bad "status does not list $o: $out"
done
echo "$out" | grep -q "^cluster ramster " || bad "status has no cluster line: $out"
# NODE NUM ROLE ADDRESS LOCAL STATE MSGS_TX/RX BYTES_TX/RX IN_FLIGHT
# RTT_AVG_US REJECTED ERRORS
echo "$out" | grep -Eq "^NODE +NUM +ROLE +ADDRESS +LOCAL +STATE " ||
	bad "status header: $out"
echo "$out" | grep -Eq "^ms0 +0 +memory-server +10\.77\.0\.10:7777 +up +3003/4004 +5005/6006 +9009 +29029 +$rej +$errs\$" ||
	bad "status line of ms0 (memory-server, up, not local; rejected $rej, errors $errs): $out"
echo "$out" | grep -Eq '^client1 +1 +client +10\.77\.0\.11:7777 +local +- +- +- +- +- +- +-$' ||
	bad "status line of client1 (client, local, no counters): $out"
echo "$out" | grep -Eq '^client2 +2 +client +10\.77\.0\.12:7777 +- +- +- +- +- +- +-$' ||
	bad "status line of client2 (client, no debugfs file): $out"
echo "$out" | grep -qx "listener  pending 1  accepted 7  refused_unknown_address 2  refused_too_many_pending 3" ||
	bad "status listener line: $out"
echo "$out" | grep -qx "ramster_backend  (not loaded)" ||
	bad "status without ramster_backend does not say (not loaded): $out"
echo "$out" | grep -qx "ramster_frontend  (not loaded)" ||
	bad "status without ramster_frontend does not say (not loaded): $out"
echo "$out" | grep -q "^  " && bad "status without -v and tmem shows counters: $out"
# -v: every counter of ms0, in the file's order, under its name; none else
st_run -v
[ $st = 0 ] || bad "status -v: exit $st: $out"
[ "$(echo "$out" | sed -n '/^node ms0 (num 0):$/,/^[^ ]/p' | grep '^  ' |
     awk '{ print $1, $2 }')" = "$(cat "$d/nodes/0")" ] ||
	bad "status -v does not show every counter of ms0: $out"
echo "$out" | grep -q "^node client" && bad "status -v shows counters for a node without any: $out"
echo "$out" | grep -q "^ramster_.*:$" && bad "status -v shows a module that is not loaded: $out"
# without a conf: no roles, a note, and status still works; -d given
run "$rc" -c "$tmp/none.conf" -r "$r" -d "$d" -D "$tmp/none" status
[ $st = 0 ] || bad "status without a conf: exit $st: $out"
echo "$out" | grep -q "none.conf: cannot open.*roles not shown" ||
	bad "status without a conf does not say so: $out"
echo "$out" | grep -Eq "^ms0 +0 +- +10\.77\.0\.10:7777 +up " ||
	bad "status line of ms0 without a conf (role -): $out"
# a file r2net does not write like this, partial counters, no debugfs
printf 'garbage\n\001\002\nstate\nmsgs_tx x y z\n' >"$d/nodes/2"
printf 'state connecting\nmsgs_rx 5\nbytes_tx 9\nrejected_bad_key 1\nrejected_x nan\nsend_errors 4\n' >"$d/nodes/0"
rm "$d/listener"
run "$rc" -c $conf -r "$r" -d "$d" -D "$tmp/none" status
[ $st = 0 ] || bad "status with odd debugfs files: exit $st: $out"
echo "$out" | grep -Eq '^client2 +2 +client +10\.77\.0\.12:7777 +- +- +- +- +- +- +-$' ||
	bad "status line of client2 (a garbage file): $out"
echo "$out" | grep -Eq '^ms0 +0 +memory-server +10\.77\.0\.10:7777 +connecting +-/5 +9/- +- +- +1 +4$' ||
	bad "status line of ms0 (some counters): $out"
echo "$out" | grep -q "^listener" && bad "a listener line without the file: $out"
run "$rc" -c $conf -r "$r" -D "$tmp/none" -v status
[ $st = 0 ] || bad "status without debugfs: exit $st: $out"
[ "$(echo "$out" | grep -Ec ' +- +- +- +- +- +- +-$')" = 3 ] ||
	bad "status without debugfs does not show '-' for all: $out"
for o in -d -D -M; do
	run "$rc" $o "$D" -r "$r" -c $conf -n client1 configure
	[ $st = 2 ] || bad "$o with configure: exit $st, want 2"
done
run "$rc" -n client1 -r "$r" status
[ $st = 2 ] || bad "-n with status: exit $st, want 2"

# What this node does with tmem.  A memory server: ramster_backend's
# counters (one number a file) and its clients file, in $D/ramster_backend.
b=$D/ramster_backend
mkdir "$b"
counters()	# DIR NAME=VALUE...
{
	local dir=$1 kv
	shift
	for kv; do echo "${kv#*=}" >"$dir/${kv%%=*}"; done
}
counters "$b" stored_pages=196608 same_filled_pages=100 huge_pages=0 \
	compressed_bytes=805306368 pool_pages=65536 pool_total_size=268435456 \
	eph_pages=8 pers_pages=196600 objects=12289 pools=3 puts=200000 \
	evictions=5 clients_pending=0
printf '1 eph_pages 8 pers_pages 196600 pools 1\n2 eph_pages 0 pers_pages 0 pools 2\n9 eph_pages 1 pers_pages 2 pools 3\n' \
	>"$b/clients"
printf 'requests_put 200000\nerrors_eperm 0\n' >"$b/server"
mib=$(awk -v p=65536 -v s="$(getconf PAGESIZE)" 'BEGIN { printf "%.1f", p * s / 1048576 }')
st_run
[ $st = 0 ] || bad "status of a memory server: exit $st: $out"
echo "$out" | grep -qx "ramster_backend  memory server: the pages this node holds" ||
	bad "status of a memory server has no ramster_backend section: $out"
echo "$out" | grep -qx "  stored_pages 196608  pers_pages 196600  eph_pages 8  evictions 5" ||
	bad "the store's pages: $out"
echo "$out" | grep -qx "  compressed_bytes 805306368  pool_pages 65536 ($mib MiB)  pages_per_frame 3.00" ||
	bad "the store's frames ($mib MiB, 3.00 pages a frame): $out"
echo "$out" | grep -Eq '^  CLIENT +NUM +EPH_PAGES +PERS_PAGES +POOLS$' ||
	bad "no header of the clients: $out"
# named from the conf; one the conf and r2net do not know is '-'
echo "$out" | grep -Eq '^  client1 +1 +8 +196600 +1$' || bad "the line of client1: $out"
echo "$out" | grep -Eq '^  client2 +2 +0 +0 +2$' || bad "the line of client2: $out"
echo "$out" | grep -Eq '^  - +9 +1 +2 +3$' || bad "the line of node 9: $out"
echo "$out" | grep -qx "ramster_frontend  (not loaded)" ||
	bad "a memory server without ramster_frontend: $out"
# -v: every file of one number, sorted; not clients or server
st_run -v
[ "$(echo "$out" | sed -n '/^ramster_backend:$/,/^[^ ]/p' | grep '^  ' |
     awk '{ print $1, $2 }')" = "$(cd "$b" && grep -H . * | grep -v '^clients:\|^server:' |
     sort | tr ':' ' ')" ] || bad "status -v does not show every counter of ramster_backend: $out"
# the conf's names first: a conf with a node 9 that r2net does not have
sed 's/node_count = 3/node_count = 4/' $conf >"$tmp/four.conf"
printf 'node:\n\tname = client9\n\tnumber = 9\n\tip_address = 10.77.0.19\n\tcluster = ramster\n\trole = client\n' \
	>>"$tmp/four.conf"
run "$rc" -c "$tmp/four.conf" -r "$r" -D "$D" -M "$M" status
echo "$out" | grep -Eq '^  client9 +9 +1 +2 +3$' ||
	bad "node 9 is not named from the conf: $out"
echo "$out" | grep -Eq '^  client1 +1 +8 +196600 +1$' ||
	bad "client1 with a conf of four nodes: $out"
# else r2net's: without a conf, client1 is still named
run "$rc" -c "$tmp/none.conf" -r "$r" -D "$D" -M "$M" status
echo "$out" | grep -Eq '^  client1 +1 +8 +196600 +1$' ||
	bad "without a conf the clients are not named from r2net: $out"

# A client: ramster_frontend's counters, swap_pools and rtt, and its
# parameters in $M.  A memory server and client at once shows both.
f=$D/ramster_frontend
p=$M/ramster_frontend/parameters
mkdir -p "$f" "$p"
counters "$f" remote_puts=196608 remote_put_failures=0 remote_gets=50000 \
	remote_get_hits=49990 remote_get_misses=10 remote_get_failures=0 \
	remote_flushes=4 remote_in_flight=0 window_hits=7 window_lost=0 \
	lost_loads=0 pools_created=1 cc_puts=300 cc_put_failures=1 \
	cc_puts_dropped=2 cc_gets=40 cc_get_hits=30 cc_get_misses=10 \
	cc_flushes=6 cc_get_index_misses=8 cc_index_pages=250 \
	cc_prefetches=20 cc_prefetch_hits=17 cc_prefetch_unused=3 unregister=0 \
	put_rtt_us_max=9000
printf 'swap type 0 pool 3 node 0\nswap type 1 pool -1 node 0\n' >"$f/swap_pools"
printf 'fs pool 0 server pool 4 private\n' >"$f/cleancache_pools"
printf 'put samples 196608 avg_us 800 max_us 9000\nget samples 50000 avg_us 700 max_us 5000\n' >"$f/rtt"
counters "$p" target=0 mode=writethrough replica=-1 frontswap=Y
st_run
[ $st = 0 ] || bad "status of a client: exit $st: $out"
echo "$out" | grep -q "^ramster_backend  memory server" ||
	bad "a memory server and client at once does not show the server: $out"
rm -r "$b"
st_run
[ $st = 0 ] || bad "status of a client: exit $st: $out"
echo "$out" | grep -qx "ramster_backend  (not loaded)" ||
	bad "a client without ramster_backend: $out"
echo "$out" | grep -qx "ramster_frontend  client: target 0 (ms0)  mode writethrough" ||
	bad "the client's target: $out"
echo "$out" | grep -qx "  swap_pools  swap type 0 pool 3 node 0" &&
	echo "$out" | grep -qx "  swap_pools  swap type 1 pool -1 node 0" ||
	bad "the client's swap pools: $out"
echo "$out" | grep -qx "  remote_puts 196608  remote_put_failures 0  remote_gets 50000  remote_get_hits 49990  remote_get_misses 10" ||
	bad "the client's puts and gets: $out"
echo "$out" | grep -qx "  remote_flushes 4  window_hits 7  lost_loads 0" ||
	bad "the client's flushes, window hits and lost loads: $out"
echo "$out" | grep -qx "  cc_puts 300  cc_put_failures 1  cc_puts_dropped 2  cc_gets 40  cc_get_hits 30  cc_get_misses 10  cc_flushes 6" ||
	bad "the client's cleancache counters: $out"
echo "$out" | grep -qx "  cc_get_index_misses 8  cc_index_pages 250" ||
	bad "the client's cleancache index: $out"
echo "$out" | grep -qx "  cc_prefetches 20  cc_prefetch_hits 17  cc_prefetch_unused 3" ||
	bad "the client's cleancache reads ahead: $out"
echo "$out" | grep -qx "  rtt  put avg_us 800 max_us 9000  get avg_us 700 max_us 5000" ||
	bad "the client's round trips: $out"
st_run -v
[ "$(echo "$out" | sed -n '/^ramster_frontend:$/,/^[^ ]/p' | grep '^  ' |
     awk '{ print $1, $2 }')" = "$(cd "$f" && grep -H . * |
     grep -v '^\(swap_pools\|cleancache_pools\|rtt\):' | sort | tr ':' ' ')" ] ||
	bad "status -v does not show every counter of ramster_frontend: $out"
# mode replicate names the replica too
counters "$p" mode=replicate replica=2
st_run
echo "$out" | grep -qx "ramster_frontend  client: target 0 (ms0)  mode replicate  replica 2 (client2)" ||
	bad "the client's target and replica: $out"

# Counter files missing, unreadable (a directory), empty or garbled: '-'
# or '?' and nothing else changes; without its cleancache counters, no
# cleancache line.  Also under ASan and UBSan.
rm "$f/remote_gets" "$f/swap_pools" "$f"/cc_* "$f/remote_put_failures"
mkdir "$f/remote_put_failures"
: >"$f/remote_flushes"
printf '12abc\n' >"$f/remote_get_hits"
printf '5\n6\n' >"$f/window_hits"
printf '99999999999999999999999\n' >"$f/lost_loads"
printf 'put samples x\nget samples 1 avg_us 2 max_us 3\n' >"$f/rtt"
rm -r "$p"
mkdir "$b"
counters "$b" stored_pages=-12x pers_pages=1 eph_pages=' 2' compressed_bytes=0 \
	pool_pages=0
printf '\001\002\n1 eph_pages 1\n-1 eph_pages 1 pers_pages 1 pools 1\n3 eph_pages 1 pers_pages 2 pools 3 more\n' \
	>"$b/clients"
asan=
if cc -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-o "$tmp/rc-asan" tools/ramsterctl/ramsterctl.c tools/ramsterctl/conf.c 2>/dev/null; then
	asan=$tmp/rc-asan
else
	echo "note: no ASan/UBSan build; the garbled files run without it"
fi
for prog in "$rc" $asan; do
	run "$prog" -c $conf -r "$r" -D "$D" -M "$M" -v status
	[ $st = 0 ] || bad "$prog: status with garbled tmem files: exit $st: $out"
	echo "$out" | grep -q "runtime error\|AddressSanitizer" &&
		bad "$prog: a sanitizer complains: $out"
	echo "$out" | grep -qx "ramster_frontend  client: target -  mode -" ||
		bad "no parameters: $out"
	echo "$out" | grep -qx "  swap_pools  -" || bad "no swap_pools: $out"
	echo "$out" | grep -qx "  remote_puts 196608  remote_put_failures -  remote_gets -  remote_get_hits ?  remote_get_misses 10" ||
		bad "puts and gets, some missing or garbled: $out"
	echo "$out" | grep -qx "  remote_flushes ?  window_hits ?  lost_loads ?" ||
		bad "flushes, window hits, lost loads garbled: $out"
	echo "$out" | grep -q "^  cc_" && bad "a cleancache line without its counters: $out"
	echo "$out" | grep -qx "  rtt  ?  get avg_us 2 max_us 3" || bad "a garbled rtt: $out"
	echo "$out" | grep -qx "  stored_pages ?  pers_pages 1  eph_pages ?  evictions -" ||
		bad "the store's pages, garbled: $out"
	echo "$out" | grep -qx "  compressed_bytes 0  pool_pages 0 (0.0 MiB)  pages_per_frame ?" ||
		bad "the store's frames, stored_pages garbled: $out"
	[ "$(echo "$out" | grep -Ec '^  \? +\? +\? +\? +\?$')" = 4 ] ||
		bad "the four garbled lines of clients: $out"
done
counters "$b" stored_pages=10 pool_pages=0
st_run
echo "$out" | grep -q "  pool_pages 0 (0.0 MiB)  pages_per_frame -$" ||
	bad "pages_per_frame with no frames: $out"
rm "$b/pool_pages"
: >"$b/clients"
rm "$f/rtt"
st_run
echo "$out" | grep -q "  pool_pages - (- MiB)  pages_per_frame -$" ||
	bad "no pool_pages: $out"
echo "$out" | grep -qx "  clients  none" || bad "an empty clients file: $out"
echo "$out" | grep -qx "  rtt  -" || bad "no rtt file: $out"
rm "$b/clients"
st_run
echo "$out" | grep -qx "  clients  -" || bad "no clients file: $out"
rm -r "$D"

# configure again refuses and changes nothing
snap=$(cd "$r" && find . -type f -exec md5sum {} + | sort)
run "$rc" -c $conf -n client1 -r "$r" configure
[ $st = 1 ] || bad "second configure: exit $st, want 1"
echo "$out" | grep -q "already configured.*unconfigure first" ||
	bad "second configure said: $out"
[ "$(cd "$r" && find . -type f -exec md5sum {} + | sort)" = "$snap" ] ||
	bad "second configure changed the tree"

# unconfigure
run "$rc" -r "$r" unconfigure
[ $st = 0 ] || bad "unconfigure: exit $st: $out"
[ -e "$r/ramster" ] && bad "unconfigure left $r/ramster"
run "$rc" -r "$r" status
[ $st = 1 ] && echo "$out" | grep -q "no cluster" || bad "status with no cluster: $st $out"

# Cluster timeouts.  ramsterctl linked dynamically, so that the preload
# library can stand in for r2net's rule on the timeout writes.
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/rc-dyn" \
	tools/ramsterctl/ramsterctl.c tools/ramsterctl/conf.c &&
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$tmp/preload.so" \
	tests/host/fixtures/r2nm-timeouts-preload.c -ldl ||
	{ echo "FAIL: the dynamic ramsterctl or the preload library does not build"; exit 1; }
log=$tmp/writes
# with_timeouts IDLE KEEPALIVE RECONNECT: the default conf with those of
# the three that are not '-' in its cluster: stanza, as $tmp/t.conf.
with_timeouts()
{
	local add=
	[ "$1" = - ] || add="$add\tidle_timeout_ms = $1\n"
	[ "$2" = - ] || add="$add\tkeepalive_delay_ms = $2\n"
	[ "$3" = - ] || add="$add\treconnect_delay_ms = $3\n"
	sed "/^cluster:/a\\$add" $conf | sed 's/^\\//' >"$tmp/t.conf"
}
# the preload library bites (dd calls write()): keepalive 40000 is above
# the default idle, and idle 1000 below the keepalive of 2000
mkdir "$tmp/bite"
for w in keepalive_delay_ms:40000 idle_timeout_ms:1000 reconnect_delay_ms:0; do
	echo "${w#*:}" | LD_PRELOAD=$tmp/preload.so dd of="$tmp/bite/${w%%:*}" \
		status=none 2>/dev/null && bad "the preload library let $w through"
done
echo 40000 | LD_PRELOAD=$tmp/preload.so dd of="$tmp/bite/idle_timeout_ms" status=none ||
	bad "the preload library refused idle 40000"
# IDLE KA RC ('-': not given), then the attributes to write.  From
# r2net's defaults (idle 30000, keepalive 2000) some need keepalive
# written first (idle <= 2000), some idle first (keepalive >= 30000); the
# preload library refuses a wrong order, which fails configure.
for spec in "4000 1000 1000 idle_timeout_ms keepalive_delay_ms reconnect_delay_ms" \
	    "1500 1000 - idle_timeout_ms keepalive_delay_ms" \
	    "2 1 - idle_timeout_ms keepalive_delay_ms" \
	    "60000 40000 - idle_timeout_ms keepalive_delay_ms" \
	    "86400000 86399999 1 idle_timeout_ms keepalive_delay_ms reconnect_delay_ms" \
	    "30001 29999 7 idle_timeout_ms keepalive_delay_ms reconnect_delay_ms" \
	    "- 1000 - keepalive_delay_ms" \
	    "2001 - 86400000 idle_timeout_ms reconnect_delay_ms" \
	    "- - 500 reconnect_delay_ms"; do
	set -- $spec
	idle=$1 ka=$2 rcn=$3
	shift 3
	with_timeouts $idle $ka $rcn
	rm -f "$log"
	set +e
	out=$(LD_PRELOAD=$tmp/preload.so R2NM_LOG=$log "$tmp/rc-dyn" -c "$tmp/t.conf" \
		-n client1 -r "$r" configure 2>&1)
	st=$?
	set -e
	[ $st = 0 ] || bad "configure with timeouts $idle/$ka/$rcn: exit $st: $out"
	want=
	for a; do
		case $a in
		idle_timeout_ms) v=$idle ;;
		keepalive_delay_ms) v=$ka ;;
		*) v=$rcn ;;
		esac
		want="$want$a $v ok
"
		check "$r/ramster/$a" "$v"
	done
	want="${want}cluster_key - ok
"
	# each given one written once and taken, no other; the key after
	# them (and before local, which the preload refuses without it)
	[ "$(sort "$log" 2>/dev/null)" = "$(printf %s "$want" | sort)" ] &&
		[ "$(tail -n 1 "$log")" = "cluster_key - ok" ] ||
		bad "timeouts $idle/$ka/$rcn written as:
$(cat "$log" 2>/dev/null)
want, in some order r2net takes, then the key:
$want"
	for a in idle_timeout_ms keepalive_delay_ms reconnect_delay_ms; do
		case " $* " in *" $a "*) ;; *)
			[ -e "$r/ramster/$a" ] && bad "timeouts $idle/$ka/$rcn: $a written";;
		esac
	done
	run "$rc" -r "$r" unconfigure
	[ $st = 0 ] && [ -z "$(ls -A "$r")" ] || bad "unconfigure after timeouts: $out"
done
# a refused timeout write undoes everything
with_timeouts 4000 1000 1000
run env LD_PRELOAD="$tmp/preload.so" R2NM_FAIL=reconnect_delay_ms \
	"$tmp/rc-dyn" -c "$tmp/t.conf" -n client1 -r "$r" configure
[ $st = 1 ] || bad "refused reconnect_delay_ms: exit $st, want 1: $out"
echo "$out" | grep -q "writing '1000' to .*ramster/reconnect_delay_ms failed: Input/output error" ||
	bad "refused reconnect_delay_ms said: $out"
[ -z "$(ls -A "$r")" ] || bad "refused reconnect_delay_ms left $(ls -A "$r")"
# a refused key write undoes everything and does not show the key
rm -f "$log"
run env LD_PRELOAD="$tmp/preload.so" R2NM_FAIL=cluster_key R2NM_LOG="$log" \
	"$tmp/rc-dyn" -c "$tmp/t.conf" -n client1 -r "$r" configure
[ $st = 1 ] || bad "refused cluster_key: exit $st, want 1: $out"
echo "$out" | grep -q "writing the cluster key to .*ramster/cluster_key failed: Input/output error" ||
	bad "refused cluster_key said: $out"
case $out in *"$key"*) bad "refused cluster_key printed the key: $out" ;; esac
grep -q "$key" "$log" && bad "the preload library logged the key"
[ -z "$(ls -A "$r")" ] || bad "refused cluster_key left $(ls -A "$r")"
# the preload library stands in for r2net: a malformed key is refused,
# and so is local = 1 before the key
mkdir -p "$tmp/bite/c/node/n"
echo "${key%?}" | LD_PRELOAD=$tmp/preload.so dd of="$tmp/bite/c/cluster_key" \
	status=none 2>/dev/null && bad "the preload library took a key of 63 digits"
echo 1 | LD_PRELOAD=$tmp/preload.so dd of="$tmp/bite/c/node/n/local" \
	status=none 2>/dev/null && bad "the preload library took local = 1 without a key"
# a conf whose keepalive is not below idle is refused before anything
with_timeouts 1000 1000 -
run "$rc" -c "$tmp/t.conf" -n client1 -r "$r" configure
[ $st = 2 ] || bad "keepalive = idle: exit $st, want 2: $out"
echo "$out" | grep -qF "$tmp/t.conf:3: keepalive_delay_ms 1000 is not below idle_timeout_ms 1000" ||
	bad "keepalive = idle said: $out"
[ -z "$(ls -A "$r")" ] || bad "a refused conf wrote into $r"

# refusals before anything is written
sed 's/number = 2/number = 1/' $conf >"$tmp/dup.conf"
run "$rc" -c "$tmp/dup.conf" -n client1 -r "$r" configure
[ $st = 2 ] || bad "bad conf: exit $st, want 2"
echo "$out" | grep -qF "$tmp/dup.conf:25:" || bad "bad conf said: $out"
# no key, or a malformed one: what is wrong, never the key
# said ST TEXT WHAT: the last run exited ST and said TEXT, and no key
said()
{
	[ $st = "$1" ] && echo "$out" | grep -qF -- "$2" ||
		bad "$3: exit $st, want $1 and '$2': $out"
	case $out in *"${key:0:16}"*) bad "$3: the output shows the key: $out" ;; esac
}
run "$rc" -c $nokey -n client1 -r "$r" configure
said 2 "$nokey has no cluster_key: r2net will not start without one; \`ramster-cluster up\` writes it" \
	"conf without a key"
for spec in "${key%?}:got 63 characters" "${key}0:got 65 characters" \
	    "${key%?}g:character 64 is not one" \
	    "${key:0:10} ${key:11}:character 11 is not one"; do
	k=${spec%%:*} want=${spec#*:}
	sed "s/^\tcluster_key = .*/\tcluster_key = $k/" $conf >"$tmp/badkey.conf"
	run "$rc" -c "$tmp/badkey.conf" -n client1 -r "$r" configure
	said 2 "$tmp/badkey.conf:4: cluster_key must be 64 hex digits (32 bytes), $want" \
		"configure, key '$want'"
	run tools/ramsterctl/conf-check "$tmp/badkey.conf"
	said 2 "$tmp/badkey.conf:4: cluster_key must be 64 hex digits (32 bytes), $want" \
		"conf-check, key '$want'"
done
sed "4p" $conf >"$tmp/twokeys.conf"
run "$rc" -c "$tmp/twokeys.conf" -n client1 -r "$r" configure
said 2 "$tmp/twokeys.conf:5: 'cluster_key' given twice" "two keys"
run tools/ramsterctl/conf-check "$conf"
said 0 "cluster_key set" "conf-check with a key"
run tools/ramsterctl/conf-check $nokey
said 0 "cluster_key none" "conf-check without a key"
run "$rc" -c $conf -n nosuch -r "$r" configure
[ $st = 2 ] || bad "unknown node: exit $st, want 2"
echo "$out" | grep -q "'nosuch'" && echo "$out" | grep -qF "$conf" ||
	bad "unknown node said: $out"
run "$rc" -c $conf -n client1 -r "$tmp/none" configure
[ $st = 1 ] || bad "missing root: exit $st, want 1"
echo "$out" | grep -q "load r2net.ko" || bad "missing root said: $out"
[ -z "$(ls -A "$r")" ] || bad "a refused configure wrote into $r"

# Failure midway, by path length: a root so deep that
# node/client1/ipv4_address no longer fits in PATH_MAX (4096), though
# everything before it does.
deep=$tmp
while [ ${#deep} -lt 3900 ]; do deep=$deep/$(printf 'd%.0s' $(seq 100)); done
pad=$((4062 - ${#deep} - 1))
deep=$deep/$(printf 'e%.0s' $(seq $pad))
mkdir -p "$deep"
[ ${#deep} = 4062 ] || bad "deep root is ${#deep} long"
run "$rc" -c $conf -n client1 -r "$deep" configure
[ $st = 1 ] || bad "midway (path): exit $st, want 1: $out"
echo "$out" | grep -q "writing '10.77.0.11' to .*client1/ipv4_address failed: File name too long" ||
	bad "midway (path) said: $out"
[ -z "$(ls -A "$deep")" ] || bad "midway (path) left $(ls -A "$deep") behind"

# Failure midway, by a real ENOSPC: a tmpfs with too few inodes, in a
# private mount namespace (skipped where unshare/mount is not allowed).
# Inodes: the root, ramster, node, cluster_key, ms0, client1, client2,
# then the files.
if unshare -m true 2>/dev/null; then
	for spec in "6 mkdir.*client2 failed: No space left on device" \
		    "11 writing '10.77.0.11' to .*client1/ipv4_address failed: No space left on device"; do
		inodes=${spec%% *} want=${spec#* }
		m=$tmp/m$inodes
		mkdir "$m"
		set +e
		out=$(unshare -m bash -c '
			mount -t tmpfs -o size=1m,nr_inodes='$inodes' none "$1" || exit 99
			"$2" -c "$3" -n client1 -r "$1" configure
			st=$?
			echo "left: $(ls -A "$1")"
			exit $st' sh "$m" "$rc" "$conf" 2>&1)
		st=$?
		set -e
		if [ $st = 99 ]; then
			echo "note: cannot mount tmpfs; ENOSPC midway test skipped"
			break
		fi
		[ $st = 1 ] || bad "midway ($inodes inodes): exit $st, want 1: $out"
		echo "$out" | grep -q "$want" || bad "midway ($inodes inodes) said: $out"
		echo "$out" | grep -qx "left: " || bad "midway ($inodes inodes) left: $out"
	done
else
	echo "note: no unshare -m; ENOSPC midway test skipped"
fi

# share: refused, before anything is written, without shared_uuid in the
# conf (2), on a node that is not a memory server (2), for a node not in
# the conf (2), and without ramster_backend's shared_auth parameter (1).
# The write itself needs ramster_backend.ko: a guest test's.
uuid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
sed "s/^\tname = ramster\$/&\n\tshared_uuid = $uuid/" $conf >"$tmp/shared.conf"
mkdir -p "$tmp/mods"
run "$rc" -c $conf -n ms0 -M "$tmp/mods" share
[ $st = 2 ] || bad "share without shared_uuid: exit $st, want 2: $out"
echo "$out" | grep -qF "the cluster has no shared disk: add shared_mib to its description" ||
	bad "share without shared_uuid said: $out"
run "$rc" -c "$tmp/shared.conf" -n client1 -M "$tmp/mods" share
[ $st = 2 ] || bad "share on a client: exit $st, want 2: $out"
echo "$out" | grep -q "this node client1 is a client .*not a memory server" ||
	bad "share on a client said: $out"
run "$rc" -c "$tmp/shared.conf" -n nosuch -M "$tmp/mods" share --deny
[ $st = 2 ] && echo "$out" | grep -q "'nosuch'" || bad "share for an unknown node: exit $st: $out"
run "$rc" -c "$tmp/shared.conf" -n ms0 -M "$tmp/mods" share
[ $st = 1 ] || bad "share without ramster_backend: exit $st, want 1: $out"
echo "$out" | grep -qF "$tmp/mods/ramster_backend/parameters/shared_auth does not exist: load ramster_backend.ko first" ||
	bad "share without ramster_backend said: $out"
[ -z "$(ls -A "$tmp/mods")" ] || bad "share created $(ls -A "$tmp/mods")"
run "$rc" -c "$tmp/shared.conf" -n ms0 -M "$tmp/mods" share extra
[ $st = 2 ] || bad "share with an argument: exit $st, want 2: $out"
for cmd in configure status unconfigure; do
	run "$rc" -c $conf -n client1 -r "$r" $cmd --deny
	[ $st = 2 ] || bad "--deny with $cmd: exit $st, want 2: $out"
done
[ -z "$(ls -A "$r")" ] || bad "a refused --deny wrote into $r"

[ $fail = 0 ] && echo "PASS: ramsterctl"
exit $fail
