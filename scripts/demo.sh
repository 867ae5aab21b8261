#!/bin/bash
# The main job: bring the cluster described in FILE up through libvirt
# (fast kernel), run a workload larger than its RAM on the first client
# with its swap going to the memory server, print what went where, and
# leave the cluster running.
# usage: scripts/demo.sh [--down] [FILE]
# Environment: DEMO_MIB (the workload, MiB; 320).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/libvirt.sh"
tool=$top/tools/ramster-cluster/ramster-cluster
down=
[ "${1:-}" = --down ] && { down=1; shift; }
file=${1:-$top/libvirt-xml/default.cluster}
uri=qemu:///system
mib=${DEMO_MIB:-320}

if [ -n "$down" ]; then
	"$tool" -c "$file" -u "$uri" down
	libvirt_down
	exit 0
fi

conf() {
	awk -v r="$1" -v k="$2" '/^node:/ { n = 1; v = ""; m = 0; next }
		/^[a-z]+:/ { n = 0 } n && $1 == k { v = $3 }
		n && $1 == "role" && $3 == r { m = 1 }
		n && m && v != "" { print v; exit }' "$file"
}

libvirt_up
t0=$(date +%s)
"$tool" -c "$file" -u "$uri" -k "$top/build/fast/bzImage" \
	-i "$top/build/fast/initramfs.cpio.gz" -j demo -a "ramster.demo=$mib" up
name=$(awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	    c && $1 == "name" { print $3; exit }' "$file")
state=/var/lib/ramster/$name
client=$(conf client name) server=$(conf memory-server name)
[ -n "$client" ] && [ -n "$server" ] ||
	{ echo "demo: $file needs a memory-server and a client" >&2; exit 2; }
echo "$client writes $mib MiB, more than its RAM, then reads every page back;"
echo "its swap goes to $server (and to its disk: writethrough)..."
log=$state/$client.results.log
for _ in $(seq 600); do
	grep -q 'RAMSTER-RESULT JOB' "$log" 2>/dev/null && break
	sleep 1
done
for node in $(awk '/^node:/ { n = 1; next } n && $1 == "name" { print $3 }' "$file"); do
	"$tool" -c "$file" results "$node" | grep -v ' DEMO \| STATUS ' | sed "s/^RAMSTER-RESULT /$node: /"
done
sleep 2
c=$(tr -d '\r' < "$log" | grep 'RAMSTER-RESULT DEMO client' | tail -n 1 | cut -d' ' -f2-)
s=$(tr -d '\r' < "$state/$server.results.log" | grep 'RAMSTER-RESULT STATUS ' |
	tail -n 1 | cut -d' ' -f2-)
if [ -z "$c" ] || ! grep -q 'RAMSTER-RESULT JOB .* PASS' "$log"; then
	echo "demo: $client did not finish its workload; see '$tool -c $file console $client'" >&2
	exit 1
fi
echo
echo "$c" | awk -v s="$s" -v cl="$client" -v sv="$server" -v took=$(($(date +%s) - t0)) '
	function f(line, k,   i, n, a) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2)
		return 0
	}
	{
		pages = f($0, "pages"); ms = f($0, "total_ms")
		printf "%-40s %s\n", "workload on " cl ":", f($0, "mib") " MiB in " f($0, "mem_mib") " MiB of RAM, every page checked"
		printf "%-40s %.1f s (write %.1f s, read back %.1f s)\n", "workload time:",
			ms / 1000, f($0, "fill_ms") / 1000, f($0, "verify_ms") / 1000
		printf "%-40s %d (the workload has %d pages)\n", "pages sent to " sv ":", f($0, "remote_puts"), pages
		printf "%-40s %d (%d still in flight, served locally)\n", "pages read back from " sv ":",
			f($0, "remote_get_hits"), f($0, "window_hits")
		rd = f($0, "verify_ms")
		if (rd > 0)
			printf "%-40s %d pages/s, %d us a page\n", "read back:",
				f($0, "remote_get_hits") * 1000 / rd, rd * 1000 / (f($0, "remote_get_hits") + 1)
		sp = f(s, "peak_pages"); pp = f(s, "peak_frames")
		printf "%-40s %d pages in %.1f MiB of page frames (at most; %d now)\n",
			sv " held:", sp, pp * 4 / 1024, f(s, "stored_pages")
		if (pp > 0)
			printf "%-40s %.2f pages per page frame (LZO, xvmalloc)\n",
				"compression ratio:", sp / pp
		printf "%-40s %d s\n", "from boot to here:", took
	}'
echo
"$tool" -c "$file" -u "$uri" status
cat <<EOT

The cluster is running.  Each node's latest counters, live:
  watch -n 2 $tool -c $file status
A node's console log and results:
  $tool -c $file console NODE
  $tool -c $file results NODE
Its domain through libvirt (the private libvirtd of this project):
  virsh -c $uri dominfo $name-NODE
Remove the cluster and stop that libvirtd:
  make down
EOT
