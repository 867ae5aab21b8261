#!/bin/bash
# The cluster key in the host tool.  "keygen" prints 64 hex digits and a
# newline, a new key each time, with no description needed.  A key_file
# that is missing, not a regular file (a directory, a FIFO), unreadable
# or not 64 hex digits and an optional newline is refused by check,
# render and up with exit code 2 at its line, saying how to make one,
# never showing the file's text, before anything is written or defined.
# (Root reads any file whatever its mode, so "unreadable" is
# /proc/self/mem: a regular file of mode 0600 whose read at offset 0 fails
# with EIO for root too, address 0 being unmapped.)  A good key_file,
# relative to the description's directory, gives its key (lowercased) to
# the rendered ramster.conf, 0600, and to etc/ramster.conf of the initrd,
# 0600 in the archive and on the host.  "up" without key_file makes a key
# in STATE/cluster.key (0600) and keeps it from one up to the next; with
# key_file it uses that.  Every initrd up writes, the stock one too,
# carries the same ramster.conf with the key.  No output shows a key.
# "up" runs against libvirt's test driver (test:///default: no libvirtd,
# each virsh its own empty driver), so it writes the state directory,
# then fails at net-start and exits 1.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s -C tools/ramster-cluster
make -s -C tools/ramsterctl conf-check
rc=$top/tools/ramster-cluster/ramster-cluster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"	# up wants the state directory searchable by others
fail=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

# run ARGS...: the tool; sets $out (stdout and stderr) and $st.
run()
{
	set +e
	out=$("$rc" "$@" 2>&1)
	st=$?
	set -e
}

# no_key TEXT WHAT: TEXT shows none of the keys used here.
no_key()
{
	local k

	for k in "$key" "$key2" "$up_key"; do
		[ -n "$k" ] || continue
		case $1 in *"${k:0:16}"*) bad "$2 shows a key: $1" ;; esac
	done
}

# conf_key FILE: the value of the cluster_key line(s) of a ramster.conf.
conf_key()
{
	sed -n 's/^\tcluster_key = //p' "$1"
}

# unpack INITRD DIR: the archive up appended to a 4-byte initrd.
unpack()
{
	mkdir -p "$2"
	tail -c +5 "$1" | (cd "$2" && cpio -id --quiet)
}

mode()
{
	stat -c %a "$1"
}

key= key2= up_key=

# keygen
run keygen
k1=$out
[ $st = 0 ] && [[ $k1 =~ ^[0-9a-f]{64}$ ]] || bad "keygen: exit $st: '$k1'"
[ "$("$rc" keygen | wc -c)" = 65 ] || bad "keygen: not 64 digits and a newline"
run keygen
[ "$out" != "$k1" ] || bad "two keygens printed the same key"
(cd / && "$rc" keygen >/dev/null) || bad "keygen needs a description"
run keygen extra
[ $st = 2 ] || bad "keygen with an argument: exit $st, want 2"
"$rc" --help | grep -q '^  keygen ' || bad "--help does not document keygen"
"$rc" --help | grep -q 'key_file' || bad "--help does not document key_file"

# Bad key files, each in a description of its own, refused everywhere.
key=$("$rc" keygen)
key2=$("$rc" keygen)
d=$tmp/desc
mkdir "$d"
: >"$tmp/kernel"
printf 'abcd' >"$tmp/initrd"	# 4 bytes: the cpio follows unpadded
printf '%s\n' "${key%?}" >"$d/short.key"
printf '%s0\n' "$key" >"$d/long.key"
printf '%sg\n' "${key%?}" >"$d/nothex.key"
printf '%s\n\n' "$key" >"$d/twolines.key"
: >"$d/empty.key"
mkdir "$d/dir.key"
mkfifo "$d/fifo.key"
chmod 600 "$d"/*.key
for spec in "nosuch.key:cannot open it: No such file or directory" \
	    "dir.key:it is not a regular file (a directory); name a file that holds the key" \
	    "fifo.key:it is not a regular file (a FIFO)" \
	    "/proc/self/mem:cannot read it: Input/output error" \
	    "short.key:it holds 63 characters, not 64 hex digits (32 bytes) and an optional newline" \
	    "long.key:it holds 65 characters" \
	    "twolines.key:it holds 65 characters" \
	    "empty.key:it holds 0 characters" \
	    "nothex.key:its character 64 is not a hex digit"; do
	kf=${spec%%:*} want=${spec#*:}
	f=$d/${kf##*/}.cluster
	sed "s|^\tsubnet = .*|&\n\tkey_file = $kf|" libvirt-xml/default.cluster >"$f"
	line=$(grep -n '^	key_file' "$f" | cut -d: -f1)
	path=$kf
	[ "${kf#/}" != "$kf" ] || path=$d/$kf
	for cmd in check "render $tmp/render" \
		   "-s $tmp/state -u test:///nowhere -k $tmp/kernel -i $tmp/initrd up" \
		   "initrd $tmp/initrd $tmp/out.img"; do
		# shellcheck disable=SC2086
		set +e
		out=$(timeout 20 "$rc" -c "$f" $cmd 2>&1)
		st=$?
		set -e
		[ $st = 2 ] || bad "$kf, ${cmd%% *}: exit $st, want 2: $out"
		echo "$out" | grep -qF "$f:$line: key_file $path: $want" ||
			bad "$kf, ${cmd%% *}: want \"$f:$line: key_file $path: $want\": $out"
		case $want in
		*"not a regular file"*)
			echo "$out" | grep -qF 'ramster-cluster keygen > FILE && chmod 600 FILE' ;;
		*)
			echo "$out" | grep -qF "ramster-cluster keygen > $path && chmod 600 $path" ;;
		esac || bad "$kf, ${cmd%% *}: no word on how to make a key: $out"
		no_key "$out" "$kf, ${cmd%% *}"
		[ ! -e "$tmp/render" ] || bad "$kf: render wrote $tmp/render"
		[ ! -e "$tmp/state" ] || bad "$kf: up created its state directory"
		[ ! -e "$tmp/out.img" ] || bad "$kf: initrd wrote $tmp/out.img"
	done
