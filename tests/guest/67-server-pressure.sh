#!/bin/bash
# A memory server under its own memory pressure: on the pressure cluster
# the server's own workload takes most of its RAM while one client swaps
# to it in mode none and the other swaps (writethrough, fetch-ahead) and
# reads files through cleancache.  The server stays up, refuses the
# persistent puts it cannot hold and evicts ephemeral pages; every page
# of both clients and of the server's workload is checked
# (guest/jobs/server-pressure.sh says what each node checks).  Fast
# kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/pressure.cluster" server-pressure
