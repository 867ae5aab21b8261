#!/bin/bash
# The probe backend, in one boot: with writethrough, accepted pages are
# on the swap device too and a lost one is read from there; without, an
# accepted page never reaches the device and a lost one is SIGBUS for
# the process alone; swapping reaches store, load and invalidate, the
# probe can unregister only when it holds no pages, and then zswap can
# take the slot; ext4's page cache reaches cleancache put and get with
# the right data, and no old copy comes back after an overwrite,
# truncate, rename or delete; a probe that registers while swapoff runs
# is told of the device's end whenever it was told of the device.  Then
# the memory server's tmem store and zcache pass their in-kernel
# self-tests (every case, no FAIL) under KASAN, lockdep and kmemleak,
# and r2net's node manager builds the cluster of /etc/ramster.conf in
# configfs, enforces the write order, refuses bad values and the cluster
# key's misuse, and unloads and reloads.
# The one guest gets two vCPUs, so that the self-tests' concurrency
# cases, and swapoff against a registration, race for real.
# (guest/jobs/probes.sh and its parts.)
set -eu
. "$(dirname "$0")/../lib/guest.sh"
cluster=$(mktemp --suffix=.cluster)
sed 's/^\tmemory_mib = .*/&\n\tvcpus = 2/' "$top/tests/clusters/solo.cluster" > "$cluster"
grep -q 'vcpus = 2' "$cluster" || { echo "could not give the solo cluster two vCPUs"; exit 1; }
rc=0
run_job "$cluster" probes || rc=$?
rm -f "$cluster"
exit $rc
