# probe-cleancache: reading, evicting and re-reading ext4 files reaches
# put and get with the right data; overwrite, truncate, rename and delete
# never let an old copy back; unmount drops the pool.
d=/mnt/data
mount -t ext4 /dev/vdb $d || fail "mount /dev/vdb"
# Registered after the mount: the mounted fs gets its pool then.
load_probe frontswap=0
expect $probe/cc_init_fs -ge 1

drop() { sync; echo 1 > /proc/sys/vm/drop_caches; }
same() { cmp "$1" "$2" || fail "$2 differs from its reference"; }

for i in 1 2 3 4 5 6; do
	dd if=/dev/urandom of=/tmp/ref$i bs=1M count=2 2>/dev/null
	cp /tmp/ref$i $d/f$i
done
drop
for i in 1 2 3 4 5 6; do same /tmp/ref$i $d/f$i; done
drop
expect $probe/cc_puts -ge 3000
for i in 1 2 3 4 5 6; do same /tmp/ref$i $d/f$i; done
expect $probe/cc_hits -ge 2500

# Overwrite the middle of f1 while cleancache holds its old pages.
drop
dd if=/dev/urandom of=/tmp/chunk bs=4096 count=16 2>/dev/null
dd if=/tmp/chunk of=/tmp/ref1 bs=4096 seek=8 conv=notrunc 2>/dev/null
dd if=/tmp/chunk of=$d/f1 bs=4096 seek=8 conv=notrunc 2>/dev/null
drop
same /tmp/ref1 $d/f1

inodes=$(cat $probe/cc_invalidate_inode)
same /tmp/ref2 $d/f2
drop
truncate -s 100000 $d/f2
truncate -s 100000 /tmp/ref2
drop
same /tmp/ref2 $d/f2
truncate -s 2097152 $d/f2
truncate -s 2097152 /tmp/ref2
drop
same /tmp/ref2 $d/f2
expect $probe/cc_invalidate_inode -gt "$inodes"

same /tmp/ref3 $d/f3
drop
mv $d/f3 $d/f3.renamed
drop
same /tmp/ref3 $d/f3.renamed

same /tmp/ref4 $d/f4
drop
rm $d/f4
dd if=/dev/urandom of=/tmp/ref4 bs=1M count=2 2>/dev/null
cp /tmp/ref4 $d/f4
drop
same /tmp/ref4 $d/f4
drop
same /tmp/ref4 $d/f4

umount $d || fail "umount"
expect $probe/cc_invalidate_fs -ge 1
expect /sys/kernel/debug/cleancache/succ_gets -ge 2500
mount -t ext4 /dev/vdb $d || fail "remount"
for i in 1 2 5 6; do same /tmp/ref$i $d/f$i; done
same /tmp/ref3 $d/f3.renamed
umount $d
