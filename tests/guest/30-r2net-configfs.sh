#!/bin/bash
# The r2net node manager: the cluster of /etc/ramster.conf in configfs,
# the write order and bad values refused, unload and reload.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
run_job "$top/tests/clusters/solo.cluster" r2net-configfs
