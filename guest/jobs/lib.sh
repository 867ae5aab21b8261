# Helpers for guest jobs; sourced by init before a job runs.
# A job is a script run in a subshell; it fails by exiting non-zero.
probe=/sys/kernel/debug/tmem_probe

# A job's library may define on_fail, to put what it knows on the
# console before the job ends.
fail() {
	echo "FAIL: $*"
	result "FAIL $*"
	if [ -z "${failing:-}" ] && command -v on_fail >/dev/null; then
		failing=1
		on_fail || :
	fi
	exit 1
}

# The console line has the guest's uptime, to see where a job's time goes.
ok() {
	read -r ok_uptime ok_rest < /proc/uptime
	echo "ok: [$ok_uptime] $*"
	result "ok $*"
}

# stay: keep this node up after the job, for others to use.
stay() {
	: > /run/stay
}

# expect FILE OP VALUE: compare a counter file's value, record it.
expect() {
	v=$(cat "$1") || fail "cannot read $1"
	[ "$v" "$2" "$3" ] || fail "$1 is $v, want $2 $3"
	ok "$(basename "$1") = $v ($2 $3)"
}

load_probe() {
	insmod /lib/modules/ramster/tmem_probe.ko "$@" || fail "insmod tmem_probe $*"
}

swap_on() {
	mkswap /dev/vda >/dev/null || fail "mkswap /dev/vda"
	swapon /dev/vda || fail "swapon /dev/vda"
}

avail_mib() {
	echo $(( $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 ))
}
