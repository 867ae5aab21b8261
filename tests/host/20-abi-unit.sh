#!/bin/bash
# The shared ABI (shared-abi/) in userspace, under ASan and UBSan: the
# 32-byte header byte for byte, every message type (and user types of
# every length, requests and replies) through encode, header check and
# decode with random values, every malformed header refused with the right
# reason (magic, version, type, flags, too long, wrong length, status and
# sys_status, key, truncated), every malformed payload refused, Xen's pool
# flag rules, the sizes and offsets.  The headers also build as strict -std=c11 -pedantic.
# A failure prints its seed: tests/unit/build/abi_test -s SEED replays it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/deps.sh"
unit_deps

make -s -C "$top/tests/unit" build/abi_test build/abi-c11.ok ||
	{ echo "FAIL: abi_test or the strict C11 header check does not build"; exit 1; }
"$top/tests/unit/build/abi_test" -n 500 ||
	{ echo "FAIL: abi_test (see above)"; exit 1; }
echo "PASS: shared-abi round trips, header and payload checks"
