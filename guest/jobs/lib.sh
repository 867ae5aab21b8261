# Helpers for guest jobs; sourced by init before a job runs.
# A job is a script run in a subshell; it fails by exiting non-zero.
probe=/sys/kernel/debug/tmem_probe

# sleep SECONDS: wait in the shell itself, a read that times out on a
# FIFO nobody writes.  On the debug kernel under TCG every process a job
# starts (fork and exec) costs a tenth of a second or more of the
# guest's only CPU; polling loops that ran sleep, several times a second
# for a whole job, took much of it from the work they waited for.
mkfifo /run/nap 2>/dev/null
exec 8<> /run/nap
sleep() {
	read -r -t "$1" nap_ <&8 || :
}

# kv FILE NAME: the value after NAME in a file of "name value" lines,
# read in the shell (see sleep); false if there is none.
kv() {
	while read -r kv_k kv_v; do
		[ "$kv_k" = "$2" ] && { echo "$kv_v"; return 0; }
	done < "$1"
	return 1
}

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
