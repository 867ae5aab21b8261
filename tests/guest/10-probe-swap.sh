#!/bin/bash
# The probe backend sees store, load and invalidate from swap; unregister
# is refused while it holds pages; zswap can take the freed slot.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" probe-swap
