# warn: trigger a kernel warning on purpose; the host must call it a
# failure even though this job would pass.
load_probe frontswap=0 cleancache=0
echo 1 > $probe/warn
