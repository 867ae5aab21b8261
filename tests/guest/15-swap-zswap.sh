#!/bin/bash
# Regression: swap with zswap enabled on the kernel command line, its pool
# kept small so it writes pages back to the swap device too.  Fast
# kernel: 10-probe-swap watches frontswap's registration under lockdep.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
run_job "$top/tests/clusters/solo.cluster" swap-zswap \
	-a "zswap.enabled=1 zswap.max_pool_percent=2"
