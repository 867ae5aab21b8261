#!/bin/bash
# r2net between three nodes: every pair connects with the handshake;
# every node echoes to every other through r2echo.ko, synchronously
# (0..66184 bytes and tmem pages) and 200 times asynchronously with 64
# in flight, all at once; every reply checked, r2net's counters agree on
# both ends; then the idle connections stay up on keepalives.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/trio.cluster" r2net-echo
