#!/bin/bash
# The memory server dies under a swapping client, three times, and comes
# back (guest/jobs/frontend-loss.sh says what the client checks).  In mode
# writethrough the workload completes with every page correct; in mode
# none a link cut for 12 s kills nothing, and when the server dies only
# the process whose pages were lost dies, of SIGBUS; with no
# server the disk takes the stores, and when it is back they resume, in
# pools of their own: two swap devices and a cleancache filesystem.
# This script destroys and starts the server's domain when the client
# reports each step; every boot's console must be clean.  Fast kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-2400}
server=s1 client=c2
state=/var/lib/ramster/tests/rmswapduo

# destroy STATE DOMAIN N: destroy the server, keep its boot N's logs.
destroy()
{
	virsh -c "$uri" destroy "$2" >/dev/null || return 1
	echo "$(date +%T.%3N) destroyed $2"
	mkdir -p "$1/$server-boot$3"
	mv "$1/$server".*.log "$1/$server-boot$3/"
}

# cut_link DOMAIN SECS: its NIC's link down for SECS, then up again.
cut_link()
{
	local mac

	mac=$(virsh -c "$uri" domiflist "$1" | awk 'NR > 2 && NF { print $NF; exit }')
	virsh -c "$uri" domif-setlink "$1" "$mac" down >/dev/null || return 1
	echo "$(date +%T.%3N) cut $1's link"
	sleep "$2"
	virsh -c "$uri" domif-setlink "$1" "$mac" up >/dev/null || return 1
	echo "$(date +%T.%3N) $1's link is back"
}

start()
{
	virsh -c "$uri" start "$1" >/dev/null || return 1
	echo "$(date +%T.%3N) started $1 again"
}

# The cluster_hook of run_cluster.
cycle_server()
{
	local st=$2 dom=$3-$server

	await "$st" $client "phase A running" 1200 && destroy "$st" "$dom" 1 &&
		await "$st" $client "phase A done" 1200 && start "$dom" &&
		await "$st" $client "phase B cut" 1200 && cut_link "$3-$client" 12 &&
		await "$st" $client "phase B holding" 1200 && destroy "$st" "$dom" 2 &&
		await "$st" $client "phase B refused" 1200 && start "$dom" &&
		await "$st" $client "phase C idle" 1200 && destroy "$st" "$dom" 3 &&
		await "$st" $client "phase C down" 1200 && start "$dom"
}

rm -rf "$state/$server-boot"*
cluster_hook=cycle_server
rc=0
run_job "$top/tests/clusters/swapduo.cluster" frontend-loss || rc=1
for b in 1 2 3; do
	echo "--- $server results, boot $b:"
	sed 's/^/    /' "$state/$server-boot$b/$server.results.log" 2>/dev/null || true
	if grep -E "$bad_console" "$state/$server-boot$b/$server.console.log" 2>/dev/null; then
		echo "guest $server: kernel reported a problem on boot $b"
		rc=1
	fi
done
exit $rc
