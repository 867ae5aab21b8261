#!/bin/bash
# The ramster.conf parser (tools/ramsterctl/conf.c), under ASan and UBSan:
# it accepts what ramster-cluster renders for the default cluster (rendered
# here, and the copy in tests/unit/fixtures/default.conf), good variants
# (nodes first, spaces, CRLF, comments), and refuses each broken file in
# its table with FILE:LINE: at the right line.  conf-check prints the
# nodes (exit 0) or the error (exit 2).  The optional shared_uuid of a
# cluster with a shared disk parses; a malformed one is refused.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/unit/deps.sh
unit_deps
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

# refused FILE TEXT: conf-check exits 2 on FILE and says TEXT.
refused()
{
	local out st

	set +e
	out=$(tools/ramsterctl/conf-check "$1" 2>&1)
	st=$?
	set -e
	[ $st = 2 ] && echo "$out" | grep -qF "$2" ||
		bad "conf-check on $1: exit $st, want 2 and '$2': $out"
}

make -s -C tests/unit build/conf_test ||
	{ echo "FAIL: conf_test does not build"; exit 1; }
make -s -C tools/ramster-cluster ||
	{ echo "FAIL: ramster-cluster does not build"; exit 1; }
tools/ramster-cluster/ramster-cluster -c libvirt-xml/default.cluster \
	render "$tmp/r" >/dev/null || bad "ramster-cluster render failed"
conf=$tmp/r/ramster.conf
[ -s "$conf" ] || { bad "render wrote no ramster.conf"; exit 1; }
cmp -s "$conf" tests/unit/fixtures/default.conf ||
	echo "note: tests/unit/fixtures/default.conf differs from what render writes now"

tests/unit/build/conf_test tests/unit/fixtures/default.conf "$conf" ||
	bad "conf_test (see above)"

make -s -C tools/ramsterctl || { echo "FAIL: conf-check does not build"; exit 1; }
out=$(tools/ramsterctl/conf-check "$conf") || bad "conf-check refused $conf"
[ "$(echo "$out" | grep -c '^node ')" = 3 ] &&
	echo "$out" | grep -qxF "node 0 ms0 10.77.0.10:7777 memory-server" ||
	bad "conf-check printed: $out"
sed 's/number = 2/number = 1/' "$conf" >"$tmp/dup.conf"
refused "$tmp/dup.conf" "$tmp/dup.conf:24: duplicate node number 1"

# shared_uuid: what ramster-cluster renders for a cluster with a shared
# disk parses; a malformed uuid is refused at its line, and so is a
# second one.
uuid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
sed "s/^\tsubnet = .*/&\n\tshared_mib = 64\n\tshared_uuid = $uuid/" \
	libvirt-xml/default.cluster >"$tmp/shared.cluster"
tools/ramster-cluster/ramster-cluster -c "$tmp/shared.cluster" \
	render "$tmp/s" >/dev/null || bad "ramster-cluster render with shared_mib failed"
grep -qxF "	shared_uuid = $uuid" "$tmp/s/ramster.conf" ||
	bad "the rendered ramster.conf has no shared_uuid"
out=$(tools/ramsterctl/conf-check "$tmp/s/ramster.conf" 2>&1) ||
	bad "conf-check refused a ramster.conf with shared_uuid: $out"
[ "$(echo "$out" | grep -c '^node ')" = 3 ] ||
	bad "conf-check with shared_uuid printed: $out"
for spec in "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0" \
	    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f" \
	    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f00" \
	    "0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-" \
	    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1g0"; do
	sed "s/^\tshared_uuid = .*/\tshared_uuid = $spec/" "$tmp/s/ramster.conf" \
		>"$tmp/baduuid.conf"
	refused "$tmp/baduuid.conf" \
		"$tmp/baduuid.conf:4: bad shared_uuid '$spec': want 8-4-4-4-12 lowercase hex digits"
done
sed "4p" "$tmp/s/ramster.conf" >"$tmp/twice.conf"
refused "$tmp/twice.conf" "$tmp/twice.conf:5: 'shared_uuid' given twice"

[ $fail = 0 ] && echo "PASS: ramster.conf parser"
exit $fail
