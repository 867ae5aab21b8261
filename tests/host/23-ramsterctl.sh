#!/bin/bash
# ramsterctl against a plain directory standing in for r2net's configfs
# (-r): configure writes every node's ipv4_port, ipv4_address and num and
# only this node's local; status lists every node with its state and
# counters from an emulated r2net debugfs (-d; '-' for a node without a
# file, or a file it cannot read), -v all counters; configure refuses a
# second time, a bad conf (2), an unknown node (2) and a missing root (1);
# a failure midway (a mkdir, or a write) leaves nothing behind; unconfigure
# removes it all.  The cluster timeouts from ramster.conf are written only
# when given, in an order r2net takes: a build of ramsterctl linked
# dynamically runs with fixtures/r2nm-timeouts-preload.c, which refuses
# the writes r2net refuses (keepalive not below idle) and logs them.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
conf=tests/unit/fixtures/default.conf

bad()
{
	echo "FAIL: $*"
	fail=1
}

make -s -C tools/ramsterctl ramsterctl CFLAGS="-O2 -g -Werror" ||
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

# status, with r2net's debugfs emulated in $d: ms0 (0) has every counter,
# client1 is local (r2net shows no file for it), client2 (2) has no file.
d=$tmp/debugfs
mkdir -p "$d/nodes"
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
run "$rc" -r "$r" -d "$d" status
[ $st = 0 ] || bad "status: exit $st: $out"
for o in ms0 client1 client2; do
	echo "$out" | grep -q "^$o " || bad "status does not list $o: $out"
done
echo "$out" | grep -q "^cluster ramster " || bad "status has no cluster line: $out"
# NODE NUM ADDRESS LOCAL STATE MSGS_TX/RX BYTES_TX/RX IN_FLIGHT RTT_AVG_US
# REJECTED ERRORS
echo "$out" | grep -Eq "^ms0 +0 +10\.77\.0\.10:7777 +up +3003/4004 +5005/6006 +9009 +29029 +$rej +$errs\$" ||
	bad "status line of ms0 (up, not local; rejected $rej, errors $errs): $out"
echo "$out" | grep -Eq '^client1 +1 +10\.77\.0\.11:7777 +local +- +- +- +- +- +- +-$' ||
	bad "status line of client1 (local, no counters): $out"
echo "$out" | grep -Eq '^client2 +2 +10\.77\.0\.12:7777 +- +- +- +- +- +- +-$' ||
	bad "status line of client2 (no debugfs file): $out"
echo "$out" | grep -qx "listener  pending 1  accepted 7  refused_unknown_address 2  refused_too_many_pending 3" ||
	bad "status listener line: $out"
echo "$out" | grep -q "^  " && bad "status without -v shows counters: $out"
# -v: every counter of ms0, in the file's order, under its name; none else
run "$rc" -r "$r" -d "$d" -v status
[ $st = 0 ] || bad "status -v: exit $st: $out"
[ "$(echo "$out" | sed -n '/^node ms0 (num 0):$/,/^[^ ]/p' | grep '^  ' |
     awk '{ print $1, $2 }')" = "$(cat "$d/nodes/0")" ] ||
	bad "status -v does not show every counter of ms0: $out"
echo "$out" | grep -q "^node client" && bad "status -v shows counters for a node without any: $out"
# a file r2net does not write like this, partial counters, no debugfs
printf 'garbage\n\001\002\nstate\nmsgs_tx x y z\n' >"$d/nodes/2"
printf 'state connecting\nmsgs_rx 5\nbytes_tx 9\nrejected_bad_key 1\nrejected_x nan\nsend_errors 4\n' >"$d/nodes/0"
rm "$d/listener"
run "$rc" -r "$r" -d "$d" status
[ $st = 0 ] || bad "status with odd debugfs files: exit $st: $out"
echo "$out" | grep -Eq '^client2 +2 +10\.77\.0\.12:7777 +- +- +- +- +- +- +-$' ||
	bad "status line of client2 (a garbage file): $out"
echo "$out" | grep -Eq '^ms0 +0 +10\.77\.0\.10:7777 +connecting +-/5 +9/- +- +- +1 +4$' ||
	bad "status line of ms0 (some counters): $out"
echo "$out" | grep -q "^listener" && bad "a listener line without the file: $out"
run "$rc" -r "$r" -d "$tmp/none" -v status
[ $st = 0 ] || bad "status without debugfs: exit $st: $out"
[ "$(echo "$out" | grep -Ec ' +- +- +- +- +- +- +-$')" = 3 ] ||
	bad "status without debugfs does not show '-' for all: $out"
run "$rc" -d "$d" -r "$r" -c $conf -n client1 configure
[ $st = 2 ] || bad "-d with configure: exit $st, want 2"

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
	# each given one written once and taken, no other
	[ "$(sort "$log" 2>/dev/null)" = "$(printf %s "$want" | sort)" ] ||
		bad "timeouts $idle/$ka/$rcn written as:
$(cat "$log" 2>/dev/null)
want, in some order r2net takes:
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
echo "$out" | grep -qF "$tmp/dup.conf:24:" || bad "bad conf said: $out"
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
# Inodes: the root, ramster, node, ms0, client1, client2, then the files.
if unshare -m true 2>/dev/null; then
	for spec in "5 mkdir.*client2 failed: No space left on device" \
		    "10 writing '10.77.0.11' to .*client1/ipv4_address failed: No space left on device"; do
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

[ $fail = 0 ] && echo "PASS: ramsterctl"
exit $fail
