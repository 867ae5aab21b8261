#!/bin/bash
# A page the backend loses kills the process touching it with SIGBUS.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" probe-sigbus
