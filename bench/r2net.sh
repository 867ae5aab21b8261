#!/bin/bash
# bench/r2net.sh - r2net's echo latency and 4 KiB throughput between two
# guests, beside a plain userspace TCP ping-pong (tcpping) between the
# same guests in the same boot; writes bench/results/r2net.md.
#
# usage: bench/r2net.sh        (make bench-r2net builds first, then runs it)
#
# Boots bench/clusters/duo.cluster with job bench-r2net (guest/jobs/), shows
# each measurement as it arrives, takes the cluster down, and tables the
# medians over the rounds with their spread.  Fails (non-zero) if any echo
# was wrong, a guest's kernel complained, or the job did not finish.
# Environment: BENCH_ROUNDS (3), BENCH_SYNC (1000 round trips per sync
# measurement), BENCH_ASYNC (10000 messages per throughput measurement),
# BENCH_TIMEOUT (s, 3600), BENCH_OUT (bench/results/r2net.md),
# BENCH_INITRD (build/initramfs.cpio.gz).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/libvirt.sh
. tests/lib/guest.sh
. bench/lib.sh
bench_name=r2net.sh

cluster=$top/bench/clusters/duo.cluster
rounds=${BENCH_ROUNDS:-3} nsync=${BENCH_SYNC:-1000} nasync=${BENCH_ASYNC:-10000}
timeout=${BENCH_TIMEOUT:-3600}
out=${BENCH_OUT:-$top/bench/results/r2net.md}
initrd=${BENCH_INITRD:-$initrd}
name=$(cluster_name "$cluster")
state=/var/lib/ramster/bench/$name

bench_need "$initrd" lib/modules/ramster/r2net.ko lib/modules/ramster/r2echo.ko \
	usr/bin/tcpping usr/bin/ramsterctl jobs/bench-r2net.sh
