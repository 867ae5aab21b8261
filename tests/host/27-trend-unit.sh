#!/bin/bash
# frontend/trend.c in userspace, under ASan and UBSan: Leap's majority vote
# finds the stride of faults in order, backwards, every fourth page, in
# order with noise, after a turn and under recent noise, and none in
# random faults or the same page again; the depth follows the hits (on a
# miss hits + 1 up to a power of two, doubled when used up), capped, and
# falls by half at most.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/deps.sh"
unit_deps

make -s -C "$top/tests/unit" build/trend_test ||
	{ echo "FAIL: trend_test does not build"; exit 1; }
"$top/tests/unit/build/trend_test" ||
	{ echo "FAIL: trend_test (see above)"; exit 1; }
echo "PASS: the swap-in trend and its depth"
