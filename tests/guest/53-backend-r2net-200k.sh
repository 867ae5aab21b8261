#!/bin/bash
# tests/guest/51-backend-r2net.sh with 200 000 pages of mixed content:
# every one put, got back and checked through r2net, a share flushed by
# page and by object and seen to miss.  On the fast kernel (over an hour
# under KASAN and TCG, some minutes without).
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-3600}
run_job "$top/tests/clusters/duo.cluster" backend-r2net-200k
