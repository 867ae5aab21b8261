# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/guest.sh - boot a cluster of guests through libvirt, run a job
# on each, and judge the result.  Source it from a test script; the
# runner (tests/run) has started libvirtd already (tests/lib/libvirt.sh).
#
# A guest passes only when its results channel (ttyS1) says
# "RAMSTER-RESULT JOB <job> PASS" and its console shows no kernel warning,
# oops, KASAN, lockdep or kmemleak report.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tool=$top/tools/ramster-cluster/ramster-cluster
kernel=$top/build/bzImage
initrd=$top/build/initramfs.cpio.gz
uri=${RAMSTER_LV_URI:-qemu:///system}
job_timeout=${RAMSTER_JOB_TIMEOUT:-1200}

# default_cluster: print the path of a copy of the default cluster
# renamed rmdefault, so that a demo cluster the user left running is not
# in the way.
default_cluster()
{
	local desc=$top/tests/out/rmdefault.cluster

	mkdir -p "$top/tests/out"
	sed 's/^\([[:space:]]*name[[:space:]]*=[[:space:]]*\)ramster$/\1rmdefault/' \
		"$top/libvirt-xml/default.cluster" > "$desc"
	[ "$(cluster_name "$desc")" = rmdefault ] ||
		{ echo "cannot rename the default cluster" >&2; return 1; }
	echo "$desc"
}

# await STATE NODE TEXT [SECONDS]: until NODE reports "ok ...TEXT" (for
# a cluster_hook); fails when its job ends first or after SECONDS (300).
await()
{
	local log=$1/$2.results.log t=0 max=$((${4:-300} * 2))

	while [ $t -lt $max ]; do
		grep -q "RAMSTER-RESULT ok .*$3" "$log" 2>/dev/null && return 0
		grep -q 'RAMSTER-RESULT JOB ' "$log" 2>/dev/null && break
		sleep 0.5
		t=$((t + 1))
	done
	echo "$2 did not report '$3'"
	return 1
}

# fast_kernel: boot the fast kernel (kernel/fast.config: no KASAN, lockdep
# or kmemleak) and its modules, for tests that move many pages.
fast_kernel()
{
	kernel=$top/build/fast/bzImage
	initrd=$top/build/fast/initramfs.cpio.gz
}

# What a guest console must never show.
bad_console='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace:|suspected memory leak|unreferenced object|UBSAN:'

# cluster_name FILE: the cluster: stanza's name.
cluster_name()
{
	awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	     c && $1 == "name" { print $3; exit }' "$1"
}

# node_names FILE: every node's name.
node_names()
{
	awk '/^node:/ { n = 1; next } /^[a-z]+:/ { n = 0 }
	     n && $1 == "name" { print $3 }' "$1"
}

# wait_job STATE NODE DOMAIN: until the node reports its job's verdict,
# its domain stops, or the time is up.
wait_job()
{
	local state=$1 node=$2 dom=$3 t=0

	while [ $t -lt "$job_timeout" ]; do
		grep -q 'RAMSTER-RESULT JOB ' "$state/$node.results.log" 2>/dev/null &&
			return 0
		case $(virsh -c "$uri" domstate "$dom" 2>/dev/null) in
		running|paused|"in shutdown") ;;
		*)
			# Stopped: give the log a moment, then judge.
			sleep 1
			return 0 ;;
		esac
		sleep 2
		t=$((t + 2))
	done
	echo "guest $node: no verdict after $job_timeout s"
	return 1
}

# verdict STATE NODE: 0 when the node passed and its console is clean.
verdict()
{
	local state=$1 node=$2 bad

	echo "--- $node results:"
	sed 's/^/    /' "$state/$node.results.log" 2>/dev/null
	bad=$(grep -E "$bad_console" "$state/$node.console.log" 2>/dev/null | head -n 20)
	if [ -n "$bad" ]; then
		echo "guest $node: kernel reported a problem:"
		echo "$bad" | sed 's/^/    /'
		echo "--- $node console tail:"
		tail -n 60 "$state/$node.console.log" | sed 's/^/    /'
		return 1
	fi
	if ! grep -q 'RAMSTER-RESULT JOB .* PASS' "$state/$node.results.log" 2>/dev/null; then
		echo "guest $node: job did not pass"
		echo "--- $node console tail:"
		tail -n 60 "$state/$node.console.log" | sed 's/^/    /'
		return 1
	fi
	return 0
}

