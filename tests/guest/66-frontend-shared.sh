#!/bin/bash
# A cleancache pool shared by two clients: on the ccshared cluster both
# clients join the shared disk's o2cb cluster and mount its OCFS2 volume
# read-write; pages one of them read come back to the other from the
# memory server, and a file one of them wrote never reads back old on
# the other, with its flush on time, 2 s late, or lost with its link
# (guest/jobs/frontend-shared.sh says what each node checks).  Every
# page checked.  Fast kernel.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/ccshared.cluster" frontend-shared
