#!/bin/bash
# A memory server on Debian's own kernel: s1 (image = stock) boots
# linux-image-VERSION's vmlinuz with make image-stock's initramfs (its
# virtio and configfs modules, and the r2net.ko and ramster_backend.ko
# DKMS built for it); c2, on the fast patched kernel, swaps 384 MiB, 1.5
# times its RAM, to s1 through ramster_frontend.ko and sees most pages go
# there and come back, every page checked (guest/jobs/frontend-stock.sh,
# which runs frontend-swap.sh).  s1 must report Debian's kernel VERSION
# (build/stock/version) before it serves; its console must show Debian's
# banner, no problem, and no taint but our two modules' (out of tree,
# unsigned).  Prints how long s1 took to boot: the host's time from "up"
# to its BOOT line, and its kernel's time to init and to the job.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
stock=$top/build/stock
state=/var/lib/ramster/tests/rmstock
# The taint lines our modules cause on Debian's kernel, and nothing else.
taint_ok='loading out-of-tree module taints kernel\.|module verification failed: signature and/or required key missing - tainting kernel'

for f in version vmlinuz initramfs.cpio.gz; do
	[ -s "$stock/$f" ] ||
		{ echo "FAIL: no $stock/$f: run make image-stock"; exit 1; }
done
ver=$(cat "$stock/version")

# The cluster_hook of run_cluster: s1's boot, on the host's clock.
boot_time()
{
	local t0 t=0

	t0=$(date +%s%N)
	while [ $t -lt 600 ]; do
		if grep -q 'RAMSTER-RESULT BOOT s1 ' "$2/s1.results.log" 2>/dev/null; then
			echo "s1 (Debian's $ver) reached init $((($(date +%s%N) - t0) / 1000000)) ms after up"
			return 0
		fi
		sleep 0.2
		t=$((t + 1))
	done
	echo "s1 did not boot in 120 s"
	return 1
}

cluster_hook=boot_time
rc=0
run_job "$top/tests/clusters/stockduo.cluster" frontend-stock \
	-K "$stock/vmlinuz" -I "$stock/initramfs.cpio.gz" -a c2=mib=384 || rc=1

con=$state/s1.console.log
grep -q "Linux version $ver " "$con" ||
	{ echo "FAIL: s1's console shows no 'Linux version $ver'"; rc=1; }
grep -q "RAMSTER-RESULT ok Debian's kernel $ver ran the job" \
	"$state/s1.results.log" ||
	{ echo "FAIL: s1 did not report Debian's kernel $ver"; rc=1; }
tainted=$(grep -ai taint "$con" | grep -Ev "$taint_ok" || true)
if [ -n "$tainted" ]; then
	echo "FAIL: s1's console shows other taint lines:"
	echo "$tainted" | sed 's/^/    /'
	rc=1
fi
echo "s1's taint lines (expected):"
grep -aiE "$taint_ok" "$con" | sed 's/^/    /' || true
init=$(sed -n 's/^\[ *\([0-9.]*\)\] Run \/init as init process.*/\1/p' "$con" | head -n 1)
job=$(sed -n "s/.*ok Debian's kernel .* ran the job at \([0-9.]*\) s.*/\1/p" \
	"$state/s1.results.log")
echo "s1 on Debian's $ver: init at ${init:-?} s, its job at ${job:-?} s of its uptime"
exit $rc
