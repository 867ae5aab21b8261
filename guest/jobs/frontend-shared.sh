# frontend-shared: clean pages of an OCFS2 volume that both clients
# mount read-write through o2cb (o2cb-lib.sh), kept in one cleancache
# pool on the memory server shared by the volume's uuid: pages one client
# read come back to the other, which never put them, from the server;
# and a file one client wrote never reads back old from the pool on the
# other.
#
# Server: loads the backend, refuses bad shared_auth lines, lets both
# clients into the volume's pool (ramsterctl share: shared_uuid in
# ramster.conf), serves until they are done, and checks that no NEW_POOL
# was refused once it had, that gets hit, and that it emptied the pool
# when the first client's link was cut.
#
# The clients tell each other where they are over TCP on the cluster's
# bridge (busybox httpd; the other polls it).
#
# First client (the lower number): writes files of 1.5 times its RAM,
# mounts the volume again and reads them, every page checked; the pages
# it evicts go to the shared pool.  It says so and keeps the volume
# mounted, so that the pool stays.  Then three times: it writes a file,
# evicts it (its pages go to the pool), reads it back from the pool and
# writes it again, all under its EX lock, so that the pool holds the
# first version while the disk gets the second when the other client's
# read takes the lock down to PR.  The flush of the file's pages then
# goes (1) as is, (2) with its link to the server 2 s slow (tc netem on
# the server's address alone: the other client's requests are not), (3)
# with that link cut: no flush arrives, and the server empties the pool
# when it takes the node for gone, before the lock moves on.
#
# Second client: once told, reads the first files, less than its RAM so
# that it evicts (puts) nothing itself; every page is checked, and a
# share of them must come back from the server.  Then it reads each of
# the three files once the first says so: every page must be the second
# version.
# The cut link's flush waits two idle timeouts (rf_cc_flush_shared()).
idle_ms=10000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
. /jobs/o2cb-lib.sh
fe=/sys/kernel/debug/ramster_frontend
auth=/sys/module/ramster_backend/parameters/shared_auth
d=/mnt/shared
files=6 pages=16384	# 6 x 64 MiB, 1.5 times a client's RAM
reads=2			# files the second client reads: 128 MiB
small=512		# pages of each file written over: 2 MiB
port=8077

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_start
	uuid=$(awk '/^cluster:/ { s = 1; next } /^[a-z]+:/ { s = 0 }
		s && $1 == "shared_uuid" { print $3 }' /etc/ramster.conf)
	[ -n "$uuid" ] || fail "no shared_uuid in /etc/ramster.conf"
	for bad in "allow 2" "allow 256 $uuid" "allow 4294967298 $uuid" \
		"let 2 $uuid" "allow 2 ${uuid%?}" "allow 2 $uuid x"; do
		echo "$bad" > $auth 2>/dev/null &&
			fail "shared_auth took '$bad'"
	done
	[ -z "$(cat $auth)" ] || fail "shared_auth lists '$(cat $auth)' after bad lines"
	dmesg | grep -q "shared_auth: 'let 2 $uuid' refused: write \"allow NODE UUID\"" ||
		fail "no log line saying what shared_auth wants"
	ok "bad shared_auth lines refused, nothing allowed"
	ramsterctl share || fail "ramsterctl share"
	[ "$(grep -c " $uuid\$" $auth)" = 2 ] ||
		fail "shared_auth lists '$(cat $auth)', want both clients for $uuid"
	ok "shared_auth: $(tr '\n' ';' < $auth)"
	# A client that mounted before the line above was refused (and
	# mounts again): only refusals after it count.
	eperm=$(awk '$1 == "errors_eperm" { print $2 }' \
		/sys/kernel/debug/ramster_backend/server)
	before_rmmod() {
		emptied=$(cat /sys/kernel/debug/ramster_backend/shared_emptied)
	}
	serve_finish
	[ "$(served new_pool)" -ge 3 ] &&
		[ "$(served get_hits)" -ge $((reads * pages / 8)) ] ||
		fail "too few requests served: $served_line"
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_other
	[ "$(served err_eperm)" = "$eperm" ] ||
		fail "$(($(served err_eperm) - eperm)) NEW_POOLs refused after ramsterctl share: $served_line"
	ok "no pool refused once shared ($eperm before); $(served get_hits) gets hit"
	[ "$emptied" -ge 1 ] && dmesg | grep -q 'ramster_backend: node [0-9]*: down; emptied the shared pools it is in' ||
		fail "the shared pool was not emptied when a client went down ($emptied times)"
	ok "emptied the shared pool $emptied times, as clients in it went down"
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
set -- $(awk '/^node:/ { n = ""; c = 0; next } /^[a-z]+:/ { c = 0 }
	$1 == "number" { n = $3 } $1 == "role" && $3 == "client" { c = 1 }
	c && n != "" { print n; c = 0 }' /etc/ramster.conf | sort -n)
[ $# = 2 ] || fail "want two clients in /etc/ramster.conf, not $#"
first=$1 other=$1
[ "$me" = "$first" ] && other=$2
srv_ip=$(node_ip "$srv") other_ip=$(node_ip "$other")
dev=
for b in /sys/block/vd*; do
	[ "$(cat "$b/serial" 2>/dev/null)" = ramster-shared ] && dev=/dev/${b##*/}
done
[ -n "$dev" ] || fail "no disk with serial ramster-shared"
c() { cat $fe/$1; }
drop() { sync; echo 1 > /proc/sys/vm/drop_caches; }
say() { : > /run/www/$1; }
# hear NAME: until the other client says NAME; fail once its r2net has
# been down for 30 s (it failed, and stopped).
hear() {
	t=0
	until wget -q -O /run/ready "http://$other_ip:$port/$1" 2>/dev/null; do
		if [ "$(nstat "$other" state)" = up ]; then t=0; else t=$((t + 1)); fi
		[ $t -le 30 ] || fail "node $other stopped before it said $1"
		sleep 1
	done
}
# shared_mount: mount the volume until its pool on the server is a
# shared one: a mount before the server allowed this node (it loads the
# backend, then runs ramsterctl share) gets a private pool.  noatime: a
# read that updates a file's atime takes its lock to EX, and giving that
# up drops the file's pages from the pool (patch 6).
shared_mount() {
	t=0
	while :; do
		n=$(c cc_pools_created)
		mount -t ocfs2 -o heartbeat=local,noatime $dev $d ||
			fail "mount -t ocfs2 -o heartbeat=local,noatime $dev $d"
		cc_pool_ready $((n + 1))
		grep -q "server pool [0-9]* shared" $fe/cleancache_pools && return
		umount $d || fail "umount $d"
		t=$((t + 1))
		[ $t -le 60 ] || fail "no shared pool after $t mounts: $(cat $fe/cleancache_pools)"
		sleep 2
	done
}
# to_server ARGS...: tc netem ARGS on what this node sends the server
# alone (band 4 of a prio qdisc that puts everything else in band 1).
to_server() {
	/sbin/tc qdisc add dev eth0 root handle 1: prio bands 4 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		/sbin/tc qdisc add dev eth0 parent 1:4 handle 40: netem "$@" &&
		/sbin/tc filter add dev eth0 parent 1: protocol ip prio 1 u32 \
			match ip dst $srv_ip/32 flowid 1:4 ||
		fail "tc: netem $* to $srv_ip"
}
to_server_clear() {
	/sbin/tc qdisc del dev eth0 root || fail "tc qdisc del dev eth0 root"
}
# stale_setup NAME SEED: under this node's EX lock, NAME holds version 2
# while the shared pool holds version 1 of most of its pages.  (Pages
# written, not read, are not known to be on the disk: eviction puts only
# pages read, so version 1 is read once first.)
stale_setup() {
	fcheck write $d/$1 $2 0 $small 1 || fail "write $d/$1"
	drop
	cc_verify $1 $2 $small 1
	drop
	h0=$(c cc_get_hits)
	cc_verify $1 $2 $small 1
	[ $(($(c cc_get_hits) - h0)) -ge $((small / 2)) ] ||
		fail "$1: only $(($(c cc_get_hits) - h0)) of $small pages read back from the pool"
	fcheck write $d/$1 $2 0 $small 2 || fail "write $d/$1 again"
}

mkdir -p $d /run/www
insmod $ko/ramster_frontend.ko target=$srv frontswap=0 ||
	fail "insmod ramster_frontend target=$srv frontswap=0"
o2cb_up $dev
httpd -p $port -h /run/www || fail "httpd -p $port"

if [ "$me" = "$first" ]; then
	shared_mount
	ok "$(cat $fe/cleancache_pools) on node $srv"
	t0=$(now_ms)
	for f in $(seq 1 $files); do
		fcheck write $d/f$f $f 0 $pages 1 || fail "cannot write $d/f$f"
	done
	# Unmounted, this node holds no lock: the files are on the disk.
	umount $d || fail "umount $d"
	ok "wrote $files files of $((pages / 256)) MiB in $((($(now_ms) - t0) / 1000)) s"
	shared_mount
	t0=$(now_ms)
	for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
	drop
	ok "read every page back in $((($(now_ms) - t0) / 1000)) s; $(c cc_puts) pages put, $(c cc_puts_dropped) dropped"
	[ "$(c cc_puts)" -ge $((reads * pages / 4)) ] ||
		fail "only $(c cc_puts) pages put"
	say ready
	hear shared-read

	# (1) The flush of a file written here, before the other reads it.
	stale_setup g 7
	say g
	hear g
	ok "g: version 1 in the pool, version 2 written here: node $other read version 2"
	# (2) The flush 2 s late on its way to the server.
	stale_setup h 8
	n=$(c cc_shared_flushes)
	to_server delay 2000ms
	t0=$(now_ms)
	say h
	hear h
	to_server_clear
	[ "$(c cc_shared_flushes)" -gt "$n" ] || fail "no shared flush for h"
	ok "h: flushed over a link 2 s slow; node $other read version 2 after $((($(now_ms) - t0) / 1000)) s"
	# (3) No flush at all: the link to the server cut.
	stale_setup k 9
	w=$(c cc_shared_flush_waits)
	to_server loss 100%
	t0=$(now_ms)
	say k
	hear k
	to_server_clear
	[ "$(c cc_shared_flush_waits)" -gt "$w" ] ||
		fail "k: the flush did not wait for the server to take this node for gone"
	expect $fe/cc_shared_flush_gave_up -eq 0
	ok "k: the link cut, the flush waited until node $srv had taken this node for gone; node $other read version 2 after $((($(now_ms) - t0) / 1000)) s"
	wait_state "$srv" up 120
	ok "r2net up with node $srv again: $(cat $fe/cleancache_pools)"
	hear done
	cc_verify f1 1 $pages 1
	for f in g:7 h:8 k:9; do cc_verify ${f%:*} ${f#*:} $small 2; done
	umount $d || fail "umount $d"
	ok "the other client is done; f1, g, h and k still read right"
else
	hear ready
	# Nothing this node read of the disk before node $first wrote it.
	echo 3 > /proc/sys/vm/drop_caches
	shared_mount
	puts=$(($(c cc_puts) + $(c cc_puts_dropped))) hits=$(c cc_get_hits)
	t0=$(now_ms)
	for f in $(seq 1 $reads); do cc_verify f$f $f $pages 1; done
	puts=$(($(c cc_puts) + $(c cc_puts_dropped) - puts))
	hits=$(($(c cc_get_hits) - hits))
	ok "read $reads files, every page checked, in $((($(now_ms) - t0) / 1000)) s: $hits pages from node $srv that node $first put; $puts put here meanwhile"
	[ $hits -ge $((reads * pages / 8)) ] ||
		fail "only $hits of $((reads * pages)) pages came from the shared pool"
	[ $puts -lt $((hits / 16)) ] ||
		fail "$puts pages put here while reading: the hits may be this node's own"
	say shared-read
	for f in g:7 h:8 k:9; do
		hear ${f%:*}
		t0=$(now_ms)
		cc_verify ${f%:*} ${f#*:} $small 2
		ok "${f%:*}: every page version 2 ($((($(now_ms) - t0) / 1000)) s to read)"
		say ${f%:*}
	done
	expect $fe/cc_get_discarded -eq 0
	umount $d || fail "umount $d"
	say done
fi
o2cb_down
ramsterctl unconfigure || fail "ramsterctl unconfigure"
