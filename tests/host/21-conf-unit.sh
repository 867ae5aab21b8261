#!/bin/bash
# The ramster.conf parser (tools/ramsterctl/conf.c), under ASan and UBSan:
# it accepts what ramster-cluster renders for the default cluster (rendered
# here, and the copy in tests/unit/fixtures/default.conf), good variants
# (nodes first, spaces, CRLF, comments), and refuses each broken file in
# its table with FILE:LINE: at the right line.  conf-check prints the
# nodes (exit 0) or the error (exit 2).
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
set +e
out=$(tools/ramsterctl/conf-check "$tmp/dup.conf" 2>&1)
st=$?
set -e
[ $st = 2 ] || bad "conf-check on a duplicate number: exit $st, want 2"
echo "$out" | grep -qF "$tmp/dup.conf:24: duplicate node number 1" ||
	bad "conf-check on a duplicate number said: $out"

[ $fail = 0 ] && echo "PASS: ramster.conf parser"
exit $fail