# The two guests: the memory server answers, the first client measures.
server=$(awk '/^node:/ { n = "" } $1 == "name" { n = $3 }
	$1 == "role" && $3 == "memory-server" { print n; exit }' "$cluster")
measurer=$(awk '/^node:/ { n = "" } $1 == "name" { n = $3 }
	$1 == "role" && $3 == "client" { print n; exit }' "$cluster")
clock=$(tsc_clock)
tsc_khz=${clock#tsc_early_khz=}
tsc_khz=${tsc_khz%% *}

mkdir -p "$(dirname "$out")"
libvirt_up || bench_die "libvirtd would not start"
trap 'bench_down; libvirt_down' EXIT
trap 'echo "bench/r2net.sh: interrupted"; exit 130' INT TERM

# show LINE: one results line as progress.
show() {
	local l=${1#RAMSTER-RESULT } s=$(($(date +%s) - bench_start))

	case $l in
	"BENCH "*)
		echo "$l" | awk -v s=$s '{ for (i = 2; i <= NF; i++) {
				split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "[%4d s] round %s %-6s %-15s p50 %6s us  p99 %7s us  %5s msgs/s  CPU/msg %5s + %5s us\n",
				s, v["round"], v["impl"], v["test"], v["p50"],
				v["p99"], v["mps"], v["c_cpu_us"], v["s_cpu_us"] }' ;;
	*) printf '[%4d s] %s: %s\n' $s "$measurer" "$l" ;;
	esac
}

echo "bench: booting $name ($server serves, $measurer measures):" \
	"$rounds rounds, $nsync sync and $nasync async messages per measurement"
bench_boot "$cluster" "$state" "$measurer" "$timeout" -i "$initrd" \
	-j bench-r2net -a "ramster.bench=$rounds,$nsync,$nasync" -a "$clock"
load_before=${bench_load% -> *} load_after=${bench_load#* -> }

# The table.
results=$(tr -d '\r' < "$state/$measurer.results.log")
guest_kernel=$(echo "$results" | sed -n 's/.*BENCH-INFO kernel=\([^ ]*\).*/\1/p')
guest_clock=$(echo "$results" | sed -n 's/.*BENCH-INFO .*clock=\([^ ]*\).*/\1/p')
base=$(echo "$results" | sed -n 's/.*BENCH-BASE //p')
qemu=$(qemu-system-x86_64 --version | head -n 1)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
domtype=$(sed -n "s/.*<domain type='\([a-z]*\)'.*/\1/p" "$state/$measurer.xml")
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain -- r2net tests/r2echo tests/guest-bin/tcpping.c \
	guest/jobs/bench-r2net.sh bench/r2net.sh bench/lib.sh bench/clusters | wc -l)
[ "$dirty" = 0 ] || commit="$commit + uncommitted changes"

# table: the BENCH lines of a results log as markdown tables.
table='
	function med(k,   n, i, j, t, a) {
		n = split(vals[k], a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		lo[k] = a[1]; hi[k] = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function cell(k, fmt,   m) {
		if (!(k in vals))
			return "-"
		m = med(k)
		if (lo[k] == hi[k])
			return sprintf(fmt, m)
		return sprintf(fmt " [" fmt ".." fmt "]", m, lo[k], hi[k])
	}
	# ratio A B: A / B per round (the two ran back to back), the median
	# of those with their spread.
	function ratio(a, b,   r, k) {
		k = "ratio " a " / " b
		if (!(k in vals))
			for (r in seen)
				if ((a, r) in rv && (b, r) in rv && rv[b, r] > 0)
					vals[k] = ((k in vals) ? vals[k] " " : "") rv[a, r] / rv[b, r]
		return cell(k, "%.2f")
	}
	# diff A B FMT: A - B per round, the median of those with their spread.
	function diff(a, b, fmt,   r, k) {
		k = "diff " a " - " b
		if (!(k in vals))
			for (r in seen)
				if ((a, r) in rv && (b, r) in rv)
					vals[k] = ((k in vals) ? vals[k] " " : "") rv[a, r] - rv[b, r]
		return cell(k, fmt)
	}
	function diff_row(label, a, b) {
		printf "| %s | %s | - | %s | %s | %s | %s | - | - |\n", label,
			diff(a " p50", b " p50", "%+d"),
			diff(a " c_cpu_us", b " c_cpu_us", "%+d"),
			diff(a " s_cpu_us", b " s_cpu_us", "%+d"),
			diff(a " c_ctxt", b " c_ctxt", "%+.1f"),
			diff(a " s_ctxt", b " s_ctxt", "%+.1f")
	}
	function lat_row(label, t, tt) {
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
			cell("r2net " t " p50", "%d"), cell("r2net " t " p99", "%d"),
			cell("r2net " t " max", "%d"), cell("tcp " tt " p50", "%d"),
			cell("tcp " tt " p99", "%d"), cell("tcp " tt " max", "%d"),
			ratio("r2net " t " p50", "tcp " tt " p50"),
			ratio("r2net " t " p99", "tcp " tt " p99"),
			ratio("r2net " t " max", "tcp " tt " max")
	}
	function tput_row(label, t) {
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
			cell("r2net " t " mps", "%d"), cell("r2net " t " mbs", "%.1f"),
			cell("tcp " t " mps", "%d"), cell("tcp " t " mbs", "%.1f"),
			ratio("r2net " t " mps", "tcp " t " mps"),
			cell("r2net " t " p50", "%d"), cell("tcp " t " p50", "%d")
	}
	function split_cell(i, t, w,   k, f, out) {
		split("user sys softirq idle", f, " ")
		for (k = 1; k <= 4; k++) {
			if (!((i " " t " " w "_" f[k]) in vals))
				return "-"
			out = out (k > 1 ? "/" : "") sprintf("%d", med(i " " t " " w "_" f[k]))
		}
		return out
	}
	function where_row(label, i, t) {
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
			cell(i " " t " p50", "%d"), cell(i " " t " rtt_avg", "%d"),
			cell(i " " t " c_cpu_us", "%d"), cell(i " " t " s_cpu_us", "%d"),
			cell(i " " t " c_ctxt", "%.1f"), cell(i " " t " s_ctxt", "%.1f"),
			split_cell(i, t, "c"), split_cell(i, t, "s")
	}
	$1 == "RAMSTER-RESULT" && $2 == "BENCH" {
		delete v
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		if (v["test"] ~ /^async/)
			v["mbs"] = v["mps"] * 4096 / 1e6
		for (f in v)
			if (f != "round" && f != "impl" && f != "test") {
				k = v["impl"] " " v["test"] " " f
				vals[k] = (k in vals) ? vals[k] " " v[f] : v[f]
				rv[k, v["round"]] = v[f]
				seen[v["round"]] = 1
			}
	}
	END {
		print "## Synchronous echo latency (us)\n"
		print "| echo | r2net p50 | r2net p99 | r2net max | TCP p50 | TCP p99 | TCP max | r2net/TCP p50 | p99 | max |"
		print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		lat_row("1 B", "sync-1", "sync-1")
		lat_row("4096 B", "sync-4096", "sync-4096")
		lat_row("page, 4128 B (TCP: 4128 B)", "page", "page")
		print "\n## 4 KiB throughput, messages in flight\n"
		print "| window | r2net msgs/s | r2net MB/s | TCP msgs/s | TCP MB/s | r2net/TCP | r2net p50 us | TCP p50 us |"
		print "|---|---:|---:|---:|---:|---:|---:|---:|"
		tput_row("64", "async-4096-w64")
		tput_row("256", "async-4096-w256")
		print "\n## Where the time goes\n"
		print "Per message, on the measuring guest (m) and on the serving one (s):"
		print "CPU time and context switches above the idle baseline of each, and"
		print "the CPU split of the run in % (user/sys/softirq/idle; irq is the rest)."
		print "rtt_avg is the rtt_avg_us counter of r2net after the run (request"
		print "queued to reply read, in the kernel; a moving average of the last"
		print "few).  ICMP ping is back to back (ping -A); the server answers it in"
		print "its softirq, no task wakes up there.  TCP inside m goes through lo:"
		print "no virtio, QEMU or host in the way.  TCP 33 B puts on the wire what"
		print "the r2net 1 B echo does (32-byte header + 1 byte).  The rows in bold"
		print "are differences taken in each round, then the median [min..max].\n"
		print "| measurement | p50 us | rtt_avg us | CPU us/msg m | CPU us/msg s | ctxt/msg m | ctxt/msg s | CPU split m | CPU split s |"
		print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
		where_row("ICMP ping, 56 B", "icmp", "sync-56")
		where_row("TCP sync 1 B inside m (lo)", "tcp-lo", "sync-1")
		where_row("TCP sync 1 B", "tcp", "sync-1")
		where_row("TCP sync 33 B", "tcp", "sync-33")
		where_row("r2net sync 0 B", "r2net", "sync-0")
		where_row("r2net sync 1 B", "r2net", "sync-1")
		where_row("TCP sync 4096 B", "tcp", "sync-4096")
		where_row("r2net sync 4096 B", "r2net", "sync-4096")
		where_row("TCP sync 4128 B", "tcp", "page")
		where_row("r2net page (4128 B)", "r2net", "page")
		where_row("TCP 4 KiB, window 64", "tcp", "async-4096-w64")
		where_row("r2net 4 KiB, window 64", "r2net", "async-4096-w64")
		where_row("TCP 4 KiB, window 256", "tcp", "async-4096-w256")
		where_row("r2net 4 KiB, window 256", "r2net", "async-4096-w256")
		diff_row("**r2net 1 B - TCP 33 B**", "r2net sync-1", "tcp sync-33")
		diff_row("**r2net 0 B - TCP 1 B**", "r2net sync-0", "tcp sync-1")
		diff_row("**r2net 4096 B - TCP 4096 B**", "r2net sync-4096", "tcp sync-4096")
		diff_row("**r2net page - TCP 4128 B**", "r2net page", "tcp page")
		diff_row("**r2net - TCP, 4 KiB window 64**", "r2net async-4096-w64", "tcp async-4096-w64")
		diff_row("**TCP 1 B - TCP 1 B inside m**", "tcp sync-1", "tcp-lo sync-1")
	}
'

{
	cat <<-EOF
	# r2net beside plain TCP

	Made by \`make bench-r2net\` (bench/r2net.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'),
	tree $commit.

	- Host: $cpu, $(nproc) CPUs, Linux $(uname -r); load average
	  $load_before before the boot, $load_after at the end
	- $qemu; libvirt domain type \`$domtype\` (TCG: no KVM, so absolute
	  numbers are slow; compare the ratios)
	- Guests: Linux $guest_kernel (the debug kernel: KASAN, lockdep,
	  kmemleak), clock $guest_clock (tsc_early_khz=$tsc_khz, the host TSC
	  rate, and tsc=reliable), 1 vCPU and 256 MiB each, $(basename "$cluster"): $server
	  (memory server) serves, $measurer measures; kmemleak scans off
	  during the runs; idle baseline (10 s): $base
	- $rounds rounds in one boot, each: $nsync synchronous round trips per
	  size, $nasync messages per throughput run; cells are the median over
	  the rounds with [min..max] beside it; a ratio is taken in each round
	  (r2net and TCP ran back to back, in turns first) and shown the same
	  way
	- r2net: r2echo.ko's sync, page and async commands (in the kernel, all
	  r2net.h).  TCP: tcpping between the same guests, userspace, one
	  connection, TCP_NODELAY on both ends.  Every echo's bytes are checked.
	  Latency is one round trip in microseconds (nearest rank); MB/s is
	  4096-byte payloads echoed per second, one way, in 10^6 bytes

	EOF
	echo "$results" | awk "$table"
	echo
	echo "## Raw results ($measurer's results channel)"
	echo
	echo '```'
	echo "$results" | grep ' BENCH' | sed 's/ *$//'
	echo '```'
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "bench: wrote ${out#$top/}"
sed -n '/^## Synchronous/,/^## Raw/p' "$out" | sed '$d'
