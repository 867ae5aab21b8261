#!/bin/bash
# The default cluster checks and renders; every rendered XML passes
# virt-xml-validate; the network is isolated (no <forward>, no <ip>); the
# domains and ramster.conf carry what the guests rely on; "initrd" appends
# etc/ramster.conf as an uncompressed newc cpio at a 4-byte boundary;
# disk_iops and disk_mbps become an <iotune> in each of the node's disks;
# a node with image = stock boots the stock kernel and initrd; shared_mib
# gives every client the shareable disk STATE/shared.img and ramster.conf
# its shared_uuid.
# The XML comes from the templates libvirt-xml/*.xml.in with every
# placeholder filled in; a template with an unknown placeholder, or a
# missing one, stops render with exit status 1 before it writes anything.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
make -s -C tools/ramster-cluster
rc=tools/ramster-cluster/ramster-cluster
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad()
{
	echo "FAIL: $*"
	fail=1
}

# want FILE TEXT: FILE contains the fixed string TEXT.
want()
{
	grep -qF -- "$2" "$1" || bad "$1 lacks: $2"
}

# want_not FILE TEXT: FILE does not contain TEXT.
want_not()
{
	! grep -qF -- "$2" "$1" || bad "$1 must not contain: $2"
}

$rc check >"$tmp/check.out" || bad "check of the default cluster failed"
[ "$(grep -c '^node ' "$tmp/check.out")" = 3 ] ||
	bad "check should print one line per node: $(cat "$tmp/check.out")"

$rc -s /var/lib/ramster/t -j client1=swapstress -a loglevel=7 \
	-a ms0=quiet render "$tmp/r" || bad "render failed"
for f in network ms0 client1 client2; do
	[ -s "$tmp/r/$f.xml" ] || bad "render did not write $f.xml"
done
[ -s "$tmp/r/ramster.conf" ] || bad "render did not write ramster.conf"

out=$(virt-xml-validate "$tmp/r/network.xml" network 2>&1) ||
	bad "network.xml does not validate: $out"
for n in ms0 client1 client2; do
	out=$(virt-xml-validate "$tmp/r/$n.xml" domain 2>&1) ||
		bad "$n.xml does not validate: $out"
done

net=$tmp/r/network.xml
want "$net" "<name>ramster-net</name>"
want "$net" "<bridge name='ramster-br0' stp='off'"
want_not "$net" "<forward"
want_not "$net" "<ip"

d=$tmp/r/client1.xml
want "$d" "<domain type='qemu'>"
want "$d" "<name>ramster-client1</name>"
want "$d" '<ramster:node xmlns:ramster="https://ramster.invalid/xmlns/node/1" role="client" number="1" cluster="ramster"/>'
want "$d" "<memory unit='MiB'>256</memory>"
want "$d" "<currentMemory unit='MiB'>256</currentMemory>"
want "$d" "<type arch='x86_64' machine='pc'>hvm</type>"
want "$d" "<kernel>/var/lib/ramster/t/bzImage</kernel>"
want "$d" "<initrd>/var/lib/ramster/t/initrd.img</initrd>"
want "$d" "<cmdline>console=ttyS0 noapic ramster.role=client ramster.node=client1 ramster.number=1 ramster.ip=10.77.0.11/24 ramster.job=swapstress panic=-1 loglevel=7</cmdline>"
want "$d" "<on_crash>destroy</on_crash>"
want "$d" "<emulator>/usr/bin/qemu-system-x86_64</emulator>"
want "$d" "<source file='/var/lib/ramster/t/client1-swap.img'/>"
want "$d" "<target dev='vda' bus='virtio'/>"
want "$d" "<source file='/var/lib/ramster/t/client1-data.img'/>"
want "$d" "<target dev='vdb' bus='virtio'/>"
want "$d" "<mac address='52:54:00:72:6d:01'/>"
want "$d" "<source network='ramster-net'/>"
want "$d" "<source path='/var/lib/ramster/t/client1.console.log'/>"
want "$d" "<source path='/var/lib/ramster/t/client1.results.log'/>"
want "$d" "<target port='1'/>"
want "$d" "<memballoon model='none'/>"
want "$d" "<controller type='usb' model='none'/>"
want_not "$d" "<graphics"

