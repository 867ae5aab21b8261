#!/bin/bash
# bench/swap.sh - one client's swapping workload, side by side: all in RAM
# (a larger VM), swap to its virtio disk throttled like a cloud SSD volume
# (without and with the kernel's readahead), the same disk unthrottled
# (the host's page cache), RAMster's frontend in modes writethrough
# (window 32, whole pages, window 0) and none, both also with the local
# tier, and writethrough with the local tier and readahead by address;
# swap to
# an NVMe/TCP namespace in the memory server's RAM, zram, and zswap in
# front of the throttled disk; and the network between the same guests.
# Writes bench/results/swap.md, and swap-wall.png and swap-latency.png
# beside it (gnuplot).
#
# usage: bench/swap.sh        (make bench-swap builds first, then runs it)
#
# The workload is "swapcheck timed MIB ROUNDS" in a 256 MiB client: random
# reads and writes over MIB, every page checked on every read, then every
# page once more.  Each run boots, in bench/clusters/, swap-ram.cluster
# (ram), swap.cluster (throttled disk: disk and the RAMster modes, one
# after another) and swap-disk.cluster (unthrottled: disk) with job bench-swap
# (guest/jobs/); the table quotes the median over the runs.  Fails
# (non-zero) if any page came back wrong, a guest's kernel complained, or
# a job did not finish.
# Environment: BENCH_MIB (768, three times the client's RAM), BENCH_ROUNDS
# (1), BENCH_RUNS (3), BENCH_CONFIGS
# (disk+diskra+wt+wtraw+wt0+none+wtlocal+wtlocalra+nonelocal+nvme+zram+scan+scan-cc+zswap),
# BENCH_TIMEOUT
# (s per boot, 3600), BENCH_OUT (bench/results/swap.md), BENCH_PROFILE
# (0; 1: perf samples the client's CPU while each workload of the
# throttled boot runs, and the results say where its time went).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/lib/libvirt.sh
. tests/lib/guest.sh
. bench/lib.sh
bench_name=swap.sh
bench_oom_ok=1	# zram may run out of room: the OOM killer's report is expected
fast_kernel

mib=${BENCH_MIB:-768} rounds=${BENCH_ROUNDS:-1} runs=${BENCH_RUNS:-3}
configs=${BENCH_CONFIGS:-disk+diskra+wt+wtraw+wt0+none+wtlocal+wtlocalra+nonelocal+nvme+zram+scan+scan-cc+zswap}
timeout=${BENCH_TIMEOUT:-3600}
out=${BENCH_OUT:-$top/bench/results/swap.md}
swapc=$top/bench/clusters/swap.cluster
ramc=$top/bench/clusters/swap-ram.cluster
diskc=$top/bench/clusters/swap-disk.cluster
state=/var/lib/ramster/bench/$(cluster_name "$swapc")
client=c2
raw=$state/raw.txt

bench_need "$initrd" lib/modules/ramster/r2net.ko \
	lib/modules/ramster/ramster_backend.ko \
	lib/modules/ramster/ramster_frontend.ko usr/bin/swapcheck \
	jobs/bench-swap.sh
iops=$(awk '$1 == "disk_iops" { print $3; exit }' "$swapc")
mbps=$(awk '$1 == "disk_mbps" { print $3; exit }' "$swapc")
[ -n "$iops" ] && [ -n "$mbps" ] ||
	bench_die "$swapc gives its client no disk_iops and disk_mbps"
clock=$(tsc_clock)
swap_initrd=$initrd
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	"$top/scripts/deps.sh" linux-perf
	mkdir -p "$state"
	swap_initrd=$state/initramfs-perf.cpio.gz
	bench_perf_initrd "$initrd" "$swap_initrd"
fi

libvirt_up || bench_die "libvirtd would not start"
trap 'bench_down; libvirt_down' EXIT
trap 'echo "bench/swap.sh: interrupted"; exit 130' INT TERM

# host_cpu: bench_host_cpu for the booted cluster's client and server.
host_cpu() {
	local n

	n=$(cluster_name "${bench_up%% *}")
	bench_host_cpu client="$n-$client" server="$n-m1"
}

