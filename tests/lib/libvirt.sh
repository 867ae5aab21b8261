# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/libvirt.sh - a private libvirtd for RAMster tests.
#
# Source this file, then call libvirt_up before and libvirt_down after the
# test (trap libvirt_down EXIT).  There is no systemd on the test hosts, so
# libvirt_up starts the daemons itself:
#
#   - network namespace "ramster-test" (RAMSTER_NETNS) is created if absent,
#     so every bridge and tap libvirt makes lives only inside it;
#   - when no libvirtd answers, "virtlogd -d" and "libvirtd -d" are started
#     inside that namespace with pid files under RAMSTER_LV_RUN;
#   - it waits until "virsh -c qemu:///system version" answers.
#
# Where /dev/kvm exists but QEMU's user libvirt-qemu cannot open it (root-only
# on the project's hosts), libvirtd gets its own /dev without kvm; otherwise
# libvirt re-probes QEMU on every define (about a minute each).  Domains use
# type='qemu' (TCG) anyway.
#
# libvirt_down kills only the daemons libvirt_up started (by the pid in its
# pid file) and deletes the namespace only if libvirt_up created it.  Several
# test scripts may share the daemons: each libvirt_up registers the calling
# shell, and only the last one to call libvirt_down tears things down.
# Both functions are idempotent and quiet on success.

RAMSTER_NETNS=${RAMSTER_NETNS:-ramster-test}
RAMSTER_LV_RUN=${RAMSTER_LV_RUN:-/run/ramster-test}
RAMSTER_LV_URI=${RAMSTER_LV_URI:-qemu:///system}
RAMSTER_LV_TIMEOUT=${RAMSTER_LV_TIMEOUT:-30}

_lv_err()
{
	echo "libvirt.sh: $*" >&2
}

_lv_answers()
{
	timeout 10 virsh -c "$RAMSTER_LV_URI" version >/dev/null 2>&1
}

# _lv_alive PIDFILE: true when PIDFILE names a live process.
_lv_alive()
{
	local pid

	[ -s "$1" ] || return 1
	pid=$(cat "$1" 2>/dev/null) || return 1
	case $pid in
	''|*[!0-9]*) return 1 ;;
	esac
	kill -0 "$pid" 2>/dev/null
}

# _lv_lock CMD...: run CMD with the state directory locked.
_lv_lock()
{
	mkdir -p "$RAMSTER_LV_RUN/users" || return 1
	(
		flock -w 120 9 || { _lv_err "cannot lock $RAMSTER_LV_RUN"; exit 1; }
		"$@"
	) 9>"$RAMSTER_LV_RUN/lock"
}

_lv_netns_up()
{
	if ! ip netns list 2>/dev/null | grep -qw "^$RAMSTER_NETNS"; then
		ip netns add "$RAMSTER_NETNS" || {
			_lv_err "cannot create network namespace $RAMSTER_NETNS"
			return 1
		}
		: >"$RAMSTER_LV_RUN/netns.created"
	fi
	ip netns exec "$RAMSTER_NETNS" ip link set lo up
}

# True when QEMU's user cannot open an existing /dev/kvm.  libvirt probes
# QEMU with CAP_DAC_OVERRIDE, finds KVM, then sees that libvirt-qemu cannot
# use it and throws the capabilities away: every define re-probes QEMU for
# about a minute.  We then hide /dev/kvm from libvirtd (see _lv_start).
_lv_kvm_unusable()
{
	[ -c /dev/kvm ] || return 1
	id libvirt-qemu >/dev/null 2>&1 || return 1
	! runuser -u libvirt-qemu -- sh -c 'test -r /dev/kvm && test -w /dev/kvm' \
		2>/dev/null
}

