#!/bin/bash
# A cleancache pool shared by two clients: on the ccshared cluster both
# clients mount the cluster's shared disk, an OCFS2 volume; pages one of
# them read come back to the other from the memory server, every page
# checked (guest/jobs/frontend-shared.sh says what each node checks).
# Fast kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/ccshared.cluster" frontend-shared
