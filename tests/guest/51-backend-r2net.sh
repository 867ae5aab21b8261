#!/bin/bash
# The memory server serves every tmem operation over r2net: on the duo
# cluster a client puts 400 pages of mixed content into a persistent
# pool on the server, gets every one back checked, flushes a share by page
# and by object and sees exactly those miss, uses an ephemeral pool, and
# gets the documented status for unknown and out-of-range pools and bad
# pool requests; the server then checks what its handlers counted.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
# The server's verdict comes only when the client is done.  The same
# with 200 000 pages on the fast kernel is 53-backend-r2net-200k.sh.
job_timeout=${RAMSTER_JOB_TIMEOUT:-1800}
run_job "$top/tests/clusters/duo.cluster" backend-r2net
