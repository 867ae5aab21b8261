#!/bin/bash
# The harness must fail a guest whose kernel warns, even though its job
# reported nothing wrong: trigger a warning on purpose and expect FAIL.
set -u
. "$(dirname "$0")/../lib/guest.sh"
if run_job "$top/tests/clusters/solo.cluster" warn > /tmp/warn-run.$$ 2>&1; then
	cat /tmp/warn-run.$$
	rm -f /tmp/warn-run.$$
	echo "the harness passed a guest that warned"
	exit 1
fi
cat /tmp/warn-run.$$
grep -q 'kernel reported a problem' /tmp/warn-run.$$ &&
	grep -q 'WARNING:.*tmem_probe\|tmem_probe: warning on request' /tmp/warn-run.$$
rc=$?
rm -f /tmp/warn-run.$$
[ $rc = 0 ] || echo "failed, but not for the warning"
exit $rc
