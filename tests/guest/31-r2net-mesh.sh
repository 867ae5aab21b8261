#!/bin/bash
# r2net on three nodes through libvirt: every pair connects over TCP with
# the handshake, and the idle connections stay up on keepalives.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/trio.cluster" r2net-mesh