d=$tmp/r/ms0.xml
want "$d" "ramster.role=memory-server ramster.node=ms0 ramster.number=0 ramster.ip=10.77.0.10/24 ramster.job=idle panic=-1 loglevel=7 quiet</cmdline>"
want "$d" "<memory unit='MiB'>2048</memory>"
want_not "$d" "<disk"

# The XML comes from the templates, placeholders all filled in.
want "$net" "<!-- libvirt-xml/network.xml.in:"
want "$tmp/r/client1.xml" "<!-- libvirt-xml/client.xml.in:"
want "$tmp/r/ms0.xml" "<!-- libvirt-xml/memory-server.xml.in:"
for f in network ms0 client1 client2; do
	! grep -qE '@[A-Za-z0-9_]+@' "$tmp/r/$f.xml" ||
		bad "$f.xml has a placeholder left: $(grep -E '@[A-Za-z0-9_]+@' "$tmp/r/$f.xml")"
done

# Values are XML-escaped; a memory server gets a disk only when asked.
sed "s/^\tmemory_mib = 2048\$/&\n\tdata_mib = 64/" libvirt-xml/default.cluster \
	>"$tmp/srvdisk.cluster"
$rc -c "$tmp/srvdisk.cluster" -s "$tmp/a&b'<c>\"" render "$tmp/e" ||
	bad "render with a memory server data disk failed"
want "$tmp/e/ms0.xml" "<source file='$tmp/a&amp;b&apos;&lt;c&gt;&quot;/ms0-data.img'/>"
want "$tmp/e/ms0.xml" "<target dev='vda' bus='virtio'/>"
want "$tmp/e/client1.xml" "<kernel>$tmp/a&amp;b&apos;&lt;c&gt;&quot;/bzImage</kernel>"
for n in ms0 client1; do
	out=$(virt-xml-validate "$tmp/e/$n.xml" domain 2>&1) ||
		bad "$n.xml with escaped paths does not validate: $out"
done

# disk_iops and disk_mbps throttle every disk of their node through
# <iotune>; 0 or no line leaves the disks unthrottled.
sed -e "s/^\tip_address = 10.77.0.11\$/&\n\tdisk_iops = 5000\n\tdisk_mbps = 200/" \
	-e "s/^\tip_address = 10.77.0.12\$/&\n\tdisk_iops = 0\n\tdisk_mbps = 0/" \
	-e "s/^\tmemory_mib = 2048\$/&\n\tdata_mib = 64\n\tdisk_mbps = 1/" \
	libvirt-xml/default.cluster >"$tmp/iotune.cluster"
$rc -c "$tmp/iotune.cluster" check >"$tmp/iotune.out" ||
	bad "check with disk_iops and disk_mbps failed"
want "$tmp/iotune.out" "data 512 MiB 5000 iops 200 MiB/s job idle"
$rc -c "$tmp/iotune.cluster" render "$tmp/io" ||
	bad "render with disk_iops and disk_mbps failed"
d=$tmp/io/client1.xml
[ "$(grep -c '^      <iotune>$' "$d")" = 2 ] ||
	bad "client1.xml: want an <iotune> in each of its 2 disks"
[ "$(grep -c '^        <total_iops_sec>5000</total_iops_sec>$' "$d")" = 2 ] ||
	bad "client1.xml: want total_iops_sec 5000 on both disks"
[ "$(grep -c '^        <total_bytes_sec>209715200</total_bytes_sec>$' "$d")" = 2 ] ||
	bad "client1.xml: want total_bytes_sec 209715200 on both disks"
want "$tmp/io/ms0.xml" "<total_bytes_sec>1048576</total_bytes_sec>"
want_not "$tmp/io/ms0.xml" "<total_iops_sec>"
want_not "$tmp/io/client2.xml" "<iotune>"
want_not "$tmp/r/client1.xml" "<iotune>"
for n in ms0 client1 client2; do
	out=$(virt-xml-validate "$tmp/io/$n.xml" domain 2>&1) ||
		bad "$n.xml with <iotune> does not validate: $out"
