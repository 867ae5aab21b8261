#!/bin/sh
# Install the Debian packages the build and the tests need, once, and
# any more named as arguments (bench/swap.sh's profile: linux-perf).
# Quiet when everything is there already.
set -eu
pkgs="linux-source-6.1 qemu-system-x86 libvirt-daemon-system libvirt-clients
virtinst busybox-static e2fsprogs bc bison flex libelf-dev libssl-dev cpio
sparse build-essential kmod xz-utils patch iproute2 libxml2-utils gzip
util-linux procps iptables dnsmasq-base gnuplot-nox dkms linux-headers-amd64
ocfs2-tools $*"
missing=
for p in $pkgs; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing; run as root or apt-get install them" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
