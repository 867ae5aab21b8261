#!/bin/bash
# Fuzz, under ASan and UBSan, for FUZZ_SECONDS (default 60), both at once:
# mutated r2net frames through r2net_hdr_check() and the payload decoders,
# and mutated ramster.conf files through the parser.  Any sanitizer report
# or broken invariant fails; the output has the seed to replay it with
# tests/unit/build/fuzz -m MODE -s SEED, and how many inputs ran.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. tests/unit/deps.sh
unit_deps
secs=${FUZZ_SECONDS:-60}

make -s -C tests/unit build/fuzz || { echo "FAIL: fuzz does not build"; exit 1; }
# Both at once, one a CPU.
tests/unit/build/fuzz -m frames -t "$secs" & frames=$!
tests/unit/build/fuzz -m conf -t "$secs" tests/unit/fixtures/default.conf &
conf=$!
wait $frames || { wait $conf; echo "FAIL: fuzzing r2net frames (see above)"; exit 1; }
wait $conf || { echo "FAIL: fuzzing ramster.conf (see above)"; exit 1; }
echo "PASS: ${secs} s of frames and ${secs} s of conf files, no crash"
