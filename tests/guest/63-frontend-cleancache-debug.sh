#!/bin/bash
# 62-frontend-cleancache with 4 MiB of files on the debug kernel:
# KASAN, lockdep and kmemleak watch the cleancache paths, whose puts and
# flushes come with interrupts off; and, with frontswap on too, the local
# tier's: 400 pages kept, read back, sent on and read back again.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/ccduo.cluster" frontend-cleancache-small
