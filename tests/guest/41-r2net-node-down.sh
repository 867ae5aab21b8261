#!/bin/bash
# r2net sees a node die and come back: once r1 and r2 report all pairs up,
# r3's domain is destroyed; r1 and r2 must see it down within
# idle_timeout_ms + 1 s of its last echo (plus the longest stall of
# their vCPU, measured) and keep echoing to each other;
# then r3 is started again, boots its job again, and both see it up and
# echo to it.  The guests measure and report the times.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
victim=r3

# The cluster_hook of run_cluster: destroy the victim, then start it again.
cycle_victim()
{
	local state=$2 dom=$3-$victim

	await "$state" r1 "all pairs up" && await "$state" r2 "all pairs up" ||
		return 1
	# Let both echo to it for a while, so that it dies mid-loop.
	sleep 2
	virsh -c "$uri" destroy "$dom" >/dev/null || return 1
	echo "$(date +%T.%3N) destroyed $dom"
	await "$state" r1 "node 3 down:" && await "$state" r2 "node 3 down:" ||
		return 1
	# Its first boot's logs; libvirt starts new ones.
	mkdir -p "$state/$victim-boot1"
	mv "$state/$victim".*.log "$state/$victim-boot1/"
	virsh -c "$uri" start "$dom" >/dev/null || return 1
	echo "$(date +%T.%3N) started $dom again"
}

state=/var/lib/ramster/tests/rmtrio
rm -rf "$state/$victim-boot1"
cluster_hook=cycle_victim
rc=0
run_job "$top/tests/clusters/trio.cluster" r2net-down || rc=1
echo "--- $victim results before it was destroyed:"
sed 's/^/    /' "$state/$victim-boot1/$victim.results.log" 2>/dev/null || true
if grep -E "$bad_console" "$state/$victim-boot1/$victim.console.log" 2>/dev/null; then
	echo "guest $victim: kernel reported a problem on its first boot"
	rc=1
fi
exit $rc
