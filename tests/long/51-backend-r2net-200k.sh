#!/bin/bash
# tests/guest/51-backend-r2net.sh with 200 000 pages: every one put, got
# back and checked through r2net.  Over an hour under TCG with the debug
# kernel, so it runs only with make test-long.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
job_timeout=${RAMSTER_JOB_TIMEOUT:-6000}
run_job "$top/tests/clusters/duo.cluster" backend-r2net-200k
