# frontend-shared: clean pages of an OCFS2 volume that both clients
# mount, kept in one cleancache pool on the memory server shared by the
# volume's uuid: pages one client read come back to the other, which
# never put them, from the server.
#
# Server: loads the backend, refuses bad shared_auth lines, lets both
# clients into the volume's pool (ramsterctl share: shared_uuid in
# ramster.conf), serves until they are done, and checks that no NEW_POOL
# was refused once it had and that gets hit.
#
# First client (the lower number): mounts the volume read-write (a local
# volume: only one node writes), writes files of 1.5 times its RAM, mounts
# it again from a read-only device and reads them, every page checked;
# the pages it evicts go to the shared pool.  Then it says so over TCP on
# the cluster's bridge (busybox httpd, the other client polls it) and
# keeps the volume mounted, so that the pool stays, until the other is
# done.
#
# Second client: once told, mounts the volume from a read-only device
# too and reads the first files, less than its RAM so that it evicts
# (puts) nothing itself; every page is checked, and a share of them must
# come back from the server.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
auth=/sys/module/ramster_backend/parameters/shared_auth
d=/mnt/shared
files=6 pages=16384	# 6 x 64 MiB, 1.5 times a client's RAM
reads=2			# files the second client reads: 128 MiB
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
	serve_finish
	[ "$(served new_pool)" -ge 3 ] &&
		[ "$(served get_hits)" -ge $((reads * pages / 8)) ] ||
		fail "too few requests served: $served_line"
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_other
	[ "$(served err_eperm)" = "$eperm" ] ||
		fail "$(($(served err_eperm) - eperm)) NEW_POOLs refused after ramsterctl share: $served_line"
	ok "no pool refused once shared ($eperm before); $(served get_hits) gets hit"
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
first=$(awk '/^node:/ { n = ""; c = 0; next } /^[a-z]+:/ { c = 0 }
	$1 == "number" { n = $3 } $1 == "role" && $3 == "client" { c = 1 }
	c && n != "" { print n; c = 0 }' /etc/ramster.conf | sort -n | head -n 1)
ip1=$(node_ip "$first")
[ -n "$first" ] && [ -n "$ip1" ] || fail "no client with an address in /etc/ramster.conf"
dev=
for b in /sys/block/vd*; do
	[ "$(cat "$b/serial" 2>/dev/null)" = ramster-shared ] && dev=/dev/${b##*/}
done
[ -n "$dev" ] || fail "no disk with serial ramster-shared"
c() { cat $fe/$1; }
drop() { sync; echo 1 > /proc/sys/vm/drop_caches; }
# shared_mount [-o ro]: mount the volume until its pool on the server
# is a shared one: a mount before the server allowed this node (it loads
# the backend, then runs ramsterctl share) gets a private pool.
shared_mount() {
	t=0
	while :; do
		n=$(c cc_pools_created)
		mount -t ocfs2 "$@" $dev $d || fail "mount -t ocfs2 $* $dev"
		cc_pool_ready $((n + 1))
		grep -q "server pool [0-9]* shared" $fe/cleancache_pools && return
		umount $d || fail "umount $d"
		t=$((t + 1))
		[ $t -le 60 ] || fail "no shared pool after $t mounts: $(cat $fe/cleancache_pools)"
		sleep 2
	done
}

# ro_mount: mount the volume from a read-only device, as both clients
# do once it is written: OCFS2 then takes no slot and replays no journal,
# so neither writes to what the other has mounted.
ro_mount() {
	blockdev --setro $dev || fail "blockdev --setro $dev"
	shared_mount -o ro
	! dmesg | grep -E "ocfs2: .*(recovering|already allocated)" ||
		fail "OCFS2 took a slot or recovered the volume on a read-only mount"
}

mkdir -p $d /run/www
insmod $ko/ramster_frontend.ko target=$srv frontswap=0 ||
	fail "insmod ramster_frontend target=$srv frontswap=0"

if [ "$me" = "$first" ]; then
	shared_mount
	ok "$(cat $fe/cleancache_pools) on node $srv"
	t0=$(now_ms)
	for f in $(seq 1 $files); do
		fcheck write $d/f$f $f 0 $pages 1 || fail "cannot write $d/f$f"
	done
	umount $d || fail "umount $d"
	ok "wrote $files files of $((pages / 256)) MiB in $((($(now_ms) - t0) / 1000)) s"
	ro_mount
	t0=$(now_ms)
	for f in $(seq 1 $files); do cc_verify f$f $f $pages 1; done
	drop
	ok "read every page back in $((($(now_ms) - t0) / 1000)) s; $(c cc_puts) pages put, $(c cc_puts_dropped) dropped"
	[ "$(c cc_puts)" -ge $((reads * pages / 4)) ] ||
		fail "only $(c cc_puts) pages put"
	echo ready > /run/www/ready
	httpd -p $port -h /run/www || fail "httpd -p $port"
	ok "told the other client: http://$ip1:$port/ready"
	# The other client ends r2net when it is done.
	for p in $peers; do
		[ "$p" = "$srv" ] || not_up_for "$p" 5 1800
	done
	cc_verify f1 1 $pages 1
	umount $d || fail "umount $d"
	ok "the other client is done; f1 still reads right"
else
	wait_ready "$first" $port 1800
	# Nothing this node read of the disk before node $first wrote it.
	echo 3 > /proc/sys/vm/drop_caches
	ro_mount
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
	expect $fe/cc_get_discarded -eq 0
	umount $d || fail "umount $d"
fi
ramsterctl unconfigure || fail "ramsterctl unconfigure"
