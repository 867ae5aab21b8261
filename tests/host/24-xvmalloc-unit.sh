#!/bin/bash
# backend-node/xvmalloc.c in userspace, under ASan and UBSan, on a kernel
# shim that counts the pages it holds and checks maps and locks: every
# object size, 200,000 random allocs and frees of compressed-page-like
# sizes with every object's pattern and every counter checked, merging and
# pages going back exactly with their last object, bad sizes, failing page
# allocations and caller bugs (double free, bad offsets, another pool's
# page) warned about and ignored, density (fresh fill at least 0.80),
# threads sharing a pool.
# A failure prints its seed: tests/unit/build/xvmalloc_test -s SEED replays it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/deps.sh"
unit_deps

make -s -C "$top/tests/unit" build/xvmalloc_test ||
	{ echo "FAIL: xvmalloc_test does not build"; exit 1; }
"$top/tests/unit/build/xvmalloc_test" ||
	{ echo "FAIL: xvmalloc_test (see above)"; exit 1; }
echo "PASS: xvmalloc allocates, merges, returns pages and refuses bad input"
