#!/bin/bash
# Regression: swap with no frontswap backend registered.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" swap-plain
