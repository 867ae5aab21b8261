# frontend-stock: frontend-swap (which see) with the memory server on
# Debian's own kernel (an image of guest/mkstock.sh): the server first
# checks that it runs the kernel its image was built for (uname -r is
# /lib/modules/stock/version, so r2net.ko and ramster_backend.ko are the
# ones DKMS built for it) and says when it got to its job; then it
# serves, and the client, on the project's patched kernel, swaps $mib MiB
# (default 384, 1.5 times its RAM) to it, every page checked.  Such a
# workload swaps some 1.05 times itself out (frontend-swap's 768 MiB, 1.9
# times, when it ran that much), too close to frontend-swap's minimum of all of it: half of it
# must be swapped out here, more than what does not fit in RAM.
mib=${mib:-384}
min_out_mib=$((mib / 2))
# Refusals below the min watermarks, and the local tier, are the
# client's: frontend-swap's (the tier's frames are the window's PUT_ZPAGES).
low_step=0 local_step=0
if [ "$RAMSTER_ROLE" = memory-server ]; then
	want=$(cat /lib/modules/stock/version 2>/dev/null) ||
		fail "no /lib/modules/stock/version: not an image of guest/mkstock.sh"
	[ "$(uname -r)" = "$want" ] ||
		fail "kernel $(uname -r), but the image's modules are for $want"
	read -r up _ < /proc/uptime
	ok "Debian's kernel $(uname -r) ran the job at $up s," \
		"modules:$(awk '{ printf " %s", $1 }' /proc/modules)"
fi
. /jobs/frontend-swap.sh
