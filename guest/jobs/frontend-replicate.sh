# frontend-replicate: a client swaps to two memory servers at once
# (ramster_frontend.ko mode=replicate); tests/guest/64-frontend-replicate.sh
# destroys the target server mid-run and starts it again at the end.
#
# Client: bad replicate parameters are refused with a message.  With the
# target and the replica, and a local tier of 10% of RAM, swapcheck runs
# over 384 MiB through 256 MiB of RAM; once both servers hold 20 000 of
# its pages ("replicate running") the target is destroyed.  The local
# tier then keeps every page it holds: one leaves it only once both
# servers took it.  The workload completes with every page
# correct: loads of pages the target held come from the replica, and
# while the target is gone stores go to the disk.  swapoff reads every
# page back; the module unloads.  The client leaves once the target is
# back ("replicate done" started it), so that its job can end too.
#
# Servers (each boot): load the backend, wait until the client has let
# go of r2net for good; only the target's last boot gives its verdict.
idle_ms=10000 keepalive_ms=2000 reconnect_ms=2000
# The target's second boot may see the client only for a moment.
up_once=1
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
fe=/sys/kernel/debug/ramster_frontend
fs=/sys/kernel/debug/frontswap

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	serve_clients
	served_no_errors err_bad_length err_bad_payload err_bad_pool_id \
		err_eperm err_other
	no_leaks
	exit 0
fi

servers=$(awk '/^node:/ { n = ""; s = 0; next } /^[a-z]+:/ { s = 0 }
	$1 == "number" { n = $3 } $1 == "role" && $3 == "memory-server" { s = 1 }
	s && n != "" { print n; n = "" }' /etc/ramster.conf)
t1=$(echo $servers | cut -d' ' -f1) t2=$(echo $servers | cut -d' ' -f2)
[ -n "$t1" ] && [ -n "$t2" ] && [ "$t1" != "$t2" ] ||
	fail "want two memory servers in /etc/ramster.conf, have '$servers'"
c() { cat $fe/$1; }

swap_on
refused() {
	msg=$1
	shift
	insmod $ko/ramster_frontend.ko cleancache=0 "$@" 2>/dev/null &&
		fail "ramster_frontend loaded with $*"
	dmesg | grep -q "ramster_frontend: .*$msg" ||
		fail "ramster_frontend refused $* without saying '$msg'"
}
refused "mode=replicate needs replica=N" target=$t1 mode=replicate
refused "mode=replicate needs replica=N" target=$t1 mode=replicate replica=99
refused "replica=$t1: name a second memory server" target=$t1 mode=replicate replica=$t1
refused "replica=$me: name a second memory server" target=$t1 mode=replicate replica=$me
refused "replica=$t2: only with mode=replicate" target=$t1 replica=$t2
ok "replicate without a replica, with an unknown one, the target, this node, and a replica without replicate are refused"

echo 0 > /proc/sys/vm/page-cluster
insmod $ko/ramster_frontend.ko target=$t1 mode=replicate replica=$t2 cleancache=0 local_pool_percent=10 ||
	fail "insmod ramster_frontend target=$t1 mode=replicate replica=$t2 local_pool_percent=10"
dmesg | grep -q "ramster_frontend: swap pages also on node $t2" ||
	fail "no boot-log line naming the replica"
t=0
until [ "$(grep -c "swap type 0 pool [0-9]" $fe/swap_pools)" = 2 ]; do
	t=$((t + 1))
	[ $t -le 120 ] || { cat $fe/swap_pools; fail "no pools on nodes $t1 and $t2 after 120 s"; }
	sleep 1
done
ok "$(tr '\n' ';' < $fe/swap_pools)"

swapcheck_until 20000 600 384
ok "replicate running: nodes $t1 and $t2 both hold $(c remote_puts) pages, $(c remotified) of them sent on from the local tier"
[ "$(c remotified)" -gt 0 ] || fail "the local tier sent no page on to both servers"
wait_state $t1 down 120
ok "node $t1 is down; the workload goes on"
sent=$(c remotified) kept=$(c local_loads)
wait $sc || { cat /run/sc.out; fail "pages came back wrong after node $t1 went"; }
ok "$(cat /run/sc.out); $(c replica_loads) loads came from node $t2"
[ "$(c replica_loads)" -gt 0 ] || fail "no load came from the replica"
# With the target gone no page leaves the local tier: only the replica
# could take it, which is not enough; loads find them here.
[ "$(c remotified)" = $sent ] && [ "$(c local_loads)" -gt $kept ] ||
	fail "with node $t1 gone the local tier sent $(($(c remotified) - sent)) pages on and served $(($(c local_loads) - kept)) loads"
ok "with node $t1 gone no page left the local tier ($(c remotify_refused) refused by it or not sent); $(($(c local_loads) - kept)) loads were served here"
expect $fs/failed_loads -eq 0
swapoff /dev/vda || fail "swapoff"
expect $fs/failed_loads -eq 0
echo 1 > $fe/unregister
expect $fe/unregister -eq 0
rmmod ramster_frontend || fail "rmmod ramster_frontend"
ok "swapoff read every page back; the frontend unloaded"
ok "replicate done"
wait_state $t1 up 300
ramsterctl unconfigure || fail "ramsterctl unconfigure"
no_leaks
