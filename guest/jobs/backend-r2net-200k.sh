# backend-r2net-200k: backend-r2net with 200 000 pages (fast kernel).
pages=200000
. /jobs/backend-r2net.sh