done

# image = stock: the memory server boots Debian's kernel and its image,
# the copies of -K and -I in the state directory; the clients do not.
sed "s/^\tmemory_mib = 2048\$/&\n\timage = stock/" libvirt-xml/default.cluster \
	>"$tmp/stock.cluster"
$rc -c "$tmp/stock.cluster" check >"$tmp/stock.out" ||
	bad "check with image = stock failed"
want "$tmp/stock.out" "data 0 MiB image stock job idle"
[ "$(grep -c ' image ' "$tmp/stock.out")" = 1 ] ||
	bad "check: only ms0 boots another image: $(cat "$tmp/stock.out")"
$rc -c "$tmp/stock.cluster" -s /var/lib/ramster/t render "$tmp/st" ||
	bad "render with image = stock failed"
want "$tmp/st/ms0.xml" "<kernel>/var/lib/ramster/t/stock-vmlinuz</kernel>"
want "$tmp/st/ms0.xml" "<initrd>/var/lib/ramster/t/stock-initrd.img</initrd>"
want "$tmp/st/client1.xml" "<kernel>/var/lib/ramster/t/bzImage</kernel>"
want "$tmp/st/client1.xml" "<initrd>/var/lib/ramster/t/initrd.img</initrd>"
out=$(virt-xml-validate "$tmp/st/ms0.xml" domain 2>&1) ||
	bad "ms0.xml with image = stock does not validate: $out"
sed "s/^\tmemory_mib = 2048\$/&\n\timage = default/" libvirt-xml/default.cluster \
	>"$tmp/dflt.cluster"
$rc -c "$tmp/dflt.cluster" -s /var/lib/ramster/t render "$tmp/df" ||
	bad "render with image = default failed"
$rc -s /var/lib/ramster/t render "$tmp/d0" || bad "plain render failed"
cmp -s "$tmp/df/ms0.xml" "$tmp/d0/ms0.xml" ||
	bad "image = default renders another ms0.xml than no image line"

# shared_mib: every client, and no memory server, gets the shared disk
# STATE/shared.img as its next virtio disk after its own (vdc after swap
# and data, vdb after data alone), raw, shareable, cache='none', serial
# ramster-shared, throttled like the node's other disks; ramster.conf
# carries shared_uuid in its cluster: stanza.  Without shared_uuid, one
# is made at load time.
uuid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
sed -e "s/^\tsubnet = .*/&\n\tshared_mib = 256\n\tshared_uuid = $uuid/" \
	-e "s/^\tmemory_mib = 2048\$/&\n\tdata_mib = 64/" \
	-e "s/^\tip_address = 10.77.0.12\$/&\n\tdisk_iops = 3000/" \
	libvirt-xml/default.cluster |
	sed '/^\tname = client2$/,$s/^\tswap_mib = 1024$/\tswap_mib = 0/' \
	>"$tmp/shared.cluster"
$rc -c "$tmp/shared.cluster" check >"$tmp/shared.out" ||
	bad "check with shared_mib failed"
want "$tmp/shared.out" "shared disk 256 MiB uuid $uuid"
$rc -c "$tmp/shared.cluster" -s /var/lib/ramster/t render "$tmp/sh" ||
	bad "render with shared_mib failed"
