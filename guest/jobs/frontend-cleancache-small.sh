# frontend-cleancache-small: frontend-cleancache with 4 files of 1 MiB,
# for the debug kernel (KASAN, lockdep: the put and flush paths run with
# interrupts off); drop_caches still sends every page to the server.
files=4 pages=256
. /jobs/frontend-cleancache.sh
