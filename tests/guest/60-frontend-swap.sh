#!/bin/bash
# The frontend keeps swap pages on a memory server: on the swapduo
# cluster a client with a swap disk loads ramster_frontend.ko (bad
# parameters refused first), swaps more memory than it has through it with
# every page checked, and sees the pages go to the server and come back
# from it; swapoff destroys its pool and the module unloads.  The server
# checks what its handlers counted.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/swapduo.cluster" frontend-swap