# shared_disk FILE: the <disk> element of STATE/shared.img in FILE.
shared_disk()
{
	sed -n '/<disk /{h;d};H;/<\/disk>/{x;/shared\.img/p}' "$1"
}
for spec in client1:vdc client2:vdb; do
	n=${spec%:*} dev=${spec#*:}
	d=$tmp/sh/$n.xml
	[ "$(grep -c "<source file='/var/lib/ramster/t/shared.img'/>" "$d")" = 1 ] ||
		bad "$n.xml: want one disk with the shared disk's file"
	shared_disk "$d" >"$tmp/sh/$n.disk"
	want "$tmp/sh/$n.disk" "<driver name='qemu' type='raw' cache='none' discard='unmap'/>"
	want "$tmp/sh/$n.disk" "<target dev='$dev' bus='virtio'/>"
	want "$tmp/sh/$n.disk" "<shareable/>"
	want "$tmp/sh/$n.disk" "<serial>ramster-shared</serial>"
	[ "$(grep -c '<shareable/>' "$d")" = 1 ] &&
		[ "$(grep -c '<serial>' "$d")" = 1 ] ||
		bad "$n.xml: only the shared disk is shareable and has a serial"
	out=$(virt-xml-validate "$d" domain 2>&1) ||
		bad "$n.xml with the shared disk does not validate: $out"
done
want "$tmp/sh/client2.disk" "<total_iops_sec>3000</total_iops_sec>"
[ "$(grep -c '<iotune>' "$tmp/sh/client2.xml")" = 2 ] ||
	bad "client2.xml: want an <iotune> in its data and shared disks"
want_not "$tmp/sh/client1.disk" "<iotune>"
want "$tmp/sh/ms0.xml" "<source file='/var/lib/ramster/t/ms0-data.img'/>"
want_not "$tmp/sh/ms0.xml" "shared.img"
want_not "$tmp/sh/ms0.xml" "<shareable/>"
out=$(virt-xml-validate "$tmp/sh/ms0.xml" domain 2>&1) ||
	bad "ms0.xml of a cluster with a shared disk does not validate: $out"
printf 'cluster:\n\tnode_count = 3\n\tname = ramster\n\tshared_uuid = %s\n\nnode:\n' \
	"$uuid" >"$tmp/sh/want.head"
head -n 6 "$tmp/sh/ramster.conf" | cmp -s - "$tmp/sh/want.head" ||
	bad "ramster.conf of a cluster with a shared disk starts: $(head -n 6 "$tmp/sh/ramster.conf")"
[ "$(grep -c shared_uuid "$tmp/sh/ramster.conf")" = 1 ] ||
	bad "ramster.conf: want shared_uuid once, in the cluster: stanza"
sed "/shared_uuid/d" "$tmp/shared.cluster" >"$tmp/shgen.cluster"
$rc -c "$tmp/shgen.cluster" render "$tmp/sg" || bad "render with a made uuid failed"
grep -Eq '^	shared_uuid = [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' \
	"$tmp/sg/ramster.conf" ||
	bad "no uuid made for shared_uuid: $(head -n 5 "$tmp/sg/ramster.conf")"
grep -q "$uuid" "$tmp/sg/ramster.conf" && bad "the made uuid is the fixed one"
$rc -c "$tmp/shgen.cluster" check >"$tmp/shgen.out" ||
	bad "check with a made uuid failed"
want "$tmp/shgen.out" "(made now: \"up\" makes another unless shared_uuid is given)"
sed "s/shared_mib = 256/shared_mib = 0/" "$tmp/shgen.cluster" >"$tmp/sh0.cluster"
$rc -c "$tmp/sh0.cluster" -s /var/lib/ramster/t render "$tmp/s0" ||
	bad "render with shared_mib = 0 failed"
sed -e "/shared_mib/d" "$tmp/sh0.cluster" >"$tmp/shnone.cluster"
$rc -c "$tmp/shnone.cluster" -s /var/lib/ramster/t render "$tmp/sn" ||
	bad "render without shared_mib failed"
for f in ms0.xml client1.xml client2.xml ramster.conf; do
	cmp -s "$tmp/s0/$f" "$tmp/sn/$f" ||
		bad "shared_mib = 0 renders another $f than no shared_mib line"
done
want_not "$tmp/s0/client1.xml" "shared.img"
want_not "$tmp/s0/ramster.conf" "shared_uuid"

# The templates are found from any directory, through the executable.
(cd / && "$top/$rc" -c "$top/libvirt-xml/default.cluster" render "$tmp/w") ||
	bad "render from / did not find the templates"
cmp -s "$tmp/w/network.xml" "$tmp/r/network.xml" ||
	bad "render from / wrote a different network.xml"

# A template with an unknown placeholder is refused, nothing written.
mkdir "$tmp/t"
cp libvirt-xml/*.xml.in "$tmp/t/"
sed -i 's/@VCPUS@/@VCPU_COUNT@/' "$tmp/t/client.xml.in"
set +e
$rc -t "$tmp/t" render "$tmp/u" 2>"$tmp/t.err"
st=$?
set -e
[ $st = 1 ] || bad "unknown placeholder: exit $st, want 1"
grep -qF "$tmp/t/client.xml.in:" "$tmp/t.err" &&
	grep -qF "unknown placeholder @VCPU_COUNT@" "$tmp/t.err" ||
	bad "unknown placeholder: unclear message: $(cat "$tmp/t.err")"
[ ! -e "$tmp/u" ] || bad "unknown placeholder: render still wrote $tmp/u"

# So is a missing template.
cp libvirt-xml/client.xml.in "$tmp/t/"
rm "$tmp/t/memory-server.xml.in"
set +e
$rc -t "$tmp/t" render "$tmp/u" 2>"$tmp/t.err"
st=$?
set -e
[ $st = 1 ] || bad "missing template: exit $st, want 1"
grep -qF "cannot read template $tmp/t/memory-server.xml.in" "$tmp/t.err" ||
	bad "missing template: unclear message: $(cat "$tmp/t.err")"
[ ! -e "$tmp/u" ] || bad "missing template: render still wrote $tmp/u"

# ramster.conf: o2cb format, tab-indented, blank line after each stanza.
cat >"$tmp/want.conf" <<'EOC'
cluster:
	node_count = 3
	name = ramster

node:
	ip_port = 7777
	ip_address = 10.77.0.10
	number = 0
	name = ms0
	cluster = ramster
	role = memory-server

node:
	ip_port = 7777
	ip_address = 10.77.0.11
	number = 1
	name = client1
	cluster = ramster
	role = client

node:
	ip_port = 7777
	ip_address = 10.77.0.12
	number = 2
	name = client2
	cluster = ramster
	role = client

EOC
diff -u "$tmp/want.conf" "$tmp/r/ramster.conf" || bad "ramster.conf differs"

# The per-cluster initrd: original bytes, zero padding, newc cpio.
printf 'x%.0s' $(seq 33) >"$tmp/in.img"	# 33 bytes: needs 3 of padding
$rc initrd "$tmp/in.img" "$tmp/out.img" || bad "initrd failed"
cmp -n 33 "$tmp/in.img" "$tmp/out.img" || bad "initrd changed the original"
[ "$(od -An -tx1 -j33 -N3 "$tmp/out.img" | tr -d ' ')" = 000000 ] ||
	bad "initrd: no zero padding to a 4-byte boundary"
[ "$(dd if="$tmp/out.img" bs=1 skip=36 count=6 2>/dev/null)" = 070701 ] ||
	bad "initrd: no newc header at offset 36"
tail -c +37 "$tmp/out.img" | (cd "$tmp" && cpio -id --quiet) ||
	bad "initrd: appended archive does not unpack"
diff -u "$tmp/want.conf" "$tmp/etc/ramster.conf" ||
	bad "initrd: etc/ramster.conf differs"

# Every interface has libvirt's clean-traffic with its node's address;
# "nwfilter = none" drops it.
for n in ms0:10.77.0.10 client1:10.77.0.11 client2:10.77.0.12; do
	grep -A1 "<filterref filter='clean-traffic'>" "$tmp/r/${n%:*}.xml" |
		grep -q "<parameter name='IP' value='${n#*:}'/>" ||
		bad "${n%:*}.xml: no clean-traffic filterref with IP ${n#*:}"
done
sed 's/^\tsubnet = .*/&\n\tnwfilter = none/' libvirt-xml/default.cluster \
	>"$tmp/nofilter.cluster"
$rc -c "$tmp/nofilter.cluster" render "$tmp/nf" >/dev/null ||
	bad "render with nwfilter = none failed"
! grep -q "<filterref" "$tmp/nf"/*.xml || bad "nwfilter = none still renders a filterref"

# -j naming an unknown node is a command-line error (exit 2).
set +e
$rc -j nosuch=idle check >/dev/null 2>&1
st=$?
set -e
[ $st = 2 ] || bad "-j nosuch=idle: exit $st, want 2"

[ $fail = 0 ] && echo "PASS: default cluster checks, renders and validates"
exit $fail
