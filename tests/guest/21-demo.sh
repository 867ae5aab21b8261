#!/bin/bash
# The main job, as the README gives it: scripts/demo.sh (make demo) on the
# default cluster, renamed so that a demo the user left running is not in
# the way.  Its table must show pages sent to the memory server and read
# back, with every page checked, and the server holding them compressed;
# every node must pass and keep a clean console; the host tool's status
# must show the nodes' counters; scripts/demo.sh --down must leave no
# domain or network defined.  Fast kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
desc=$(default_cluster)
name=$(cluster_name "$desc")
state=/var/lib/ramster/$name
before_dom=$(virsh -c "$uri" list --all --name | sort)
before_net=$(virsh -c "$uri" net-list --all --name | sort)
rc=0

# num LABEL: the first number after LABEL in the demo's table.
num() {
	sed -n "s/^$1 *\([0-9][0-9]*\).*/\1/p" /tmp/demo.$$ | head -n 1
}

trap '"$top/scripts/demo.sh" --down "$desc" >/dev/null 2>&1 || :; rm -f /tmp/demo.$$' EXIT
start=$(date +%s)
"$top/scripts/demo.sh" "$desc" | tee /tmp/demo.$$ || rc=1
echo "demo took $(($(date +%s) - start)) s"
grep -q '^workload on client1: .*every page checked' /tmp/demo.$$ ||
	{ echo "FAIL: no workload line"; rc=1; }
sent=$(num "pages sent to ms0:") back=$(num "pages read back from ms0:")
held=$(num "ms0 held:")
echo "sent $sent, read back $back, held $held"
[ "${sent:-0}" -ge 20000 ] && [ "${back:-0}" -ge 10000 ] && [ "${held:-0}" -ge 10000 ] ||
	{ echo "FAIL: too few pages went to the memory server and back"; rc=1; }
grep -q '^compression ratio: *[0-9.]* pages per page frame' /tmp/demo.$$ ||
	{ echo "FAIL: no compression ratio"; rc=1; }
for node in $(node_names "$desc"); do
	verdict "$state" "$node" >/dev/null || { verdict "$state" "$node"; rc=1; }
done
"$tool" -c "$desc" -u "$uri" status | tee /tmp/demo.$$
grep -q 'remote_puts' /tmp/demo.$$ || { echo "FAIL: status shows no client counters"; rc=1; }
grep -q 'stored_pages' /tmp/demo.$$ || { echo "FAIL: status shows no server counters"; rc=1; }
"$top/scripts/demo.sh" --down "$desc"
after_dom=$(virsh -c "$uri" list --all --name | sort)
after_net=$(virsh -c "$uri" net-list --all --name | sort)
[ "$before_dom" = "$after_dom" ] || { echo "FAIL: domains left: $after_dom"; rc=1; }
[ "$before_net" = "$after_net" ] || { echo "FAIL: networks left: $after_net"; rc=1; }
exit $rc
