#!/bin/bash
# frontend/cc_prefetch.c in userspace, under ASan and UBSan, on a kernel
# shim that counts the pages and allocations it holds, checks maps, locks
# and lists, and polls in wait_event(): reserve, answer and take with every
# page's bytes checked, misses, generations (-ESTALE), forgetting a page
# here or in flight (the dead entry's answer never seen, counted unused,
# its entry back), an object, a pool; -EEXIST, -ENOSPC and the first page
# in dropped for room; 256 entries; 300,000 random operations against a
# reference model (every result and counter as it says, never a page
# older than the last put); takes waiting for another thread's answer and
# four threads sharing the entries; pages a get waits for never dropped,
# handles compared in full, a forget waking the get that waits; no entries
# at all, allocations failing, and every page back after rf_cc_pf_exit.
# A failure prints its seed: tests/unit/build/prefetch_test -s SEED replays it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/deps.sh"
unit_deps

make -s -C "$top/tests/unit" build/prefetch_test ||
	{ echo "FAIL: prefetch_test does not build"; exit 1; }
"$top/tests/unit/build/prefetch_test" ||
	{ echo "FAIL: prefetch_test (see above)"; exit 1; }
echo "PASS: cc_prefetch serves the last page put or none, and gives every page back"