show() {
	local l=${1#RAMSTER-RESULT } s=$(($(date +%s) - bench_start)) cfg

	# The host's CPU time over each workload, from its start mark to its
	# results line (they arrive within the 2 s bench_once polls at).
	case $l in
	"BENCH-MARK config="*)
		host_cpu > "$state/host.start" ;;
	"BENCH config="*)
		cfg=${l#BENCH }
		[ ! -s "$state/host.start" ] ||
			echo "${cfg%% *} $(bench_host_delta "$(cat "$state/host.start")" "$(host_cpu)")" >> "$state/host.txt"
		rm -f "$state/host.start" ;;
	esac
	case $l in
	"BENCH config="*)
		echo "$l" | awk -v s=$s '{ for (i = 2; i <= NF; i++) {
				split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "[%4d s] %-9s %6.1f s  swap-ins %6d  p50 %5d us  p99 %6d us\n",
				s, v["config"], v["total_ms"] / 1000, v["swapins"],
				v["p50_us"], v["p99_us"] }' ;;
	"BENCH"*) ;;
	*) printf '[%4d s] %s: %s\n' $s $client "$l" ;;
	esac
}

# collect RUN BOOT: the boot's BENCH lines into $raw, the server's peaks
# given to the RAMster configurations in order.
collect() {
	tr -d '\r' < "$state/$client.results.log" |
		sed -n "s/^RAMSTER-RESULT BENCH \(config=.*\)/run=$1 boot=$2 \1/p" > "$state/c.txt"
	cat "$state/m1.results.log" 2>/dev/null | tr -d '\r' |
		sed -n 's/^RAMSTER-RESULT BENCH server=[0-9]* //p' > "$state/s.txt"
	touch "$state/host.txt"
	awk 'FILENAME == ARGV[1] { s[FNR] = $0; next }
		FILENAME == ARGV[2] { h[$1] = substr($0, length($1) + 2); next }
		{ c = $3; sub("config=", "", c) }
		c ~ /^(wt|wtraw|wt0|wtpf0|none|wtlocal|wtlocal32|wtlocalra|nonelocal|nvme|scan-cc)$/ { $0 = $0 " " s[++n] }
		{ print $0 (h[$3] == "" ? "" : " " h[$3]) }' "$state/s.txt" "$state/host.txt" "$state/c.txt" >> "$raw"
	rm -f "$state/host.txt"
	tr -d '\r' < "$state/$client.results.log" |
		sed -n 's/^RAMSTER-RESULT BENCH-INFO //p' | head -n 1 > "$state/info.txt"
	tr -d '\r' < "$state/$client.results.log" |
		sed -n "s/^RAMSTER-RESULT BENCH probe=r2net /run=$1 /p" >> "$state/probe.txt"
	tr -d '\r' < "$state/$client.results.log" |
		sed -n "s/^RAMSTER-RESULT BENCH probe=tcp /run=$1 /p" >> "$state/probe.txt"
	tr -d '\r' < "$state/$client.results.log" |
		sed -n "s/^RAMSTER-RESULT BENCH-PROF /run=$1 /p" >> "$state/prof.txt"
}

mkdir -p "$state" "$(dirname "$out")"
: > "$raw"
: > "$state/probe.txt"
: > "$state/prof.txt"
for run in $(seq 1 "$runs"); do
	echo "bench: run $run of $runs: all in RAM, $mib MiB"
	bench_boot "$ramc" "$state" $client "$timeout" -i "$initrd" -j bench-swap \
		-a "ramster.bench=ram,$mib,$rounds" -a "$clock"
	collect "$run" ram
	echo "bench: run $run of $runs: disk throttled to $iops IOPS and $mbps MiB/s; $configs"
	bench_boot "$swapc" "$state" $client "$timeout" -i "$swap_initrd" -j bench-swap \
		-a "ramster.bench=$configs,$mib,$rounds" -a "$clock"
	collect "$run" throttled
	echo "bench: run $run of $runs: disk unthrottled"
	bench_boot "$diskc" "$state" $client "$timeout" -i "$initrd" \
		-j bench-swap -a "ramster.bench=disk,$mib,$rounds" -a "$clock"
	collect "$run" raw
done

