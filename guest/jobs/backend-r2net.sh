# backend-r2net: the memory server serves tmem over r2net
# (ramster_backend.ko) and a client node checks every answer with
# tmemclient.ko.  In a persistent pool the client puts $pages pages of
# mixed content (zero, same-filled, text, random), gets every one back and
# compares it, flushes one page in eight of the first 128000 and the 500
# objects of pages 128000..159999 (for 200 000 pages), sees those gets
# miss and gets the rest back right again; a second put of a page replaces it.
# Zpages (pages the client compressed; PUT_ZPAGE, GET_ZPAGE): pages put
# as a client sends them come back byte for byte as sent, and decompressed
# by the server for GET_PAGE; corrupt LZO streams are kept and given back
# as sent while GET_PAGE of them answers -TMEM_EINVAL; malformed zpage
# headers are answered -TMEM_EINVAL; an ephemeral pool refuses RAW ones.
# Batches (PUT_ZPAGES, GET_ZPAGES, 16 pages a frame or 7) carry the same
# pages with a status each; a malformed batch is refused whole.
# Requests naming an unknown pool get -TMEM_ENODEV, an out-of-range pool
# id or a malformed NEW_POOL/DESTROY_POOL -TMEM_EINVAL, bad pool flags and a
# seventeenth pool -TMEM_EPERM.  Pool ids are tagged: sixteen pools take
# the sixteen slots, and a pool made in a freed slot has an id never
# given before, while the old id stays unknown.  An ephemeral pool refuses the random
# pages (they do not compress) and gives every other page back exactly
# once.  The client then checks r2net's counters and unconfigures r2net.
#
# The server needs no 'stay': its job waits until the client has let go
# of r2net for good (or its node is gone), then unloads the backend and
# checks the handlers' counts from its "served:" line, and kmemleak.
#
# r2net's default timeouts (30 s idle), as in r2net-echo: under TCG a busy
# link can be silent for seconds.
idle_ms=30000 keepalive_ms=2000 reconnect_ms=2000
. /jobs/r2net-lib.sh
. /jobs/tmem-lib.sh
# pages: a multiple of 400 (the flushes below divide it).  400 here, for
# the debug kernel (under TCG with KASAN and two guests on two host CPUs
# some 15 to 80 requests a second); backend-r2net-200k sets 200 000 for
# the fast kernel (some 5800 puts a second).
pages=${pages:-400}
eph_pages=$((pages / 20))
# Zpages of each kind, and corrupt streams; pages sent in batches (16 a
# frame, the last one short), and the first page number they use.
zpages=150 zbad=25 zbatch=150 zb0=1000
# Pages put whole into a second persistent pool.
whole=200

r2net_up