done
# commands that do not need the key work with a bad one
run -c "$d/short.key.cluster" -s "$tmp/none" console ms0
[ $st = 1 ] && echo "$out" | grep -q 'ms0.console.log' ||
	bad "console with a bad key_file: exit $st: $out"

# A good key_file, relative to the description's directory (the tool runs
# from /), in upper case: its key, lower case, in ramster.conf, 0600, and
# in the initrd's etc/ramster.conf, 0600 there and on the host.  A key
# file that others can read is taken, with a warning.
printf '%s\n' "$key" | tr a-f A-F >"$d/good.key"
chmod 600 "$d/good.key"
f=$d/good.cluster
sed "s|^\tsubnet = .*|&\n\tkey_file = good.key|" libvirt-xml/default.cluster >"$f"
(cd / && "$rc" -c "$f" check) >"$tmp/out" 2>&1 || bad "check with key_file: $(cat "$tmp/out")"
grep -qxF "cluster key from key_file $d/good.key" "$tmp/out" ||
	bad "check does not name the key file: $(cat "$tmp/out")"
no_key "$(cat "$tmp/out")" "check"
(cd / && "$rc" -c "$f" render "$tmp/r") >"$tmp/out" 2>&1 ||
	bad "render with key_file: $(cat "$tmp/out")"
[ ! -s "$tmp/out" ] || bad "render printed: $(cat "$tmp/out")"
[ "$(conf_key "$tmp/r/ramster.conf")" = "$key" ] ||
	bad "ramster.conf does not carry key_file's key once, in lower case"
sed -n '1,/^$/p' "$tmp/r/ramster.conf" | grep -qxF "	cluster_key = $key" ||
	bad "cluster_key is not in the cluster: stanza: $(cat "$tmp/r/ramster.conf")"
[ "$(mode "$tmp/r/ramster.conf")" = 600 ] ||
	bad "rendered ramster.conf is mode $(mode "$tmp/r/ramster.conf"), want 600"
out=$(tools/ramsterctl/conf-check "$tmp/r/ramster.conf" 2>&1) &&
	echo "$out" | grep -qx "cluster_key set" ||
	bad "conf-check on the rendered ramster.conf: $out"
no_key "$out" "conf-check"
for x in network ms0 client1 client2; do
	grep -q "$key" "$tmp/r/$x.xml" && bad "$x.xml holds the key"
done
"$rc" -c "$f" initrd "$tmp/initrd" "$tmp/out.img" || bad "initrd with key_file failed"
[ "$(mode "$tmp/out.img")" = 600 ] || bad "initrd wrote mode $(mode "$tmp/out.img"), want 600"
unpack "$tmp/out.img" "$tmp/u"
[ "$(conf_key "$tmp/u/etc/ramster.conf")" = "$key" ] ||
	bad "the initrd's etc/ramster.conf does not carry the key"
tail -c +5 "$tmp/out.img" | cpio -tv --quiet 2>/dev/null |
	grep -q '^-rw------- .* etc/ramster.conf$' ||
	bad "etc/ramster.conf is not 0600 in the archive: $(tail -c +5 "$tmp/out.img" | cpio -tv --quiet 2>&1)"
chmod 644 "$d/good.key"
run -c "$f" check
[ $st = 0 ] && echo "$out" | grep -qF "warning: $d/good.key holds the cluster key but others can reach it (mode 0644); run \"chmod 600 $d/good.key\"" ||
	bad "a key file others can read: exit $st: $out"