info=$(cat "$state/info.txt")
{
	echo "# Swap: RAMster beside disk swap, zram, zswap and all in RAM"
	echo
	echo "Written by bench/swap.sh on $(date -u +%F).  $(bench_host "$state" $client)"
	echo "Guest: $info; the fast kernel: Debian's linux-source-6.1, the patch series"
	echo "frontend/kernel-patches/, kernel/base.config + kernel/fast.config (cached as"
	echo "$(readlink -f "$kernel" | sed 's|.*/\(linux[^/]*\)/arch/.*|\1|')); 1 vCPU per guest."
	echo
	echo "Workload: \`swapcheck timed $mib $rounds\` in a client of 256 MiB: fill $mib MiB"
	echo "(each page checkable, LZO takes it to about half), $rounds round(s) of random"
	echo "reads and writes over a quarter of the pages, every page read checked, then"
	echo "every page checked once more.  ram is the same in a 1536 MiB VM.  The disk is"
	echo "virtio, raw, cache=writeback, throttled by libvirt <iotune> to $iops IOPS and"
	echo "$mbps MiB/s (a cloud SSD volume's baseline), except for disk-raw.  RAMster: one"
	echo "memory server (1536 MiB) over virtio-net; wt = writethrough (pages also on the"
	echo "disk), window 32 stores in flight; wt0 = window 0 (each store waits for the"
	echo "server); wtpf0 = wt with swap_prefetch 0 (each load waits for its page"
	echo "alone; wt fetches the next 16 pages of in-order loads ahead); none = the"
	echo "server has the only copy; wtlocal, nonelocal = wt and none with the local tier"
	echo "(local_pool_percent=20: pages kept compressed in the client first, the oldest"
	echo "sent on 16 to a frame); wtlocal32 = wtlocal fetching 32 pages ahead, not"
	echo "16 (swap_prefetch=32); wtlocalra = wtlocal with the kernel's swap readahead"
	echo "by virtual address (page-cluster 5, windows of up to 32 pages; the swap disk"
	echo "marked non-rotational), each window asked for in one go (kernel patch 7);"
	echo "diskra = disk with the kernel's readahead (page-cluster 3).  Everywhere else"
	echo "page-cluster is 0.  Pages travel LZO-compressed (compress=1), except"
	echo "in wtraw (compress=0: whole 4 KiB pages each way).  nvme: swap to an NVMe/TCP"
	echo "namespace the memory server exports from its RAM (nvmet-tcp, a file in tmpfs)"
	echo "over the same virtio-net, the peer a user would pick instead.  zram: LZO, in"
	echo "the client's RAM; zswap: LZO and zbud, 20% of RAM, in front of the throttled"
	echo "disk.  Median of $runs run(s)."
	echo
	echo "| config | wall s | / ram | random phase s | final check s | swap-ins | swap-in p50 us | p99 us | stored pages/s | loaded pages/s | store peak pages | pages / frame | store MiB | CPU busy %, client / server | wire B / page | CPU us / page, client / server |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk '
	function med(c, k,   n, i, j, t, a) {
		n = 0
		for (i = 1; i <= nrun[c]; i++)
			if (!v[c, i, "oom"]) a[++n] = v[c, i, k] + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (c ~ /^scan/) { split("", f); next }
		if (c == "disk" && f["boot"] == "raw") c = "disk-raw"
		if (!(c in nrun)) order[++nc] = c
		r = ++nrun[c]
		for (k in f) v[c, r, k] = f[k]
		if (f["oom"]) noom[c]++
		s = f["total_ms"] / 1000
		st = f["fs_stores"] ? f["fs_stores"] : f["disk_out"]
		ld = f["fs_loads"] + f["disk_in"]
		if (s > 0) {
			v[c, r, "stored"] = st / s
			v[c, r, "loaded"] = ld / s
		}
		# Per page moved: USER_HZ is 100, a jiffy 10 000 us.
		if (st + ld > 0) {
			v[c, r, "wire_pp"] = f["wire_bytes"] / (st + ld)
			v[c, r, "cus_pp"] = f["busy_ticks"] * 10000 / (st + ld)
			v[c, r, "sus_pp"] = f["srv_busy_ticks"] * 10000 / (st + ld)
		}
		split("", f)
	}
	END {
		base = med("ram", "total_ms")
		for (i = 1; i <= nc; i++) {
			c = order[i]
			if (noom[c] == nrun[c]) {
				printf "| %s | out of room: the OOM killer ended the workload (%d of %d runs) |||||||||||||||\n",
					c, noom[c], nrun[c]
				continue
			}
			pk = med(c, "peak_pages"); fr = med(c, "peak_frames")
			cpu = nrun[c] && v[c, 1, "cpu_busy_pct"] != "" ? med(c, "cpu_busy_pct") : "-"
			if (v[c, 1, "srv_cpu_busy_pct"] != "") cpu = cpu " / " med(c, "srv_cpu_busy_pct")
			wire = v[c, 1, "wire_pp"] != "" ? sprintf("%d", med(c, "wire_pp")) : "-"
			us = v[c, 1, "cus_pp"] != "" ? sprintf("%d / %d", med(c, "cus_pp"), med(c, "sus_pp")) : "-"
			printf "| %s%s | %.1f | %.2f | %.1f | %.1f | %d | %d | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n",
				c, noom[c] ? sprintf(" (OOM in %d of %d runs)", noom[c], nrun[c]) : "",
				med(c, "total_ms") / 1000,
				base ? med(c, "total_ms") / base : 0,
				med(c, "random_ms") / 1000, med(c, "verify_ms") / 1000,
				med(c, "swapins"),
				med(c, "p50_us"), med(c, "p99_us"),
				med(c, "stored"), med(c, "loaded"),
				pk ? pk : "-", fr ? sprintf("%.2f", pk / fr) : "-",
				fr ? sprintf("%.1f", fr * 4 / 1024) : "-", cpu, wire, us
		}
	}' "$raw"
	echo
	echo "Swap-ins are the random phase's accesses to a page not in memory, timed"
	echo "one by one; the final check reads every page once more, in order.  Stored pages/s: pages frontswap's backend took (RAMster,"
	echo "zswap), else pages written to the swap device (disk, zram), over the wall"
	echo "time; loaded: pages swapped in.  Store peak pages, pages per page frame"
	echo "and store MiB (page frames held) are the peaks of the compressed store:"
	echo "the memory server's for RAMster, the client's own for zram and zswap."
	echo "CPU busy: the share of the client's vCPU time (user, system, irq) while"
	echo "the workload ran, and of the server's while it held the client's pages."
	echo "Per page moved (stored plus loaded): the bytes through the client's network"
	echo "interface both ways (frames, headers, acks), and the CPU time each guest was"
	echo "busy while the workload ran (the server's read from its /proc/stat)."
	echo
	echo "Where the host's CPUs went while each workload ran (medians; the host"
	echo "reads its /proc from the workload's start to its results line, to within"
	echo "the 2 s it polls at): the host's busy share of all its CPUs, and the share"
	echo "of one CPU that each guest's vCPU thread and the rest of its QEMU process"
	echo "(main loop, virtio-net and disk emulation) took; then the host's busy CPU"
	echo "time per page moved.  Under TCG a guest's own CPU time is its vCPU"
	echo "thread's, slowed when the host has no CPU free for it."
	echo
	echo "| config | host busy % | client vCPU % | client QEMU % | server vCPU % | server QEMU % | host CPU us / page |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	awk '
	function med(c, k,   i, j, t, a, m) {
		m = n[c]
		for (i = 1; i <= m; i++) a[i] = v[c, i, k] + 0
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (c == "disk" && f["boot"] == "raw") c = "disk-raw"
		st = f["fs_stores"] ? f["fs_stores"] : f["disk_out"]
		pg = st + f["fs_loads"] + f["disk_in"]
		if (f["host_s"] != "" && !f["oom"] && pg > 0) {
			if (!(c in n)) order[++nc] = c
			r = ++n[c]
			for (k in f) v[c, r, k] = f[k]
			v[c, r, "us_pp"] = f["host_busy_pct"] / 100 * f["host_cpus"] * f["host_s"] * 1e6 / pg
		}
		split("", f)
	}
	END {
		for (i = 1; i <= nc; i++) {
			c = order[i]
			printf "| %s | %d | %d | %d | %s | %s | %d |\n", c,
				med(c, "host_busy_pct"), med(c, "host_client_vcpu_pct"),
				med(c, "host_client_qemu_pct"),
				v[c, 1, "host_server_vcpu_pct"] == "" ? "-" : med(c, "host_server_vcpu_pct"),
				v[c, 1, "host_server_qemu_pct"] == "" ? "-" : med(c, "host_server_qemu_pct"),
				med(c, "us_pp")
		}
	}' "$raw"
	echo
	# med(A, C): the median of A[C, 1..n[C]], for the lists below.
	awk_med='function med(a, c,   i, j, t, x) {
		for (i = 1; i <= n[c]; i++) x[i] = a[c, i] + 0
		for (i = 2; i <= n[c]; i++)
			for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
		return n[c] % 2 ? x[(n[c] + 1) / 2] : (x[n[c] / 2] + x[n[c] / 2 + 1]) / 2
	}
	'
	echo "The local tier (medians): of the pages frontswap took, those kept in the"
	echo "client first; of its loads, those the tier answered with no round trip; the"
	echo "pages sent on, and how many went in a frame."
	echo
	awk "$awk_med"'{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (c ~ /local/ && f["fs_stores"] > 0 && f["fs_loads"] > 0) {
			n[c]++
			ks[c, n[c]] = 100 * f["local_stores"] / f["fs_stores"]
			kl[c, n[c]] = 100 * f["local_loads"] / f["fs_loads"]
			rm[c, n[c]] = f["remotified"]
			pf[c, n[c]] = f["remotify_batches"] ? f["remotified"] / f["remotify_batches"] : 0
		}
		split("", f)
	}
	END {
		for (c in n)
			printf "- %s: %.0f%% of stores kept here first, %.0f%% of loads served here; %d pages sent on, %.1f a frame\n",
				c, med(ks, c), med(kl, c), med(rm, c), med(pf, c)
	}' "$raw" | sort
	echo
	echo "Swap pages fetched ahead (medians): GETs the frontend sent along the trend"
	echo "of swap offsets (trend.c) and in how many frames; GETs for the kernel's"
	echo "readahead windows (wtlocalra) and their frames; loads a page fetched ahead"
	echo "answered, either way."
	echo
	awk "$awk_med"'{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (f["swap_prefetch_hits"] != "" && f["fs_loads"] > 0) {
			n[c]++
			tg[c, n[c]] = f["swap_prefetches"]; tf[c, n[c]] = f["swap_prefetch_frames"]
			rg[c, n[c]] = f["swap_ra_gets"]; rf[c, n[c]] = f["swap_ra_frames"]
			hi[c, n[c]] = f["swap_prefetch_hits"]; ld[c, n[c]] = f["fs_loads"]
		}
		split("", f)
	}
	END {
		for (c in n)
			if (med(tg, c) + med(rg, c) > 0)
				printf "- %s: %d along the trend in %d frames; %d for readahead in %d frames; %d of %d loads answered by them\n",
					c, med(tg, c), med(tf, c), med(rg, c), med(rf, c), med(hi, c), med(ld, c)
	}' "$raw" | sort
	echo
	echo "## File scan: the second read with and without cleancache"
	echo
	echo "Files of twice the client's RAM (64 MiB each) on its ext4 data disk (throttled"
	echo "like the swap disk) are written, the filesystem is mounted anew, and the files"
	echo "are read twice, every page checked.  scan-cc has the frontend's cleancache"
	echo "(frontswap off): pages the first read evicts go to the memory server, the"
	echo "second read gets them back, each file's next 32 pages (cc_prefetch) asked"
	echo "for ahead of the reader.  Median of $runs run(s)."
	echo
	echo "| config | MiB | first read s | second read s | second read, scan / scan-cc | cleancache hits | disk MiB read, second read |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	awk '
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["config"]
		if (c ~ /^scan/) {
			if (!(c in n)) order[++nc] = c
			r = ++n[c]
			for (k in f) v[c, r, k] = f[k]
		}
		split("", f)
	}
	function med(c, k,   m, i, j, t, a) {
		for (i = 1; i <= n[c]; i++) a[i] = v[c, i, k] + 0
		m = n[c]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		for (i = 1; i <= nc; i++) {
			c = order[i]
			ratio = c == "scan-cc" && med(c, "read2_ms") ? sprintf("**%.2f**", med("scan", "read2_ms") / med(c, "read2_ms")) : "-"
			printf "| %s | %d | %.1f | %.1f | %s | %d | %.1f |\n", c, med(c, "mib"),
				med(c, "read1_ms") / 1000, med(c, "read2_ms") / 1000, ratio,
				med(c, "cc_hits2"), med(c, "disk_kib2") / 1024
		}
	}' "$raw"
	echo
	echo "Where a get's time goes (medians): the frontend's average get round"
	echo "trip, beside r2net's echo to the same server of nothing and of a page"
	echo "(r2echo.ko, 1000 each, after the RAMster configurations), and the network's"
	echo "limit between the same guests; then each configuration's final in-order"
	echo "check: the pages swapped out at its start (mincore: each comes back at least"
	echo "once) over its time, beside the page rate of the TCP echoes:"
	echo
	awk 'FILENAME == ARGV[1] {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); p[kv[1], ++np[kv[1]]] = kv[2] }
			next
		}
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		f["get_rtt_avg_us"] != "" { g[f["config"], ++ng[f["config"]]] = f["get_rtt_avg_us"] }
		f["verify_in"] > 0 && f["verify_ms"] > 0 {
			v[f["config"], ++nv[f["config"]]] = f["verify_in"] * 1000 / f["verify_ms"]
			vi[f["config"], nv[f["config"]]] = f["verify_in"]
		}
		{ split("", f) }
		function med(a, n, k,   i, j, t, x) {
			for (i = 1; i <= n; i++) x[i] = a[k, i] + 0
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		}
		END {
			for (c in ng) printf "- get round trip, %s: %d us\n", c, med(g, ng[c], c)
			printf "- r2net echo of nothing: %d us p50\n", med(p, np["echo0_p50_us"], "echo0_p50_us")
			printf "- r2net echo of a page: %d us p50, %d us p99\n",
				med(p, np["echo_page_p50_us"], "echo_page_p50_us"),
				med(p, np["echo_page_p99_us"], "echo_page_p99_us")
			if (np["rtt4k_p50_us"]) {
				printf "- the limit, the network: plain TCP 4 KiB round trip %d us p50\n",
					med(p, np["rtt4k_p50_us"], "rtt4k_p50_us")
				m = med(p, np["echo64k_w16_msgs_per_s"], "echo64k_w16_msgs_per_s")
				printf "- the limit, the network: plain TCP 64 KiB echoes, 16 in flight: %d a second, %d pages a second each way\n", m, m * 16
			}
			for (c in nv)
				printf "- in-order check, %s: %d pages swapped out at its start, brought back at %d pages a second%s\n",
					c, med(vi, nv[c], c), med(v, nv[c], c),
					m ? sprintf(", %.2f of the TCP echoes'"'"' page rate", med(v, nv[c], c) / (m * 16)) : ""
		}' "$state/probe.txt" "$raw" | sort
	echo
	if [ -s "$state/prof.txt" ]; then
		echo "## Where the client's CPU time goes (perf, run 1)"
		echo
		echo "perf record -a in the client while each workload of the throttled boot"
		echo "ran (cpu-clock, 199 samples a second): the share of the samples by"
		echo "object (the kernel, each module, swapcheck), then the symbols of 1% or"
		echo "more.  The vCPU's idle time shows as the kernel's idle functions."
		echo
		awk '$1 == "run=1" {
			c = $2; sub("config=", "", c); by = $3; sub("by=", "", by)
			if (!(c in seen)) { seen[c] = 1; order[++n] = c }
			line = $4
			for (i = 5; i <= NF; i++) line = line " " $i
			txt[c, by] = txt[c, by] (txt[c, by] == "" ? "" : "; ") line
		}
		END {
			for (i = 1; i <= n; i++) {
				c = order[i]
				printf "- **%s** by object: %s\n", c, txt[c, "dso"]
				printf "  - by symbol: %s\n", txt[c, "sym"]
			}
		}' "$state/prof.txt"
		echo
	fi
	echo "Raw lines (one per configuration and run):"
	echo
	echo '```'
	cat "$raw"
	echo '```'
} > "$out"