# tsc_clock: kernel arguments that give the guest the host's TSC rate.
# Under TCG the guest's TSC runs at the host's rate, but its calibration
# against the PIT often fails when the host is busy, and the clocksource
# watchdog, comparing it with jiffies that lose ticks, throws it out: the
# guest falls back to jiffies (4 ms steps).  Tell it the rate and to trust
# its TSC.
tsc_clock()
{
	local mhz

	mhz=$(dmesg 2>/dev/null | sed -n -e 's/.*Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz TSC.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | head -n 1)
	[ -n "$mhz" ] || mhz=$(awk -F': ' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	awk -v m="$mhz" 'BEGIN { printf "tsc_early_khz=%d tsc=reliable", m * 1000 }'
}

# run_cluster FILE [ramster-cluster options...]: boot the cluster with the
# given jobs, wait for every node's verdict, take it down, and succeed
# only when every node passed.  The state directory stays for inspection.
# If the caller set cluster_hook to a function name, it runs once the
# cluster is up, before the verdicts are awaited, as cluster_hook FILE
# STATE NAME; its failure fails the run.
run_cluster()
{
	local file=$1 name state rc=0 node
	shift
	name=$(cluster_name "$file")
	state=/var/lib/ramster/tests/$name
	mkdir -p "$state"
	chmod 755 /var/lib/ramster /var/lib/ramster/tests "$state"
	rm -f "$state"/*.log

	# A run killed before its own cleanup (a CI timeout) leaves its
	# domains defined; they are this test's own, named for its cluster.
	if virsh -c "$uri" net-info "$name-net" >/dev/null 2>&1 ||
	   virsh -c "$uri" list --all --name | grep -q "^$name-"; then
		echo "cluster $name is left from an earlier run: taking it down"
		"$tool" -c "$file" -s "$state" -u "$uri" down >/dev/null 2>&1 || true
	fi
	# The trap runs after this function returned: it takes its values now.
	trap "$(printf '%q ' "$tool" -c "$file" -s "$state" -u "$uri") down >/dev/null 2>&1" EXIT
	"$tool" -c "$file" -s "$state" -u "$uri" -k "$kernel" -i "$initrd" "$@" up ||
		return 1
	# A test may act on the running cluster: cluster_hook FILE STATE NAME.
	if [ -n "${cluster_hook:-}" ]; then
		"$cluster_hook" "$file" "$state" "$name" || rc=1
	fi
	for node in $(node_names "$file"); do
		wait_job "$state" "$node" "$name-$node" || rc=1
	done
	"$tool" -c "$file" -s "$state" -u "$uri" down || rc=1
	trap - EXIT
	for node in $(node_names "$file"); do
		verdict "$state" "$node" || rc=1
	done
	return $rc
}

# early_flake STATE NODE: true when the node's kernel reported a problem
# before it ran init, that is before any module or job of ours ran.  Under
# TCG the 6.1 kernel rarely trips over an early interrupt while it sets up
# the CPU or the interrupt controller; such a boot is retried once, and
# said so in the log.
early_flake()
{
	awk -v bad="$bad_console" '/Run \/init as init process/ { exit 1 }
		$0 ~ bad { found = 1; exit 0 } END { exit !found }' \
		"$1/$2.console.log" 2>/dev/null
}

# run_job FILE JOB [ramster-cluster options...]: every node runs JOB.
run_job()
{
	local file=$1 job=$2 name state node
	shift 2
	run_cluster "$file" -j "$job" "$@" && return 0
	name=$(cluster_name "$file")
	state=/var/lib/ramster/tests/$name
	for node in $(node_names "$file"); do
		early_flake "$state" "$node" || continue
		echo "guest $node: kernel trouble before init (not our code): booting again, once"
		mkdir -p "$state/first-boot"
		cp "$state"/*.log "$state/first-boot/"
		run_cluster "$file" -j "$job" "$@"
		return
	done
	return 1
}