if [ "$RAMSTER_ROLE" = memory-server ]; then
	# One client: it may have the whole store (200 000 mixed pages
	# take some 330 MB, more than the default share, half the cap).
	insmod $ko/ramster_backend.ko client_share_percent=100 ||
		fail "insmod ramster_backend"
	ok "node $me: ramster_backend serves tmem to $(echo $peers), all of it to one client"
	# Each client unconfigures r2net when it is done: wait until it has
	# not been up for 10 s running (a reconnect takes 2 s).
	end=$(($(now_ms) + 6000000))
	for p in $peers; do
		gone=0
		while [ $gone -lt 10 ]; do
			ms_now
			[ $ms -lt $end ] || { diag; fail "node $p still up after 6000 s"; }
			if [ "$(nstat "$p" state)" = up ]; then
				gone=0
			else
				gone=$((gone + 1))
			fi
			sleep 1
		done
		ok "node $p is done: r2net has not seen it up for 10 s"
		bad=$(awk '/^rejected_|^timeouts |^send_errors |^late_replies / && $2 != 0' "$r2n/nodes/$p")
		[ -z "$bad" ] || { cat "$r2n/nodes/$p"; fail "node $p: r2net counts" $bad; }
	done
	rmmod ramster_backend || fail "rmmod ramster_backend"
	served_line=$(dmesg | grep 'ramster_backend: served:' | tail -n 1)
	[ -n "$served_line" ] || fail "ramster_backend logged no 'served:' line"
	echo "$served_line"
	# At least the requests the client's plan sends.
	[ "$(served put)" -ge $((pages + whole + eph_pages)) ] &&
		[ "$(served get)" -ge $((2 * pages + whole + 2 * eph_pages)) ] &&
		[ "$(served put_zpage)" -ge $((2 * zpages + zbad + 9 + 2 * zbatch)) ] &&
		[ "$(served get_zpage)" -ge $((3 * zpages + whole + 2 * zbad + 3 * zbatch)) ] &&
		[ "$(served put_zpages)" -ge $((2 * (zbatch + 15) / 16 + 6)) ] &&
		[ "$(served get_zpages)" -ge $((3 * (zbatch + 15) / 16)) ] &&
		[ "$(served zpage_bytes_in)" -gt 0 ] &&
		[ "$(served zpage_bytes_out)" -gt 0 ] &&
		[ "$(served flush_page)" -ge $((pages * 2 / 25)) ] &&
		[ "$(served flush_object)" -ge $((pages / 400)) ] &&
		[ "$(served get_hits)" -ge $((pages * 44 / 25 + whole)) ] &&
		[ "$(served get_misses)" -ge $((pages * 6 / 25 + eph_pages)) ] ||
		fail "too few requests served: $served_line"
	# The client's bad requests, one by one: 3 malformed pool requests
	# and 5 malformed zpages, 4 zpages whose length is wrong, 4
	# malformed batches and 2 whose length is wrong, 2 pool ids x
	# (8 x 8 pages + 1 destroy) out of range, 8 refused NEW_POOLs,
	# 3 x 8 x 8 pages of unknown pools, 8 of a destroyed one and 8 of
	# a destroyed one whose slot has a new pool, $zbad
	# GET_PAGEs of corrupt LZO streams (-TMEM_EINVAL from the store);
	# the random pages of the ephemeral pools do not fit.
	for kv in err_bad_length=6 err_bad_payload=12 err_bad_pool_id=130 \
		err_eperm=8 err_enodev=208 err_other=$zbad; do
		[ "$(served ${kv%=*})" = ${kv#*=} ] ||
			fail "${kv%=*} is $(served ${kv%=*}), want ${kv#*=}: $served_line"
	done
	[ "$(served err_enomem)" -gt 0 ] || fail "no err_enomem: $served_line"
	ok "${served_line#*ramster_backend: }"
	no_leaks
	exit 0
fi

srv=$(memory_server)
[ -n "$srv" ] || fail "no memory-server in /etc/ramster.conf"
insmod $ko/tmemclient.ko || fail "insmod tmemclient"
t0=$(now_ms)

tc_pool "$srv" persistent
ok "persistent pool $P on node $srv"

tc_expect "" put "$srv" "$P" $pages 1
ok "put $pages pages ($(tval pages_zero) zero, $(tval pages_same) same-filled," \
	"$(tval pages_text) text, $(tval pages_random) random): $(tsummary)"
tc_expect "" get "$srv" "$P" $pages 1
ok "got all $pages pages back, every one checked: $(tsummary)"

# Flush one page in eight (3, 11, ...) of the first 16/25 of the pages
# one by one, and the objects (64 pages each) of the next 4/25 whole;
# with 200 000 pages: pages below 128000 and objects 2000..2499.
fp=$((pages * 16 / 25)) nfp=$((pages * 2 / 25))
o1=$((fp / 64)) nobj=$((pages / 400))
oend=$(((o1 + nobj) * 64))
tc_expect "" flush "$srv" "$P" $nfp 3 8
ok "flushed pages 3 + 8 i below $fp: $(tsummary)"
tc_expect "" flushobj "$srv" "$P" $nobj $o1
ok "flushed objects $o1..$((o1 + nobj - 1)): $(tsummary)"
tc_expect "ok=0 missing=$nfp" get "$srv" "$P" $nfp 1 3 8
tc_expect "ok=0 missing=$((oend - fp))" get "$srv" "$P" $((oend - fp)) 1 $fp
ok "every flushed page misses: $((nfp + oend - fp)) pages"
for r in 0 1 2 4 5 6 7; do
	tc_expect "" get "$srv" "$P" $nfp 1 $r 8
done
tc_expect "" get "$srv" "$P" $((pages - oend)) 1 $oend
ok "the other $((7 * nfp + pages - oend)) pages still come back right: $(tsummary)"

# A second put replaces the page.
tc_expect "" put "$srv" "$P" $whole 2
tc_expect "" get "$srv" "$P" $whole 2
ok "a second put of pages 0..$((whole - 1)) replaced them"

# Zpages in a persistent pool of their own: each page as a client sends
# it (SAME, LZO1X-1, or RAW when it does not compress) comes back byte
# for byte as sent, and GET_PAGE gets it decompressed by the server.
tc_expect "" pool "$srv" persistent
Z=$(tval status)
tc_expect "" zput "$srv" $Z $zpages 4
ok "zput $zpages pages to pool $Z ($(tval zpage_same) SAME, $(tval zpage_lzo) LZO, $(tval zpage_raw) RAW): $(tsummary)"
tc_expect "zpage_as_sent=$zpages" zget "$srv" $Z $zpages 4
ok "zget: all $zpages back byte for byte as sent, each decoded and checked: $(tsummary)"
tc_expect "" get "$srv" $Z $zpages 4
ok "GET_PAGE of the $zpages zpages: the server decompressed every one right: $(tsummary)"
tc_expect "" zget "$srv" "$P" $whole 2
ok "zget of $whole pages put whole: the server's own forms ($(tval zpage_same) SAME, $(tval zpage_lzo) LZO, $(tval zpage_raw) RAW) decode right"

# Corrupt LZO streams: kept and given back as sent; GET_PAGE, which makes
# the server decompress them, answers -TMEM_EINVAL and they stay.
tc_expect "" zputbad "$srv" $Z $zbad 5 $zpages
tc_expect "zpage_as_sent=$zbad" zgetbad "$srv" $Z $zbad 5 $zpages
ok "$zbad corrupt LZO streams stored and returned unchanged: $(tsummary)"
tc_expect "ok=0 errors=$zbad err_einval=$zbad" get "$srv" $Z $zbad 5 $zpages
tc_expect "zpage_as_sent=$zbad" zgetbad "$srv" $Z $zbad 5 $zpages
ok "GET_PAGE of each: -TMEM_EINVAL; the streams are still there as sent"

# Malformed zpage headers, each refused by the server's decoder.
for k in enc raw4095 lzo0 lzo4096 reserved long short samedata rawshort; do
	tc_expect "ok=0 errors=1 err_einval=1 status=-22" zbad "$srv" $Z $k
done
ok "zpages of an unknown encoding, RAW of 4095 bytes, LZO of 0 or 4096, a reserved byte set, or data not as long as they say: -TMEM_EINVAL"

# Batches: PUT_ZPAGES and GET_ZPAGES of 16 pages a frame, each page as it
# was sent; GET_ZPAGES names pages it does not have too, and of 7 a frame.
tc_expect "requests=$(((zbatch + 15) / 16))" zputs "$srv" $Z $zbatch 7 $zb0
ok "zputs: $zbatch pages in $(tval requests) PUT_ZPAGES: $(tsummary)"
tc_expect "zpage_as_sent=$zbatch requests=$(((zbatch + 15) / 16))" \
	zgets "$srv" $Z $zbatch 7 $zb0
ok "zgets: all $zbatch back as sent in $(tval requests) GET_ZPAGES, each decoded and checked: $(tsummary)"
tc_expect "zpage_as_sent=$zbatch" zget "$srv" $Z $zbatch 7 $zb0
echo 7 > /sys/module/tmemclient/parameters/batch
tc_expect "ok=$zbatch missing=20 requests=$(((zbatch + 20 + 6) / 7))" \
	zgets "$srv" $Z $((zbatch + 20)) 7 $zb0
echo 16 > /sys/module/tmemclient/parameters/batch
ok "the same pages one by one, and in batches of 7 with 20 the server does not have: $(tsummary)"
# Malformed batches of pages 0..3 are refused whole: those pages stay.
for k in count0 count17 reserved entry long short; do
	tc_expect "ok=0 errors=1 err_einval=1 status=-22" zbadbatch "$srv" $Z $k
done
tc_expect "zpage_as_sent=4" zgets "$srv" $Z 4 4
ok "batches of 0 or 17 pages, with a reserved field set, a page of an unknown form or a byte too many or too few: -TMEM_EINVAL, and nothing of them stored"
tc_expect "" destroy "$srv" $Z

# Ephemeral zpages: RAW ones (the random pages) are refused as
# incompressible; a zget takes the page out of the store.
tc_expect "" pool "$srv" ephemeral
E=$(tval status)
tc_run zput "$srv" "$E" $zpages 6
r=$(tval zpage_raw)
tc_check "ok=$((zpages - r)) errors=$r err_enomem=$r" zput "$srv" "$E" $zpages 6
tc_expect "ok=$((zpages - r)) missing=$r missing_random=$r zpage_as_sent=$((zpages - r))" \
	zget "$srv" "$E" $zpages 6
tc_expect "ok=0 missing=$zpages" zget "$srv" "$E" $zpages 6
ok "ephemeral pool $E: $r RAW zpages of $zpages refused; the others back once, as sent"
tc_run zputs "$srv" "$E" $zbatch 8 $zb0
r=$(tval zpage_raw)
tc_check "ok=$((zbatch - r)) errors=$r err_enomem=$r" zputs "$srv" "$E" $zbatch 8 $zb0
tc_expect "ok=$((zbatch - r)) missing=$r missing_random=$r zpage_as_sent=$((zbatch - r))" \
	zgets "$srv" "$E" $zbatch 8 $zb0
tc_expect "ok=0 missing=$zbatch" zgets "$srv" "$E" $zbatch 8 $zb0
ok "ephemeral pool $E in batches: $r RAW zpages of $zbatch refused, each with its own status; the others back once"
tc_expect "" destroy "$srv" "$E"

# Unknown pools (in range: P's tag in another slot, slot 0 and 15 with
# tags the server did not give) and out-of-range pool ids.
U=$((P ^ 1))
for id in $U 16 255; do
	for op in put get zput zget zputs zgets; do
		tc_expect "ok=0 errors=8 err_enodev=8 first_status=-19" $op "$srv" $id 8 1
	done
	for op in flush flushobj; do
		tc_expect "ok=0 errors=8 err_enodev=8 first_status=-19" $op "$srv" $id 8
	done
done
ok "requests for pools $U, 16 and 255, which do not exist, get -TMEM_ENODEV"
for id in 2147483648 4294967295; do
	for op in put get zput zget zputs zgets; do
		tc_expect "ok=0 errors=8 err_einval=8 first_status=-22" $op "$srv" $id 8 1
	done
	for op in flush flushobj; do
		tc_expect "ok=0 errors=8 err_einval=8 first_status=-22" $op "$srv" $id 8
	done
	tc_expect "ok=0 errors=1 err_einval=1 status=-22" destroy "$srv" $id
done
ok "pool ids 2^31 and 2^32-1 get -TMEM_EINVAL"
tc_expect "ok=0 missing=1 status=0" destroy "$srv" $U
tc_expect "ok=0 errors=1 err_einval=1 status=-22" destroy "$srv" "$P" 1
tc_expect "ok=0 errors=1 err_einval=1 status=-22" newpool "$srv" 0x01000001 0 0 1
tc_expect "ok=0 errors=1 err_einval=1 status=-22" newpool "$srv" 0x01000001 5 0 0
ok "DESTROY_POOL of no pool: 0; reserved fields, a private pool's uuid: -TMEM_EINVAL"
for flags in 0x00000001 0x02000001 0x01000011 0x01000004 0x01000100 0x01000003; do
	tc_expect "ok=0 errors=1 err_eperm=1 status=-1" newpool "$srv" $flags 0 0 0
done
tc_expect "ok=0 errors=1 err_eperm=1 status=-1" newpool "$srv" 0x01000002 1 2 0
ok "bad version, page size or flags, shared persistent, shared unauthorised: -TMEM_EPERM"

# Sixteen pools per client: the seventeenth is refused.
ids=$P
for i in $(seq 15); do
	tc_expect "" pool "$srv" persistent
	ids="$ids $(tval status)"
done
slots=$(for id in $ids; do echo $((id % 16)); done | sort -n | tr '\n' ' ')
[ "$slots" = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 " ] ||
	fail "pool ids $ids: slots $slots, want 0..15 once each"
tc_expect "ok=0 errors=1 err_eperm=1 status=-1" pool "$srv" ephemeral
for id in $ids; do
	[ "$id" = "$P" ] || tc_expect "" destroy "$srv" "$id"
done
ok "pools $ids: slots 0..15, the seventeenth refused with -TMEM_EPERM"

# A pool made in a freed slot has a new id; the old one names nothing.
old=$(echo $ids | awk '{ print $2 }')
tc_expect "" pool "$srv" persistent
N=$(tval status)
[ $((N % 16)) = $((old % 16)) ] && ! echo " $ids " | grep -q " $N " ||
	fail "new pool $N: want slot $((old % 16)) of pool $old and an id not in $ids"
tc_expect "ok=0 errors=8 err_enodev=8 first_status=-19" put "$srv" "$old" 8 1
tc_expect "ok=0 missing=1 status=0" destroy "$srv" "$old"
tc_expect "" put "$srv" "$N" 8 1
tc_expect "" destroy "$srv" "$N"
ok "pool $N in the slot of destroyed pool $old: the old id gets -TMEM_ENODEV"

# The persistent pool goes, with its pages.
tc_expect "" destroy "$srv" "$P"
tc_expect "ok=0 errors=8 err_enodev=8" get "$srv" "$P" 8 1
ok "pool $P destroyed; its pages are gone with it"

# Ephemeral: random pages do not compress and are refused; a get takes
# the page out of the store.
tc_expect "" pool "$srv" ephemeral
E=$(tval status)
tc_run put "$srv" "$E" $eph_pages 3
r=$(tval pages_random)
tc_check "ok=$((eph_pages - r)) errors=$r err_enomem=$r" put "$srv" "$E" $eph_pages 3
ok "ephemeral pool $E: $r random pages of $eph_pages refused (-TMEM_ENOMEM): $(tsummary)"
tc_expect "ok=$((eph_pages - r)) missing=$r missing_random=$r" get "$srv" "$E" $eph_pages 3
ok "ephemeral pool $E: every stored page back once, the random ones missing: $(tsummary)"
tc_expect "ok=0 missing=$eph_pages" get "$srv" "$E" $eph_pages 3
ok "ephemeral pool $E: a second get misses every page"
tc_expect "" destroy "$srv" "$E"

for bad in bogus "pool $srv" "pool $srv shared" "pool 255 persistent" \
	"put $srv 0 0 1" "put $srv 0 1000001 1" "get $srv 0 10" \
	"get $srv 0 2 1 4294967295" "flush $srv 0 10 0 0" "destroy $srv" \
	"newpool $srv 1 2 3" "zput $srv 0 0 1" "zbad $srv 0 bogus" \
	"zbad $srv 0"; do
	echo "$bad" 2>/dev/null > $tc/run && fail "tmemclient accepted '$bad'"
done
dmesg | grep -q "tmemclient: bad command; usage: pool NODE" ||
	fail "tmemclient refused bad commands without saying the syntax"
ok "tmemclient refuses bad commands and says the syntax"

bad=$(awk '/^rejected_|^timeouts |^send_errors |^late_replies |^no_handler |^disconnects |^in_flight / && $2 != 0' "$r2n/nodes/$srv")
[ -z "$bad" ] || { cat "$r2n/nodes/$srv"; fail "node $srv: r2net counts" $bad; }
ok "node $srv: msgs_tx $(nstat "$srv" msgs_tx) msgs_rx $(nstat "$srv" msgs_rx)," \
	"bytes_tx $(nstat "$srv" bytes_tx) bytes_rx $(nstat "$srv" bytes_rx);" \
	"no rejects, timeouts, errors or disconnects"
ok "client done in $((($(now_ms) - t0) / 1000)) s"
rmmod tmemclient || fail "rmmod tmemclient"
ramsterctl unconfigure || fail "ramsterctl unconfigure"
