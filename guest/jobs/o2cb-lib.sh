# o2cb-lib.sh: OCFS2's own cluster stack (o2cb) by hand, through
# configfs, for the clients that share the cluster's OCFS2 volume: what
# o2cb_ctl and ocfs2_hb_ctl would write.  Sourced after tmem-lib.sh.
#
# o2cb_up DEV: make the volume's o2cb cluster (its name is on the disk)
# with every client of /etc/ramster.conf as a node (its number and
# address; port 7778, as r2net has 7777), this one local, and start this
# node's heartbeat on the volume's heartbeat blocks.  Then
# "mount -t ocfs2 -o heartbeat=local DEV DIR" mounts it read-write.
# o2cb_down: stop the heartbeat (the other nodes read that this node
# left, rather than waiting for it to die), then leave the cluster.
o2cb_port=7778

o2cb_up() {
	o2_dev=$1
	o2_cfg=/sys/kernel/config/cluster
	[ -d $o2_cfg ] || fail "no $o2_cfg: configfs not mounted, or no OCFS2 in the kernel"
	debugfs.ocfs2 -R stats "$o2_dev" > /run/o2stats 2>&1 ||
		{ cat /run/o2stats; fail "debugfs.ocfs2 -R stats $o2_dev"; }
	o2_name=$(awk '$1 == "Cluster" && $2 == "name:" { print $3 }' /run/o2stats)
	o2_uuid=$(awk '$1 == "UUID:" { print $2 }' /run/o2stats)
	o2_bbits=$(awk '/Block Size Bits:/ { print $4 }' /run/o2stats)
	o2_cbits=$(awk '/Cluster Size Bits:/ { print $8 }' /run/o2stats)
	[ -n "$o2_name" ] && [ -n "$o2_uuid" ] && [ -n "$o2_bbits" ] &&
		[ -n "$o2_cbits" ] ||
		{ cat /run/o2stats; fail "$o2_dev is not an OCFS2 volume for o2cb"; }
	# The heartbeat system file's one extent: clusters, first block.
	debugfs.ocfs2 -R "stat //heartbeat" "$o2_dev" > /run/o2hb 2>&1 ||
		{ cat /run/o2hb; fail "debugfs.ocfs2 -R 'stat //heartbeat' $o2_dev"; }
	set -- $(awk '$1 == "##" && $2 == "Offset" { e = 1; next }
		e && $1 == 0 { print $3, $4; exit }' /run/o2hb)
	[ $# = 2 ] || { cat /run/o2hb; fail "no extent in $o2_dev's heartbeat file"; }
	# o2hb counts in the device's sectors: a sector per node, o2cb's 255
	# nodes at most.
	o2_sect=$(cat /sys/block/${o2_dev#/dev/}/queue/logical_block_size)
	o2_start=$(($2 * ((1 << o2_bbits) / o2_sect)))
	o2_blocks=$((($1 << o2_cbits) / o2_sect))
	[ $o2_blocks -le 255 ] || o2_blocks=255

	# o2cb_down stops the heartbeat: unmounting needs no helper (this
	# image has no ocfs2_hb_ctl).
	echo /bin/true > /proc/sys/fs/ocfs2/nm/hb_ctl_path ||
		fail "no /proc/sys/fs/ocfs2/nm/hb_ctl_path"
	o2_c=$o2_cfg/$o2_name
	mkdir $o2_c || fail "mkdir $o2_c"
	awk '/^node:/ { n = ""; a = ""; m = ""; c = 0 } $1 == "number" { n = $3 }
		$1 == "ip_address" { a = $3 } $1 == "name" { m = $3 }
		$1 == "role" && $3 == "client" { c = 1 }
		c && n != "" && a != "" && m != "" { print m, n, a; c = 0 }' \
		/etc/ramster.conf > /run/o2nodes
	while read -r o2_n o2_num o2_ip; do
		o2_d=$o2_c/node/$o2_n
		mkdir $o2_d && echo $o2_ip > $o2_d/ipv4_address &&
			echo $o2cb_port > $o2_d/ipv4_port && echo $o2_num > $o2_d/num ||
			fail "o2cb node $o2_n ($o2_num, $o2_ip:$o2cb_port)"
	done < /run/o2nodes
	echo 1 > $o2_c/node/$RAMSTER_NODE/local || fail "o2cb: $RAMSTER_NODE as the local node"

	o2_r=$o2_c/heartbeat/$o2_uuid
	mkdir $o2_r && echo $o2_sect > $o2_r/block_bytes &&
		echo $o2_start > $o2_r/start_block &&
		echo $o2_blocks > $o2_r/blocks ||
		fail "o2cb heartbeat region $o2_uuid"
	# The region takes the device from an open descriptor, and returns
	# once this node's heartbeat is steady.
	exec 9<> "$o2_dev"
	echo 9 > $o2_r/dev || fail "o2cb: no heartbeat on $o2_dev"
	exec 9>&-
	ok "o2cb cluster $o2_name: nodes $(awk '{ printf "%s ", $1 }' /run/o2nodes)(port $o2cb_port); heartbeat on $o2_dev sectors $o2_start+$o2_blocks"
}

o2cb_down() {
	rmdir $o2_r || fail "o2cb: stop the heartbeat ($o2_r)"
	# The others read the explicit "left" block within a beat (2 s):
	# wait for it before this node's o2net goes.
	sleep 6
	echo 0 > $o2_c/node/$RAMSTER_NODE/local 2>/dev/null
	for o2_n in $(awk '{ print $1 }' /run/o2nodes); do
		rmdir $o2_c/node/$o2_n || fail "o2cb: rmdir node $o2_n"
	done
	rmdir $o2_c || fail "o2cb: rmdir $o2_c"
}
