#!/bin/bash
# cleancache through the frontend: on the ccduo cluster a client reads
# files of twice its RAM from ext4, evicts them and reads them again from
# the memory server, every page checked; overwrite, truncate, delete and
# rename between reads never bring an old page back; unmount destroys
# the pool.  On the fast kernel (256 Ki pages read), with the host's TSC
# as the guest's clock (tsc_clock), so that the time the index keeps
# interrupts off is measured in microseconds, not 4 ms jiffies.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
fast_kernel
job_timeout=${RAMSTER_JOB_TIMEOUT:-2400}
run_job "$top/tests/clusters/ccduo.cluster" frontend-cleancache -a "$(tsc_clock)"
