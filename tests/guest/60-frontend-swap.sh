#!/bin/bash
# The frontend keeps swap pages on a memory server, two clients at once:
# on the default cluster each client (256 MiB of RAM, a swap disk) first
# sees bad parameters refused with a message, then loads
# ramster_frontend.ko and runs a verifying workload over 384 MiB through
# it (every page read is checked whole), and sees most pages go to ms0
# and come back from it; the first client then runs it again through the
# local tier (local_pool_percent), whose pages go on to ms0 in batches,
# and sees held pages read back from the tier with no GET, and sent on
# when the tier is set to 0, while the second runs it with little free
# memory and sees stores refused below the min watermarks; swapoff
# destroys each pool and the module unloads.  ms0 keeps each one's pool apart and checks what its handlers
# counted.  On the fast kernel: some 500 000 pages move.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-2400}
run_job "$(default_cluster)" frontend-swap
