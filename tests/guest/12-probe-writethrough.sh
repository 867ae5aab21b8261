#!/bin/bash
# Writethrough puts accepted pages on the swap device; a lost one comes back.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" probe-writethrough