# sh -c script, run in the daemon's own mount namespace: "$0" is a staging
# directory, "$@" the daemon.  It puts a tmpfs copy of /dev without kvm
# over /dev.  A bind mount over /dev/kvm alone is no good: libvirt moves
# every mount under /dev into each guest's private /dev and fails on it.
_lv_nokvm_dev='
	mkdir -p "$0" && mount -t tmpfs -o mode=755,nosuid ramster-dev "$0" ||
		exit 1
	for f in /dev/* /dev/.[!.]*; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		b=${f#/dev/}
		[ "$b" = kvm ] && continue
		if [ -d "$f" ] && mountpoint -q "$f"; then
			mkdir "$0/$b" && mount --bind "$f" "$0/$b" || exit 1
			while mountpoint -q "$f"; do umount -l "$f" || exit 1; done
		else
			cp -a "$f" "$0/" || exit 1
		fi
	done
	mount --move "$0" /dev && exec "$@"'

# _lv_start NAME PIDFILE: start daemon NAME -d inside the namespace; an
# unusable /dev/kvm is hidden from libvirtd, so that probing and the access
# check agree: no KVM, and domains run with type='qemu' (TCG).
_lv_start()
{
	local name=$1 pidfile=$2 i
	local script='exec "$@"'

	rm -f "$pidfile"
	if [ "$name" = libvirtd ] && _lv_kvm_unusable; then
		script=$_lv_nokvm_dev
	fi
	if ! ip netns exec "$RAMSTER_NETNS" sh -c "$script" \
			"$RAMSTER_LV_RUN/dev" "$name" -d -p "$pidfile" 9>&- \
			>"$RAMSTER_LV_RUN/$name.out" 2>&1; then
		_lv_err "$name -d failed:"
		cat "$RAMSTER_LV_RUN/$name.out" >&2
		return 1
	fi
	for i in $(seq 50); do
		_lv_alive "$pidfile" && return 0
		sleep 0.1
	done
	_lv_err "$name did not write $pidfile"
	return 1
}

_lv_up_locked()
{
	local i

	_lv_netns_up || return 1
	: >"$RAMSTER_LV_RUN/users/$1"
	_lv_answers && return 0

	if ! _lv_alive "$RAMSTER_LV_RUN/virtlogd.pid" &&
	   ! pidof virtlogd >/dev/null 2>&1; then
		_lv_start virtlogd "$RAMSTER_LV_RUN/virtlogd.pid" || return 1
	fi
	if ! _lv_alive "$RAMSTER_LV_RUN/libvirtd.pid" &&
	   ! pidof libvirtd >/dev/null 2>&1; then
		_lv_start libvirtd "$RAMSTER_LV_RUN/libvirtd.pid" || return 1
	fi
	for i in $(seq "$RAMSTER_LV_TIMEOUT"); do
		_lv_answers && return 0
		sleep 1
	done
	_lv_err "libvirtd does not answer on $RAMSTER_LV_URI after ${RAMSTER_LV_TIMEOUT}s"
	return 1
}

libvirt_up()
{
	_lv_lock _lv_up_locked "$$"
}

# _lv_kill PIDFILE: stop the daemon we started, if it still runs.
_lv_kill()
{
	local pid i

	_lv_alive "$1" || { rm -f "$1"; return 0; }
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	rm -f "$1"
}

_lv_down_locked()
{
	local u

	rm -f "$RAMSTER_LV_RUN/users/$1"
	for u in "$RAMSTER_LV_RUN"/users/*; do
		[ -e "$u" ] || continue
		if kill -0 "${u##*/}" 2>/dev/null; then
			return 0	# another test still uses the daemons
		fi
		rm -f "$u"
	done
	_lv_kill "$RAMSTER_LV_RUN/libvirtd.pid"
	_lv_kill "$RAMSTER_LV_RUN/virtlogd.pid"
	if [ -e "$RAMSTER_LV_RUN/netns.created" ]; then
		ip netns delete "$RAMSTER_NETNS" 2>/dev/null
		rm -f "$RAMSTER_LV_RUN/netns.created"
	fi
	return 0
}

libvirt_down()
{
	[ -d "$RAMSTER_LV_RUN" ] || return 0
	_lv_lock _lv_down_locked "$$"
}
