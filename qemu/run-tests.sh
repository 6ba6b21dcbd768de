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
		[ -x "$t" ] || continue
		name="$suite/$(basename "$t")"
		case "$filter" in ''|all) ;; *) echo "$name" | grep -qE "$filter" || continue ;; esac
		mkdir -p /tmp/run && cd /tmp/run
		echo "NSTREE-TEST-BEGIN $name"
		timeout -s KILL "$timeout" "$t" </dev/null 2>&1
		rc=$?
		echo "NSTREE-TEST-END $name rc=$rc"
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
