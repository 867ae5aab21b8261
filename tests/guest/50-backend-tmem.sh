#!/bin/bash
# The memory server's tmem store passes its in-kernel self-test (every
# case, no FAIL) under KASAN, lockdep and kmemleak, with the console clean.
# The one guest gets two vCPUs so that the concurrency cases race for real.
set -eu
. "$(dirname "$0")/../lib/guest.sh"
cluster=$(mktemp --suffix=.cluster)
sed 's/^\tmemory_mib = .*/&\n\tvcpus = 2/' "$top/tests/clusters/solo.cluster" > "$cluster"
grep -q 'vcpus = 2' "$cluster" || { echo "could not give the solo cluster two vCPUs"; exit 1; }
rc=0
run_job "$cluster" backend-tmem || rc=$?
rm -f "$cluster"
exit $rc
