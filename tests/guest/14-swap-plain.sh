#!/bin/bash
# Regression: swap with no frontswap backend registered.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
# The fast kernel: the debug one checks the same paths in 10-12 and 15.
fast_kernel
run_job "$top/tests/clusters/solo.cluster" swap-plain
