#!/bin/bash
# The main job: bring the cluster described in FILE up through libvirt,
# show that its nodes reach each other, and leave it running.
# usage: scripts/demo.sh [--down] [FILE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/libvirt.sh"
tool=$top/tools/ramster-cluster/ramster-cluster
down=
[ "${1:-}" = --down ] && { down=1; shift; }
file=${1:-$top/libvirt-xml/default.cluster}
uri=qemu:///system

if [ -n "$down" ]; then
	"$tool" -c "$file" -u "$uri" down
	libvirt_down
	exit 0
fi

libvirt_up
"$tool" -c "$file" -u "$uri" -k "$top/build/bzImage" \
	-i "$top/build/initramfs.cpio.gz" -j tcp-mesh up
name=$(awk '/^cluster:/ { c = 1; next } /^[a-z]+:/ { c = 0 }
	    c && $1 == "name" { print $3; exit }' "$file")
nodes=$(awk '/^node:/ { n = 1; next } n && $1 == "name" { print $3 }' "$file")
echo "waiting for every node to reach the others over TCP..."
for node in $nodes; do
	for _ in $(seq 150); do
		grep -q 'RAMSTER-RESULT JOB' "/var/lib/ramster/$name/$node.results.log" 2>/dev/null && break
		sleep 2
	done
	"$tool" -c "$file" results "$node" | sed "s/^RAMSTER-RESULT /$node: /"
done
"$tool" -c "$file" -u "$uri" status
cat <<EOT

The cluster is running.  A node's console log:
  $tool -c $file console NODE
Its domain through libvirt (the private libvirtd of this project):
  virsh -c $uri dominfo $name-NODE
Remove the cluster and stop that libvirtd:
  make down
EOT
