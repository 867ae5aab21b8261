#!/bin/bash
# cleancache: put, get, invalidate on ext4, with every byte read back checked.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" probe-cleancache
