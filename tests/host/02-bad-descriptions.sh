#!/bin/bash
# Every bad description in fixtures/*.cluster is refused with exit code 2
# and a message that starts "FILE:LINE:" with the line the fixture's
# "# expect-line:" names, and contains its "# expect-text:" (FILE in the
# text stands for the fixture's path).  "render" and "up" refuse it too,
# before writing or defining anything (up gets a URI that cannot work, so
# reaching libvirt would show as exit code 1, not 2).  A memory server
# with image = stock checks, but up refuses it without -K and -I; a
# cluster with a shared disk checks, but up refuses it without mkfs.ocfs2.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s -C tools/ramster-cluster
rc=tools/ramster-cluster/ramster-cluster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

# run_rc OUT ARGS...: run the tool, stderr to OUT, echo the exit code.
run_rc()
{
	local out=$1 st=0

	shift
	"$rc" "$@" >/dev/null 2>"$out" || st=$?
	echo $st
}

: >"$tmp/kernel"
: >"$tmp/initrd"
for f in tests/host/fixtures/*.cluster; do
	line=$(sed -n 's/^# expect-line: //p' "$f")
	text=$(sed -n 's/^# expect-text: //p' "$f")
	text=${text//FILE/$f}
	if [ -z "$line" ] || [ -z "$text" ]; then
		bad "$f: no '# expect-line:' or '# expect-text:' header"
		continue
	fi
	n=$((n + 1))

	st=$(run_rc "$tmp/err" -c "$f" check)
	[ "$st" = 2 ] || bad "$f: check exit code $st, want 2"
	grep -qF -- "$f:$line: " "$tmp/err" ||
		bad "$f: no message at $f:$line:; got: $(cat "$tmp/err")"
	grep -F -- "$f:$line: " "$tmp/err" | grep -qF -- "$text" ||
		bad "$f:$line: message lacks \"$text\"; got: $(cat "$tmp/err")"

	st=$(run_rc "$tmp/err" -c "$f" render "$tmp/render")
	[ "$st" = 2 ] || bad "$f: render exit code $st, want 2"
	[ ! -e "$tmp/render" ] || bad "$f: render wrote $tmp/render"

	st=$(run_rc "$tmp/err" -c "$f" -s "$tmp/state" -u test:///nowhere \
		-k "$tmp/kernel" -i "$tmp/initrd" up)
	[ "$st" = 2 ] || bad "$f: up exit code $st, want 2"
	[ ! -e "$tmp/state" ] || bad "$f: up created its state directory"
done
[ $n -ge 8 ] || bad "only $n fixtures found"

# A memory server with image = stock is fine, but up refuses it without
# -K and -I (Debian's kernel and its image), naming its image line, and
# before it creates the state directory or reaches libvirt.
f=$tmp/stock.cluster
sed "s/^\tmemory_mib = 2048\$/&\n\timage = stock/" libvirt-xml/default.cluster >"$f"
line=$(grep -n 'image = stock' "$f" | cut -d: -f1)
st=$(run_rc "$tmp/err" -c "$f" check)
[ "$st" = 0 ] || bad "image = stock on a memory server: check exit code $st, want 0: $(cat "$tmp/err")"
for opts in "" "-K $tmp/kernel" "-I $tmp/initrd"; do
	# shellcheck disable=SC2086
	st=$(run_rc "$tmp/err" -c "$f" -s "$tmp/state" -u test:///nowhere \
		-k "$tmp/kernel" -i "$tmp/initrd" $opts up)
	[ "$st" = 2 ] || bad "image = stock, up with [$opts]: exit code $st, want 2"
	grep -qF -- "$f:$line: node ms0 has \"image = stock\", but up has no -K and -I for it; pass -K VMLINUZ -I INITRD" "$tmp/err" ||
		bad "image = stock, up with [$opts]: unclear message: $(cat "$tmp/err")"
	[ ! -e "$tmp/state" ] || bad "image = stock, up with [$opts] created its state directory"
done
st=$(run_rc "$tmp/err" -c "$f" -s "$tmp/state" -u test:///nowhere \
	-k "$tmp/kernel" -i "$tmp/initrd" -K "$tmp/nosuch" -I "$tmp/initrd" up)
[ "$st" = 2 ] && grep -qF "cannot read $tmp/nosuch" "$tmp/err" ||
	bad "image = stock, up with a missing -K: exit code $st, want 2 naming it: $(cat "$tmp/err")"

# shared_uuid with "shared_mib = 0" is refused like one without
# shared_mib, on its line.
f=$tmp/shared0.cluster
sed "s/^\tsubnet = .*/&\n\tshared_mib = 0\n\tshared_uuid = 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/" \
	libvirt-xml/default.cluster >"$f"
line=$(grep -n 'shared_uuid' "$f" | cut -d: -f1)
st=$(run_rc "$tmp/err" -c "$f" check)
[ "$st" = 2 ] && grep -qF -- "$f:$line: shared_uuid = 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 but the cluster has no shared disk" "$tmp/err" ||
	bad "shared_uuid with shared_mib = 0: exit code $st, want 2 naming line $line: $(cat "$tmp/err")"

# A cluster with a shared disk checks; up without mkfs.ocfs2 on PATH stops
# before it creates the state directory or runs virsh (not on PATH either).
f=$tmp/shared.cluster
sed "s/^\tsubnet = .*/&\n\tshared_mib = 64/" libvirt-xml/default.cluster >"$f"
st=$(run_rc "$tmp/err" -c "$f" check)
[ "$st" = 0 ] || bad "shared_mib = 64: check exit code $st, want 0: $(cat "$tmp/err")"
st=0
PATH=$tmp/nowhere "$rc" -c "$f" -s "$tmp/state" -u test:///nowhere -k "$tmp/kernel" \
	-i "$tmp/initrd" up >/dev/null 2>"$tmp/err" || st=$?
[ "$st" = 1 ] && grep -qF "mkfs.ocfs2 not found: apt-get install ocfs2-tools" "$tmp/err" ||
	bad "up without mkfs.ocfs2: exit code $st, want 1 and what to install: $(cat "$tmp/err")"
[ ! -e "$tmp/state" ] || bad "up without mkfs.ocfs2 created its state directory"

[ $fail = 0 ] && echo "PASS: $n bad descriptions refused at the right line"
exit $fail
