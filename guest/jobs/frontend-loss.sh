# frontend-loss: the memory server is destroyed under a client that swaps
# to it, and started again; tests/guest/61-frontend-server-loss.sh
# destroys and starts it when the client reports each step.
#
# Client, mode writethrough: swapcheck runs over 512 MiB through 256 MiB
# of RAM; once the server holds 20 000 of its pages ("phase A running")
# the server is destroyed.  The workload completes with every page
# correct: what the server had comes from the swap disk.  The server is
# started again ("phase A done"): the client reconnects, makes a new pool
# and its stores go to the server again.
#
# Client, mode none: a process's 2000 pages go to the server only, and
# another's, with the local tier on, stay in it ("phase B holding"); the
# server is destroyed; the first process touches its pages and dies of
# SIGBUS, and nothing else does: the second reads every page back right.  With the server gone a new
# workload's stores are refused and go to the disk, every page correct
# ("phase B refused"); the server is started again and stores resume.
#
# The server (each boot) loads the backend and waits until the client has
# let go of r2net for good; only its last boot gives a verdict.
idle_ms=10000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
fs=/sys/kernel/debug/frontswap

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_clients
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
c() { cat $fe/$1; }

# pool_ready N: until swap_pools shows a pool and pools_created >= N.
pool_ready() {
	fe_pool_ready swap_pools "swap type 0 pool [0-9]" pools_created "$1"
}

# resumed WHAT: a workload after the server came back; stores reach it.
resumed() {
	wait_state $srv up 300
	puts=$(c remote_puts)
	# Two generations of 4000 pages: 8000 stores.
	swapcheck pageout 4000 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong $1"; }
	[ "$(c remote_puts)" -ge $((puts + 7200)) ] ||
		fail "only $(($(c remote_puts) - puts)) of 8000 stores went to node $srv $1"
	ok "node $srv is back: $(($(c remote_puts) - puts)) of 8000 stores went to it $1, every page correct"
}

unload() {
	swapoff /dev/vda || fail "swapoff"
	echo 1 > $fe/unregister
	expect $fe/unregister -eq 0
	rmmod ramster_frontend || fail "rmmod ramster_frontend"
}

echo 0 > /proc/sys/vm/page-cluster
# swapcheck hold pushes its pages out of the swap cache through cgroup2.
mount -t cgroup2 none /sys/fs/cgroup || fail "mount cgroup2 on /sys/fs/cgroup"

# Phase A: writethrough.
swap_on
insmod $ko/ramster_frontend.ko target=$srv cleancache=0 || fail "insmod ramster_frontend target=$srv"
pool_ready 1
swapcheck_until 20000 300
ok "phase A running: node $srv holds $(c remote_puts) pages"
wait_state $srv down 120
ok "node $srv is down; the workload goes on"
wait $sc || { cat /run/sc.out; fail "pages came back wrong after the server went"; }
from_disk=$(( $(c remote_get_failures) + $(c lost_loads) ))
[ $from_disk -gt 0 ] || fail "no load fell back to the disk"
ok "$(cat /run/sc.out); $from_disk loads came from the disk instead"
ok "phase A done"
pool_ready 2
resumed "(writethrough)"
unload

# Phase B: mode none.
swap_on
insmod $ko/ramster_frontend.ko target=$srv mode=none cleancache=0 || fail "insmod ramster_frontend mode=none"
pool_ready 1
puts=$(c remote_puts)
hold_pages 2000 /run/hold.out
hold1=$hold
[ "$(c remote_puts)" -ge $((puts + 1800)) ] ||
	fail "only $(($(c remote_puts) - puts)) of 2000 pages went to node $srv"
# A second holder with the local tier on: its pages stay here.
lpp=/sys/module/ramster_frontend/parameters/local_pool_percent
echo 10 > $lpp || fail "local_pool_percent=10"
kept=$(c local_stores)
hold_pages 2000 /run/hold2.out
hold2=$hold
kept=$(($(c local_stores) - kept))
[ $kept -ge 1800 ] && [ "$(c local_pages)" -ge 1800 ] ||
	fail "local tier: $kept of 2000 pages kept, $(c local_pages) here"
ok "phase B holding: $(cat /run/hold.out), $(($(c remote_puts) - puts)) on node $srv only; $kept of a second holder's pages in the local tier"
wait_state $srv down 120
kill -USR1 $hold1
rc=0
wait $hold1 || rc=$?
[ $rc = $((128 + 7)) ] || { cat /run/hold.out; fail "the holder ended with $rc, want SIGBUS ($((128 + 7)))"; }
expect $fs/failed_loads -ge 1
ok "the process whose pages were lost died of SIGBUS"
loads=$(c local_loads)
kill -USR1 $hold2
wait $hold2 || { cat /run/hold2.out; fail "the local tier's pages came back wrong with the server gone"; }
loads=$(($(c local_loads) - loads))
[ $loads -ge 1800 ] || fail "the second holder read back only $loads pages from the local tier"
ok "the process whose pages were in the local tier lived: $loads loads from it, every page correct"
echo 0 > $lpp || fail "local_pool_percent=0"
fails=$(c remote_put_failures)
swapcheck pageout 4000 > /run/sc.out || { cat /run/sc.out; fail "pages came back wrong with no server"; }
[ "$(c remote_put_failures)" -ge $((fails + 7200)) ] ||
	fail "only $(($(c remote_put_failures) - fails)) stores refused with no server"
ok "phase B refused: with no server $(($(c remote_put_failures) - fails)) stores were refused and went to the disk, every page correct"
pool_ready 2
resumed "(none)"
unload
ramsterctl unconfigure || fail "ramsterctl unconfigure"
no_leaks
