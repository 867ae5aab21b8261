#!/bin/bash
# "status" prints, below its table, each node's newest
# "RAMSTER-RESULT STATUS key=value ..." line from STATE/<node>.results.log
# with the log's age, its words in columns no wider than 80 characters.
# Nodes whose log has no STATUS line in its last 64 KiB, or no log, are
# left out.  Odd logs do not upset it: 5 MB of binary junk, \r, no final
# newline, control bytes inside the line, a line longer than the tail
# (a STATUS tag after 70000 bytes of junk on its line is still found), a
# FIFO.  libvirt is libvirt's test driver (a node XML file, no libvirtd);
# with libvirt unreachable the states read "unknown", the counters are
# still shown and the exit status is 1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s -C tools/ramster-cluster
rc=$top/tools/ramster-cluster/ramster-cluster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

nodes="normal several huge crlf junk long glued overlong nostatus empty fifo missing"
{
	printf 'cluster:\n\tname = rcstat\n\tsubnet = 10.98.0.0/24\n\n'
	i=0
	for n in $nodes; do
		printf 'node:\n\tname = %s\n\tnumber = %d\n\trole = %s\n' \
			"$n" $i "$([ $i = 0 ] && echo memory-server || echo client)"
		printf '\tmemory_mib = 256\n\tip_address = 10.98.0.%d\n\n' \
			$((10 + i))
		i=$((i + 1))
	done
} >"$tmp/c.cluster"

# libvirt's test driver: rcstat-normal running, the network active.
cat >"$tmp/node.xml" <<'EOX'
<node>
  <domain type='test'>
    <name>rcstat-normal</name>
    <memory>262144</memory>
    <os><type>hvm</type></os>
  </domain>
  <network>
    <name>rcstat-net</name>
    <bridge name='rcstat-br0'/>
  </network>
</node>
EOX

s=$tmp/state
mkdir "$s"
printf 'RAMSTER-RESULT ok r2net up\r\nRAMSTER-RESULT STATUS r2net_up=2 stored_pages=123 pool_pages=60 puts=500 get_hits=300 clients=2\r\n' \
	>"$s/normal.results.log"
touch -d '3 days ago' "$s/normal.results.log"

{
	echo 'RAMSTER-RESULT STATUS seq=1 remote_puts=10'
	echo 'RAMSTER-RESULT ok something'
	echo 'RAMSTER-RESULT STATUS seq=2 remote_puts=20'
	echo 'RAMSTER-RESULT STATUS seq=3 remote_puts=30 lost_loads=0'
	echo 'RAMSTER-RESULT STATUSX seq=4'
	echo 'RAMSTER-RESULT DEMO client pages=9'
	echo 'RAMSTER-RESULT JOB demo PASS'
} >"$s/several.results.log"
touch -d '3 hours ago' "$s/several.results.log"

{
	echo 'RAMSTER-RESULT STATUS huge=0'
	head -c 5M /dev/urandom
	printf '\nRAMSTER-RESULT STATUS huge=1 target=0\n'
	head -c 1000 /dev/urandom | tr -d '\n'
	echo
} >"$s/huge.results.log"

printf 'RAMSTER-RESULT STATUS a=1\r\nRAMSTER-RESULT STATUS a=2\tb=3\r' \
	>"$s/crlf.results.log"

printf 'RAMSTER-RESULT STATUS x=1\001\377\000 y=2\033[31m\n\000\000\n' \
	>"$s/junk.results.log"

{
	printf 'RAMSTER-RESULT STATUS wide=%0300d' 7
	for i in $(seq 0 99); do printf ' k%d=%d' $i $i; done
	echo
} >"$s/long.results.log"

{
	echo 'RAMSTER-RESULT STATUS hidden=1'
	head -c 70000 /dev/zero | tr '\0' z
	echo 'RAMSTER-RESULT STATUS glued=1'
} >"$s/glued.results.log"

{
	echo 'RAMSTER-RESULT STATUS hidden=1'
	printf 'RAMSTER-RESULT STATUS cut=1 '
	head -c 70000 /dev/zero | tr '\0' y
} >"$s/overlong.results.log"

printf 'RAMSTER-RESULT ok boot\nRAMSTER-RESULT STATUSFOO a=1\n' \
	>"$s/nostatus.results.log"
: >"$s/empty.results.log"
mkfifo "$s/fifo.results.log"

cat >"$tmp/want.table" <<'EOT'
NODE         NUMBER ROLE          STATE      MEMORY    ADDRESS
normal       0      memory-server running      256 MiB 10.98.0.10/24
several      1      client        undefined    256 MiB 10.98.0.11/24
EOT
cat >"$tmp/want.normal" <<'EOT'

