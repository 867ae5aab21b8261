# bench/lib.sh - what the benches share: the image check,
# and one boot of a cluster followed to its verdict.  Sourced by a bench
# after tests/lib/libvirt.sh and tests/lib/guest.sh; it sets $bench_name
# (for messages) and defines show LINE (one results line as progress).

bench_die() { echo "bench/$bench_name: $*" >&2; exit 1; }

# bench_console FILE: the console log as judged; a bench whose workload
# may end in the OOM killer (zram out of room) sets bench_oom_ok=1, and
# the OOM killer's reports (from "invoked oom-killer" to "Killed
# process") are left out.
bench_console()
{
	if [ "${bench_oom_ok:-0}" = 1 ]; then
		awk '/invoked oom-killer/ { skip = 1 } !skip { print }
			/Out of memory: Killed process/ { skip = 0 }' "$1" 2>/dev/null
	else
		cat "$1" 2>/dev/null
	fi
}

# bench_perf_initrd INITRD OUT: INITRD with the host's perf and the
# libraries it loads, as a second archive the kernel unpacks on top.
bench_perf_initrd()
{
	local root lib
	root=$(mktemp -d)
	mkdir -p "$root/usr/bin"
	cp /usr/bin/perf "$root/usr/bin/perf"
	for lib in $(ldd /usr/bin/perf | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	{
		cat "$1"
		(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1n
	} > "$2.tmp"
	rm -rf "$root"
	mv "$2.tmp" "$2"
}

# bench_host_cpu LABEL=DOMAIN...: one line of the host's CPU time so far,
# in ticks: host_busy and host_total over all its CPUs, and per running
# domain LABEL_vcpu (its TCG vCPU threads) and LABEL_qemu (QEMU's other
# threads: the main loop, virtio's I/O, RCU); a domain not running is 0.
bench_host_cpu()
{
	local arg pid

	awk '$1 == "cpu" { printf "host_busy=%d host_total=%d", $2 + $3 + $4 + $7 + $8,
		$2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat
	for arg; do
		pid=$(cat "/run/libvirt/qemu/${arg#*=}.pid" 2>/dev/null) || pid=
		cat /proc/"${pid:-0}"/task/*/stat 2>/dev/null |
			awk -v l="${arg%%=*}" '{
				c = $0; sub(/^[0-9]+ \(/, "", c); sub(/\) [^)]*$/, "", c)
				s = $0; sub(/.*\) /, "", s); split(s, f, " ")
				if (c ~ /^CPU [0-9]+\/TCG$/) v += f[12] + f[13]; else q += f[12] + f[13]
			}
			END { printf " %s_vcpu=%d %s_qemu=%d", l, v, l, q }'
	done
	echo
}

# bench_host_delta START END: two bench_host_cpu lines as what each took
# between them: host_cpus, host_s (seconds), host_busy_pct (of all the
# host's CPUs), and host_LABEL_vcpu_pct, host_LABEL_qemu_pct (of one CPU).
bench_host_delta()
{
	printf '%s\n%s\n' "$1" "$2" | awk -v n="$(nproc)" -v hz="$(getconf CLK_TCK)" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[NR, kv[1]] = kv[2]; k[kv[1]] = 1 } }
		END {
			el = (v[2, "host_total"] - v[1, "host_total"]) / n
			if (el <= 0)
				exit
			printf "host_cpus=%d host_s=%.0f host_busy_pct=%.0f", n, el / hz,
				100 * (v[2, "host_busy"] - v[1, "host_busy"]) / (el * n)
			for (key in k)
				if (key !~ /^host_/)
					printf " host_%s_pct=%.0f", key, 100 * (v[2, key] - v[1, key]) / el
			print ""
		}'
}

# bench_need INITRD FILE...: each FILE (a path inside the image) is there.
bench_need()
{
	local img=$1 have f
	shift
	[ -r "$kernel" ] && [ -r "$img" ] ||
		bench_die "no guest kernel or image: run 'make all' first"
	have=$(zcat "$img" | cpio -t --quiet 2>/dev/null)
	for f in "$@"; do
		echo "$have" | grep -qx "\./$f\|$f" ||
			bench_die "$f is not in $img; put it in the image (Makefile MODULES or GUEST_BINS) and run 'make all'"
	done
}

# bench_down: take down the cluster bench_once brought up, if it is still
# up; a bench's EXIT trap calls it, so an interrupted bench leaves no
# domain behind.
bench_down()
{
	[ -n "${bench_up:-}" ] || return 0
	"$tool" -c "${bench_up%% *}" -s "${bench_up#* }" -u "$uri" down >/dev/null 2>&1 || true
	bench_up=
}

# bench_boot CLUSTER STATE WATCH TIMEOUT [ramster-cluster up options...]:
# boot the cluster, show WATCH's results lines as they arrive (show), wait
# for its verdict, take the cluster down, and check every node's verdict
# and console.  A node whose kernel tripped before init is booted again,
# once.  Sets bench_start (epoch s) and bench_load ("before -> after").
bench_boot()
{
	local cluster=$1 state=$2 watch=$3 timeout=$4 node flake
	shift 4

	mkdir -p "$state"
	chmod 755 /var/lib/ramster /var/lib/ramster/bench "$state"
	bench_once "$cluster" "$state" "$watch" "$timeout" "$@" && return 0
	flake=
	for node in $(node_names "$cluster"); do
		early_flake "$state" "$node" && flake=$node
	done
	[ -n "$flake" ] || bench_die "FAILED; logs in $state"
	echo "bench: guest $flake: kernel trouble before init (not our code): booting again, once"
	mkdir -p "$state/first-boot"
	cp "$state"/*.log "$state/first-boot/"
	bench_once "$cluster" "$state" "$watch" "$timeout" "$@" ||
		bench_die "FAILED; logs in $state"
}

bench_once()
{
	local cluster=$1 state=$2 watch=$3 timeout=$4 seen=0 n bad node rc=0
	local dom=$(cluster_name "$1")-$3 log=$2/$3.results.log load
	shift 4

	rm -f "$state"/*.log
	bench_start=$(date +%s)
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	bench_up="$cluster $state"
	"$tool" -c "$cluster" -s "$state" -u "$uri" -k "$kernel" "$@" up >/dev/null ||
		bench_die "ramster-cluster up failed"
	while :; do
		n=$(wc -l 2>/dev/null < "$log" || echo 0)
		if [ "$n" -gt $seen ]; then
			sed -n "$((seen + 1)),${n}p" "$log" | tr -d '\r' |
				while IFS= read -r l; do show "$l"; done
			seen=$n
		fi
		grep -q 'RAMSTER-RESULT JOB ' "$log" 2>/dev/null && break
		case $(virsh -c "$uri" domstate "$dom" 2>/dev/null) in
		running|paused|"in shutdown") ;;
		*) sleep 1; echo "bench: $watch stopped"; break ;;
		esac
		[ $(($(date +%s) - bench_start)) -lt "$timeout" ] ||
			{ echo "bench: no verdict from $watch after $timeout s"; break; }
		sleep 2
	done
	bench_load="$load -> $(cut -d' ' -f1-3 /proc/loadavg)"
	# The other nodes finish once the watched one has let go of them.
	for node in $(node_names "$cluster"); do
		[ "$node" = "$watch" ] && continue
		n=0
		while ! grep -q 'RAMSTER-RESULT JOB ' "$state/$node.results.log" 2>/dev/null &&
			[ $n -lt 120 ]; do
			sleep 1
			n=$((n + 1))
		done
	done
	bench_down
	for node in $(node_names "$cluster"); do
		bad=$(bench_console "$state/$node.console.log" | grep -E "$bad_console" | head -n 20)
		if [ -n "$bad" ] || ! grep -q 'RAMSTER-RESULT JOB .* PASS' "$state/$node.results.log" 2>/dev/null; then
			echo "bench: guest $node failed:"
			tr -d '\r' < "$state/$node.results.log" | grep -v ' BENCH \| PROGRESS ' | sed 's/^/    /'
			echo "$bad" | sed 's/^/    /'
			echo "--- $node console tail:"
			tail -n 40 "$state/$node.console.log" | sed 's/^/    /'
			rc=1
		fi
	done
	return $rc
}

# bench_host: a markdown paragraph on where the numbers come from.
bench_host()
{
	local state=$1 node=$2 commit

	commit=$(git rev-parse --short HEAD)
	[ -z "$(git status --porcelain -- . ':!bench/results' | head -n 1)" ] ||
		commit="$commit + uncommitted changes"
	echo "Host: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)," \
		"$(nproc) CPUs, $(qemu-system-x86_64 --version | head -n 1)," \
		"libvirt domain type $(sed -n "s/.*<domain type='\([a-z]*\)'.*/\1/p" "$state/$node.xml")" \
		"(TCG).  Tree $commit."
}
