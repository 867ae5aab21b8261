#!/bin/bash
# Two clients of one memory server through r2net: per-client quota with
# ephemeral pages evicted oldest first and persistent puts refused, no
# client reaching another's pools, a client's same-filled pages at
# scattered handles held to its weighted share while the other's pages
# stay right, and the grace period for a client that leaves (kept when
# it comes back, freed when it does not).
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/trio.cluster" backend-clients