normal counters, 3 d ago:
  r2net_up=2        stored_pages=123  pool_pages=60     puts=500
  get_hits=300      clients=2
several counters, 3 h ago:
  seq=3           remote_puts=30  lost_loads=0
huge counters,
  huge=1    target=0
crlf counters,
  a=2  b=3
junk counters,
  x=1???    y=2?[31m
long counters,
EOT

st=0
timeout 20 "$rc" -c "$tmp/c.cluster" -s "$s" -u "test://$tmp/node.xml" \
	status >"$tmp/out" 2>"$tmp/err" || st=$?
[ $st = 0 ] || bad "status: exit $st, want 0: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || bad "status wrote to stderr: $(cat "$tmp/err")"
diff -u "$tmp/want.table" <(head -n 3 "$tmp/out") ||
	bad "status: the table changed"
grep -qx 'network rcstat-net: active' "$tmp/out" ||
	bad "status: no 'network rcstat-net: active'"

grep -A1 '^glued counters, [0-9]* s ago:$' "$tmp/out" |
	grep -qx '  glued=1' ||
	bad "glued: a STATUS line after 70000 bytes of junk on its line not shown"

# The counters, ages cut off where they depend on the clock.
sed -n '/^network /,$p' "$tmp/out" | tail -n +2 |
	sed -E 's/^((huge|crlf|junk|long) counters,) [0-9]+ s ago:$/\1/' |
	head -n "$(wc -l <"$tmp/want.normal")" >"$tmp/got.normal"
diff -u "$tmp/want.normal" "$tmp/got.normal" || bad "status: counters differ"

# long: 101 words, the first 300 wide: cut to a line, 64 shown.
grep -qE '^  wide=0{60,}\.\.\.$' "$tmp/out" ||
	bad "long: the wide word should be cut with ... on a line of its own"
grep -qE '^  k0=0 +k1=1 ' "$tmp/out" || bad "long: k0=0 k1=1 not in columns"
grep -q ' k62=62' "$tmp/out" && ! grep -q 'k63=' "$tmp/out" ||
	bad "long: the 64 words shown should end at k62"
grep -qx '  (and 37 more)' "$tmp/out" || bad "long: no '(and 37 more)'"
for n in overlong nostatus empty fifo missing; do
	! grep -q "^$n counters" "$tmp/out" || bad "$n: shown, but has no STATUS line"
done
! grep -qE 'hidden=|cut=|huge=0|seq=[12]|STATUSX|a=1' "$tmp/out" ||
	bad "an older or cut STATUS line was shown: $(cat "$tmp/out")"
awk 'length > 80 { print "line " NR " is " length " long"; e = 1 }
     END { exit e }' "$tmp/out" || bad "status: lines over 80 characters"
! LC_ALL=C grep -q '[^ -~]' "$tmp/out" ||
	bad "status: printed a control or non-ASCII byte"

# libvirt unreachable: "unknown", the same counters, exit status 1.
st=0
timeout 20 "$rc" -c "$tmp/c.cluster" -s "$s" -u "test://$tmp/nonexistent.xml" \
	status >"$tmp/out2" 2>"$tmp/err2" || st=$?
[ $st = 1 ] || bad "status without libvirt: exit $st, want 1"
grep -q 'cannot reach libvirt' "$tmp/err2" ||
	bad "status without libvirt: no 'cannot reach libvirt' on stderr"
grep -qE '^normal +0 +memory-server unknown +256 MiB 10\.98\.0\.10/24$' \
	"$tmp/out2" || bad "status without libvirt: want state unknown"
grep -qx 'network rcstat-net: unknown' "$tmp/out2" ||
	bad "status without libvirt: want network unknown"
diff -u <(sed -n '/^network /,$p' "$tmp/out" | sed 's/[0-9]* s ago/N s ago/') \
	<(sed -n '/^network /,$p' "$tmp/out2" | sed 's/[0-9]* s ago/N s ago/' |
	  sed 's/: unknown$/: active/') ||
	bad "status without libvirt: the counters differ"

# A state directory without results logs: the table alone.
mkdir "$tmp/bare"
"$rc" -c "$tmp/c.cluster" -s "$tmp/bare" -u "test://$tmp/node.xml" \
	status >"$tmp/out3" || bad "status on a bare state directory failed"
[ "$(wc -l <"$tmp/out3")" = $((1 + 12 + 1)) ] ||
	bad "status on a bare state directory printed more than the table: $(cat "$tmp/out3")"

echo "--- status output:"
cat "$tmp/out"
[ $fail = 0 ] && echo "PASS: status shows each node's newest STATUS line"
exit $fail
