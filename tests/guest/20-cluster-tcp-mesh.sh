#!/bin/bash
# The default cluster boots through libvirt; every node reaches every
# other over TCP on the isolated network; after teardown nothing the test
# defined remains.  The cluster is renamed so that a demo cluster the user
# left running is not in the way.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
desc=$(default_cluster)
before_dom=$(virsh -c "$uri" list --all --name | sort)
before_net=$(virsh -c "$uri" net-list --all --name | sort)
run_job "$desc" tcp-mesh
after_dom=$(virsh -c "$uri" list --all --name | sort)
after_net=$(virsh -c "$uri" net-list --all --name | sort)
[ "$before_dom" = "$after_dom" ] || { echo "domains left: $after_dom"; exit 1; }
[ "$before_net" = "$after_net" ] || { echo "networks left: $after_net"; exit 1; }
echo "teardown left nothing defined"