# The plots, from the main table: wall time over all-in-RAM, and swap-in
# latency p50 and p99, per configuration.
dat=$state/plot.dat
awk -F' *[|] *' '/^$/ && t { exit } /^[|] config/ { t = 1; next }
	t && $3 ~ /^[0-9]/ { gsub(/ /, "_", $2); print $2, $4, $7, $8 }' "$out" > "$dat"
png=${out%.md}
gnuplot <<EOT || bench_die "gnuplot failed; is gnuplot-nox installed (scripts/deps.sh)?"
set terminal png size 900,500
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -30
set output "$png-wall.png"
set title "Wall time over all in RAM (swapcheck timed $mib MiB in 256 MiB; lower is better)"
set ylabel "wall time / ram"
plot "$dat" using 2:xtic(1) title "" lc rgb "#4477aa"
set output "$png-latency.png"
set title "Swap-in latency, random phase (lower is better)"
set ylabel "microseconds"
set logscale y
plot "$dat" using (\$3 > 0 ? \$3 : 1/0):xtic(1) title "p50" lc rgb "#4477aa", \\
	"" using (\$4 > 0 ? \$4 : 1/0) title "p99" lc rgb "#cc6677"
EOT
echo "Plots: $png-wall.png and $png-latency.png." >> "$out"
cat "$out"
