#!/bin/bash
# r2net refuses bad frames, bad handshakes (no key, a replay), forged and
# replayed frames, a flood of idle connections and
# a stranger, counts each under its reason, and keeps serving its real
# peers meanwhile (guest/jobs/r2net-inject.sh, tests/guest-bin/r2inject.c).
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/spoof.cluster" r2net-inject
