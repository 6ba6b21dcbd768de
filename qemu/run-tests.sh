#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every test binary under /tests/<suite>/ as root, each framed by
# markers: NSTREE-TEST-BEGIN <suite>/<name> ... NSTREE-TEST-END <suite>/<name> rc=N
# The binaries print KTAP/TAP themselves (kselftest harness).
filter=$1
timeout=${NSTREE_TEST_TIMEOUT:-300}
cd /tmp
for suite_dir in /tests/*/; do
	suite=$(basename "$suite_dir")
	for t in "$suite_dir"*; do
		[ -x "$t" ] || [ -L "$t" ] || continue
		name="$suite/$(basename "$t")"
		case "$filter" in ''|all) ;; *) echo "$name" | grep -qE "$filter" || continue ;; esac
		mkdir -p /tmp/run && cd /tmp/run
		# Let the previous test's namespaces finish going away first.
		[ -x /usr/bin/nssettle ] && nssettle
		echo "NSTREE-TEST-BEGIN $name"
		timeout -s KILL "$timeout" "$t" </dev/null >/tmp/out.txt 2>&1
		rc=$?
		cat /tmp/out.txt
		echo "NSTREE-TEST-END $name rc=$rc"
		# A kselftest SKIP means the test could not set up its scenario.
		# Some upstream tests race with their own children there (e.g.
		# ns_active_ref_test opens a child's namespaces while the child
		# exits), so skipped tests get up to two more attempts, run alone
		# with -r; the last attempt is the result.  Failures are final.
		for tn in $(sed -n 's/^ok [0-9]* \([^ ]*\) # SKIP.*/\1/p' /tmp/out.txt); do
			for attempt in 2 3; do
				echo "NSTREE-RETRY-BEGIN $name $tn attempt=$attempt"
				timeout -s KILL "$timeout" "$t" -r "$tn" </dev/null >/tmp/retry.txt 2>&1
				cat /tmp/retry.txt
				echo "NSTREE-RETRY-END $name $tn"
				grep -q "^ok [0-9]* $tn # SKIP" /tmp/retry.txt || break
			done
		done
		cd /tmp && rm -rf /tmp/run
	done
done
# Kernel health after the run: kmemleak (debug kernels) and the log.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	echo "NSTREE-KMEMLEAK entries=$n"
	head -60 /sys/kernel/debug/kmemleak
fi
