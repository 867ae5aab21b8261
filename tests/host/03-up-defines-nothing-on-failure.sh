#!/bin/bash
# "up" leaves libvirt as it found it when it fails: every bad description
# in fixtures/ is refused with exit code 2, and a valid one whose guests
# cannot start (the "kernel" is a text file) fails with exit code 1 after
# undoing its defines.  Compares "virsh list --all --name" and
# "virsh net-list --all --name" before and after.  Needs libvirtd: uses
# tests/lib/libvirt.sh.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s -C tools/ramster-cluster
rc=$top/tools/ramster-cluster/ramster-cluster
. tests/lib/libvirt.sh
uri=$RAMSTER_LV_URI
tmp=$(mktemp -d)
name=rcu-$$
trap '"$rc" -c "$tmp/ok.cluster" -s "$tmp/state" -u "$uri" down \
	>/dev/null 2>&1 || true; libvirt_down; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"		# QEMU (libvirt-qemu) must reach the state dir
fail=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

defined()
{
	virsh -q -c "$uri" list --all --name | sort
	echo ---
	virsh -q -c "$uri" net-list --all --name | sort
}

libvirt_up || { echo "FAIL: libvirt_up could not start libvirtd"; exit 1; }
before=$(defined)

echo 'not a kernel' >"$tmp/kernel"
echo 'not an initrd' >"$tmp/initrd"
for f in tests/host/fixtures/*.cluster; do
	st=0
	"$rc" -c "$f" -s "$tmp/state" -u "$uri" -k "$tmp/kernel" \
		-i "$tmp/initrd" up >"$tmp/out" 2>&1 || st=$?
	[ $st = 2 ] || bad "$f: up exit code $st, want 2: $(cat "$tmp/out")"
	[ ! -e "$tmp/state" ] || bad "$f: up created $tmp/state"
	after=$(defined)
	[ "$after" = "$before" ] ||
		bad "$f: up changed what is defined: before [$before] after [$after]"
done

cat >"$tmp/ok.cluster" <<EOC
cluster:
	name = $name
	subnet = 10.99.0.0/24

node:
	name = ms0
	number = 0
	role = memory-server
	memory_mib = 128
	ip_address = 10.99.0.10

node:
	name = client1
	number = 1
	role = client
	memory_mib = 128
	ip_address = 10.99.0.11
	swap_mib = 16
	data_mib = 16
EOC
st=0
"$rc" -c "$tmp/ok.cluster" -s "$tmp/state" -u "$uri" -k "$tmp/kernel" \
	-i "$tmp/initrd" up >"$tmp/out" 2>&1 || st=$?
[ $st = 1 ] || bad "up with a bogus kernel: exit code $st, want 1: $(cat "$tmp/out")"
grep -q 'undoing' "$tmp/out" || bad "up did not say it undid: $(cat "$tmp/out")"
after=$(defined)
[ "$after" = "$before" ] ||
	bad "failed up left something defined: before [$before] after [$after]"
[ -s "$tmp/state/client1-data.img" ] || bad "up did not create the data disk"

[ $fail = 0 ] && echo "PASS: failed up defines nothing"
exit $fail
