# frontend-cleancache-small: frontend-cleancache with 4 files of 1 MiB,
# for the debug kernel (KASAN, lockdep: the put and flush paths run with
# interrupts off); drop_caches still sends every page to the server.
# The random file is 1 MiB, the slow link's files 4 of 512 KiB.  Swap
# pages go too, through the local tier (local_tier_hold, tmem-lib.sh), so
# the debug kernel watches its paths as well.
files=4 pages=256 rp=256 slow=4 sp=128 fe_swap=1
. /jobs/frontend-cleancache.sh
