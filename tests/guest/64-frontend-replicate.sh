#!/bin/bash
# mode replicate: a client swaps to two memory servers at once, through
# the local tier; the target is destroyed mid-run and the workload
# completes with every page correct, loads coming from the replica, and
# the tier keeps what only the replica took (guest/jobs/frontend-replicate.sh
# says what each node checks).  The target is started again at the end;
# every boot's console must be clean.  Fast kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-2400}
target=s1 client=c3
state=/var/lib/ramster/tests/rmrepltrio

# The cluster_hook of run_cluster: destroy the target, start it at the end.
cycle_target()
{
	local st=$2 dom=$3-$target

	await "$st" $client "replicate running" 1200 || return 1
	virsh -c "$uri" destroy "$dom" >/dev/null || return 1
	echo "$(date +%T.%3N) destroyed $dom"
	mkdir -p "$st/$target-boot1"
	mv "$st/$target".*.log "$st/$target-boot1/"
	await "$st" $client "replicate done" 1200 || return 1
	virsh -c "$uri" start "$dom" >/dev/null || return 1
	echo "$(date +%T.%3N) started $dom again"
}

rm -rf "$state/$target-boot1"
cluster_hook=cycle_target
rc=0
run_job "$top/tests/clusters/repltrio.cluster" frontend-replicate || rc=1
echo "--- $target results, first boot:"
sed 's/^/    /' "$state/$target-boot1/$target.results.log" 2>/dev/null || true
if grep -E "$bad_console" "$state/$target-boot1/$target.console.log" 2>/dev/null; then
	echo "guest $target: kernel reported a problem on its first boot"
	rc=1
fi
exit $rc
