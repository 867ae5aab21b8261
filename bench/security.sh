#!/bin/bash
# bench/security.sh - what r2net's frame protection costs a swapping
# client: the swap bench's RAMster workload, the same cluster booted with
# security none (no tags), integrity (every frame tagged, the default) and
# encrypt (payloads encrypted too), one after another in each run.
# Writes bench/results/security.md.
#
# usage: bench/security.sh    (make bench-security builds first, then runs it)
#
# Each boot is bench/clusters/swap.cluster with "security = S" added, job
# bench-swap (guest/jobs/), "swapcheck timed MIB ROUNDS" in RAMster mode
# none (the server holds the only copy: every page crosses the network)
# unless BENCH_CONFIGS says otherwise; the table quotes the median over the
# runs.  Fails (non-zero) if any page came back wrong, a guest's kernel
# complained, or a job did not finish.
# Environment: BENCH_MIB (512, twice the client's RAM), BENCH_ROUNDS (1),
# BENCH_RUNS (3), BENCH_CONFIGS (none), BENCH_TIMEOUT (s per boot, 3600),
# BENCH_OUT (bench/results/security.md).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/libvirt.sh
. tests/lib/guest.sh
. bench/lib.sh
bench_name=security.sh
fast_kernel

mib=${BENCH_MIB:-512} rounds=${BENCH_ROUNDS:-1} runs=${BENCH_RUNS:-3}
configs=${BENCH_CONFIGS:-none}
timeout=${BENCH_TIMEOUT:-3600}
out=${BENCH_OUT:-$top/bench/results/security.md}
swapc=$top/bench/clusters/swap.cluster
state=/var/lib/ramster/bench/$(cluster_name "$swapc")-security
client=c2
raw=$state/raw.txt
levels="none integrity encrypt"

bench_need "$initrd" lib/modules/ramster/r2net.ko \
	lib/modules/ramster/ramster_backend.ko \
	lib/modules/ramster/ramster_frontend.ko usr/bin/swapcheck \
	jobs/bench-swap.sh
grep -q '^[[:space:]]*security[[:space:]]*=' "$swapc" &&
	bench_die "$swapc sets security itself; this bench sets it per boot"
clock=$(tsc_clock)

libvirt_up || bench_die "libvirtd would not start"
trap 'bench_down; libvirt_down' EXIT
trap 'echo "bench/security.sh: interrupted"; exit 130' INT TERM

show() {
	local l=${1#RAMSTER-RESULT } s=$(($(date +%s) - bench_start))

	case $l in
	"BENCH config="*)
		echo "$l" | awk -v s=$s -v sec="$sec" '{ for (i = 2; i <= NF; i++) {
				split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "[%4d s] %-9s %-6s %6.1f s  swap-ins %6d  p50 %5d us  p99 %6d us\n",
				s, sec, v["config"], v["total_ms"] / 1000, v["swapins"],
				v["p50_us"], v["p99_us"] }' ;;
	"BENCH"*) ;;
	*) printf '[%4d s] %s: %s\n' $s $client "$l" ;;
	esac
}

mkdir -p "$state" "$(dirname "$out")"
: > "$raw"
for run in $(seq 1 "$runs"); do
	for sec in $levels; do
		echo "bench: run $run of $runs: security $sec, $configs, $mib MiB"
		c=$state/swap-$sec.cluster
		awk -v s="$sec" '{ print } /^cluster:/ { print "\tsecurity = " s }' \
			"$swapc" > "$c"
		bench_boot "$c" "$state" $client "$timeout" -i "$initrd" \
			-j bench-swap -a "ramster.bench=$configs,$mib,$rounds" \
			-a "$clock"
		tr -d '\r' < "$state/$client.results.log" |
			sed -n "s/^RAMSTER-RESULT BENCH \(config=.*\)/run=$run security=$sec \1/p" >> "$raw"
		tr -d '\r' < "$state/$client.results.log" |
			sed -n 's/^RAMSTER-RESULT BENCH-INFO //p' | head -n 1 > "$state/info.txt"
	done
done

{
	echo "# What r2net's frame protection costs a swapping client"
	echo
	echo "Written by bench/security.sh on $(date -u +%F).  $(bench_host "$state" $client)"
	echo "Guest: $(cat "$state/info.txt"); the fast kernel, 1 vCPU per guest."
	echo
	echo "Workload: \`swapcheck timed $mib $rounds\` in a client of 256 MiB, as in"
	echo "swap.md, in RAMster configuration(s) $configs, on bench/clusters/swap.cluster"
	echo "booted three times a run with r2net security none (frames carry no tag),"
	echo "integrity (the default: a Poly1305 tag on every frame, its one-time key"
	echo "from BLAKE2s) and encrypt (the payload ChaCha20-encrypted, then tagged),"
	echo "one after another.  Every page is checked in every run.  Median of $runs"
	echo "run(s); / none is the wall time over the same configuration with no tags."
	echo
	echo "| security | config | wall s | / none | swap-ins | swap-in p50 us | p99 us | stored pages/s | loaded pages/s | CPU us / page, client / server |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -v levels="$levels" '
	function med(k, key,   n, i, j, t, a) {
		n = nr[k]
		for (i = 1; i <= n; i++) a[i] = v[k, i, key] + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (!(c in seen)) { seen[c] = 1; cs[++nc] = c }
		k = f["security"] SUBSEP c
		r = ++nr[k]
		for (x in f) v[k, r, x] = f[x]
		s = f["total_ms"] / 1000
		st = f["fs_stores"]; ld = f["fs_loads"]
		if (s > 0) { v[k, r, "stored"] = st / s; v[k, r, "loaded"] = ld / s }
		if (st + ld > 0) {
			v[k, r, "cus_pp"] = f["busy_ticks"] * 10000 / (st + ld)
			v[k, r, "sus_pp"] = f["srv_busy_ticks"] * 10000 / (st + ld)
		}
		split("", f)
	}
	END {
		nl = split(levels, L, " ")
		for (i = 1; i <= nc; i++) {
			c = cs[i]
			base = med("none" SUBSEP c, "total_ms")
			for (j = 1; j <= nl; j++) {
				k = L[j] SUBSEP c
				if (!nr[k]) continue
				w = med(k, "total_ms")
				printf "| %s | %s | %.1f | %s | %d | %d | %d | %d | %d | %d / %d |\n",
					L[j], c, w / 1000,
					base ? sprintf("**%.2f**", w / base) : "-",
					med(k, "swapins"), med(k, "p50_us"), med(k, "p99_us"),
					med(k, "stored"), med(k, "loaded"),
					med(k, "cus_pp"), med(k, "sus_pp")
			}
		}
	}' "$raw"
	echo
	echo "Stored pages/s: pages frontswap gave the frontend, over the wall time;"
	echo "loaded: pages it loaded.  CPU per page moved (stored plus loaded): the"
	echo "time each guest was busy while the workload ran, over those pages."
	echo "The target (issue 18): integrity at most 1.15 times none in wall time."
	echo
	echo "Raw lines (one per security, configuration and run):"
	echo
	echo '```'
	cat "$raw"
	echo '```'
} > "$out"
cat "$out"
