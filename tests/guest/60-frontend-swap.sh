#!/bin/bash
# The frontend keeps swap pages on a memory server: on the swapduo
# cluster a client with 256 MiB of RAM and a swap disk loads
# ramster_frontend.ko (bad parameters refused first), runs a verifying
# workload over 768 MiB through it (every page read is checked), and sees
# most pages go to the server and come back from it; swapoff destroys its
# pool and the module unloads.  The server checks what its handlers
# counted.  On the fast kernel: hundreds of thousands of pages move.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/swapduo.cluster" frontend-swap
