# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/2[0-2]-*.sh: unit_deps installs with apt-get what the
# unit tests need and is missing: a C compiler and make (build-essential,
# which brings libasan and libubsan with gcc) and the kernel UAPI headers
# for <linux/types.h> (linux-libc-dev).

unit_deps()
{
	local missing=""

	command -v make >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 ||
		missing="build-essential"
	[ -e /usr/include/linux/types.h ] || missing="$missing linux-libc-dev"
	if [ -z "$missing" ] &&
	   ! echo 'int main(void) { return 0; }' |
	     cc -x c -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
		missing="build-essential"
	fi
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL: missing $missing, and not root to install it"
		return 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		{ apt-get update -q >/dev/null &&
		  apt-get install -y -q --no-install-recommends $missing >/dev/null; } ||
		{ echo "FAIL: apt-get install$missing"; return 1; }
}