chmod 600 "$d/good.key"
# without key_file, render writes no key and reads none from the state
run -s "$tmp/r" render "$tmp/nokey"
[ $st = 0 ] && [ -z "$(conf_key "$tmp/nokey/ramster.conf")" ] ||
	bad "render without key_file: exit $st, or a cluster_key: $out"

# up, without key_file: a key made in STATE/cluster.key, 0600, and the
# same key in STATE/ramster.conf and in both initrds (ms0 boots stock).
sed -e 's/^\tmemory_mib = 2048$/&\n\timage = stock/' \
	-e 's/^\t\(swap\|data\)_mib = .*/\t\1_mib = 0/' \
	libvirt-xml/default.cluster >"$d/up.cluster"
s=$tmp/state
up()	# DESCRIPTION
{
	run -c "$1" -s "$s" -u test:///default -k "$tmp/kernel" -i "$tmp/initrd" \
		-K "$tmp/kernel" -I "$tmp/initrd" up
	[ $st = 1 ] && echo "$out" | grep -q "failed; undoing what was defined" ||
		bad "up with the test driver: exit $st, want 1 at net-start: $out"
}
# state_has KEY WHAT: ramster.conf and both initrds carry KEY, all 0600
state_has()
{
	local img

	[ "$(conf_key "$s/ramster.conf")" = "$1" ] ||
		bad "$2: STATE/ramster.conf does not carry the key"
	for img in initrd.img stock-initrd.img; do
		rm -rf "$tmp/u"
		unpack "$s/$img" "$tmp/u"
		[ "$(conf_key "$tmp/u/etc/ramster.conf")" = "$1" ] ||
			bad "$2: $img's etc/ramster.conf does not carry the key"
		cmp -s "$tmp/u/etc/ramster.conf" "$s/ramster.conf" ||
			bad "$2: $img's etc/ramster.conf is not STATE/ramster.conf"
	done
	for x in ramster.conf initrd.img stock-initrd.img; do
		[ "$(mode "$s/$x")" = 600 ] ||
			bad "$2: STATE/$x is mode $(mode "$s/$x"), want 600"
	done
}
up "$d/up.cluster"
echo "$out" | grep -qxF "cluster key in $s/cluster.key (made now)" ||
	bad "up does not say it made a key: $out"
up_key=$(cat "$s/cluster.key" 2>/dev/null || true)
[[ $up_key =~ ^[0-9a-f]{64}$ ]] && [ "$(wc -c <"$s/cluster.key")" = 65 ] ||
	bad "STATE/cluster.key is not 64 hex digits and a newline"
[ "$(mode "$s/cluster.key")" = 600 ] ||
	bad "STATE/cluster.key is mode $(mode "$s/cluster.key"), want 600"
no_key "$out" "up"
state_has "$up_key" "up with a new key"
# up again keeps it
up "$d/up.cluster"
echo "$out" | grep -qxF "cluster key in $s/cluster.key (kept from an earlier up)" ||
	bad "up again does not say it kept the key: $out"
[ "$(cat "$s/cluster.key")" = "$up_key" ] || bad "up again changed STATE/cluster.key"
state_has "$up_key" "up again"
# with key_file, up uses its key and leaves STATE/cluster.key alone
printf '%s\n' "$key2" >"$d/up.key"
chmod 600 "$d/up.key"
sed "s|^\tsubnet = .*|&\n\tkey_file = up.key|" "$d/up.cluster" >"$d/upkf.cluster"
up "$d/upkf.cluster"
echo "$out" | grep -qxF "cluster key from key_file $d/up.key" ||
	bad "up with key_file does not name it: $out"
no_key "$out" "up with key_file"
state_has "$key2" "up with key_file"
[ "$(cat "$s/cluster.key")" = "$up_key" ] || bad "up with key_file changed STATE/cluster.key"
# a broken STATE/cluster.key stops up before anything is defined
printf '%s\n' "${up_key%?}" >"$s/cluster.key"
run -c "$d/up.cluster" -s "$s" -u test:///default -k "$tmp/kernel" \
	-i "$tmp/initrd" -K "$tmp/kernel" -I "$tmp/initrd" up
[ $st = 1 ] && echo "$out" | grep -qF "$s/cluster.key: it holds 63 characters, not 64 hex digits (32 bytes) and an optional newline; delete it to have up make a new key" ||
	bad "up with a broken STATE/cluster.key: exit $st: $out"
echo "$out" | grep -q 'virsh\|undoing' && bad "up with a broken key reached net-define: $out"
no_key "$out" "up with a broken STATE/cluster.key"

[ $fail = 0 ] && echo "PASS: cluster keys: keygen, key_file, up's STATE/cluster.key"
exit $fail
