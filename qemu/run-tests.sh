#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every test binary under /tests/<suite>/ as root (those whose
# "suite/name" matches the ERE FILTER, if given, and not the ERE
# NSTREE_EXCLUDE, from nstree.exclude=), each framed by
# markers: NSTREE-TEST-BEGIN <suite>/<name> ... NSTREE-TEST-END <suite>/<name> rc=N
# The binaries print KTAP/TAP themselves (kselftest harness).
#
# Shards (NSTREE_SHARD, from nstree.shard=): "K/N" runs the binaries that
# /etc/nstree/shard-plan-N (scripts/shard-plan.py) gives to shard K, all
# but the torture suite, and the fault-injection sweep only where the plan
# puts it (the debug plan: first in shard 1); "torture" runs the torture
# suite alone, "faultinject" the sweep alone.  The sweep's guest boots
# with slub_debug=F (run.sh), and the sweep runs before anything else in
# it.  Every test's run time is printed against its limit (NSTREE-TIME).
filter=$1
# The runner's own limit on a binary (a harness test is limited by the
# harness first: 30 s x KSFT_TIMEOUT_SCALE, printed as NSTREE-TIMEOUT; the
# runner's limit on it is only a backstop above the largest of those).
timeout=${NSTREE_TEST_TIMEOUT:-600}
harness_kill=${NSTREE_HARNESS_KILL:-600}
shard=${NSTREE_SHARD:-}
# The plan of this kernel's flavour (NSTREE_PLAN, from nstree.plan=), if
# the initramfs has one.
plan=/etc/nstree/shard-plan
[ ! -f "$plan-${NSTREE_PLAN:-}-2" ] || plan=$plan-$NSTREE_PLAN
[ -z "$shard" ] || echo "NSTREE-SHARD $shard plan ${plan##*/}"

# The runner spawns as few processes as it can: each one costs about
# 40 ms on a debug kernel under TCG (20 ms more for a $(...)), and it
# runs about 500 tests and looks at every binary in each guest.

# This shard's binaries (" name name ... ") and the plan's, read once.
case "$shard" in
*/*)
	mine=" $(awk -v k="${shard%/*}" '$2 == k { printf "%s ", $1 }' "$plan-${shard#*/}" 2>/dev/null)"
	planned=" $(awk '!/^#/ { printf "%s ", $1 }' "$plan-${shard#*/}" 2>/dev/null)"
	;;
esac
# in_shard NAME: whether suite/binary NAME runs in this guest.
in_shard() {
	case "$shard" in
	'') return 0 ;;
	torture) case "$1" in torture/*) return 0 ;; *) return 1 ;; esac ;;
	faultinject) case "$1" in nstree-rs/faultinject) return 0 ;; *) return 1 ;; esac ;;
	esac
	case "$1" in torture/*) return 1 ;; esac
	case "$mine" in *" $1 "*) return 0 ;; esac
	case "$planned" in *" $1 "*) return 1 ;; esac
	# The sweep: where the plan puts it; in shard 1 if the plan does not
	# know it (the base kernels, which have no fail-nth: it reports its
	# skip there, as it does in an unsharded guest).
	[ "$1" != nstree-rs/faultinject ] || { [ "${shard%/*}" = 1 ]; return; }
	# A binary the plan does not know: by a hash of its name.
	n=${shard#*/}
	[ $(($(echo "$1" | cksum | cut -d' ' -f1) % n + 1)) = "${shard%/*}" ]
}

# now: NOW = the uptime in hundredths of a second, without a process
# (each one costs tens of milliseconds on a debug kernel under TCG, and
# the runner takes the time twice a test).  /proc/uptime has two
# decimals, and the guest has been up for seconds: no leading zero.
now() {
	read -r up _ </proc/uptime
	NOW=${up%.*}${up#*.}
}

# run LIMIT_S COMMAND...: COMMAND, killed after LIMIT_S seconds, and
# then every process it left behind reaped (tools/nsrun: a child
# subreaper, so a test's orphans are reparented to it and waited for
# exactly, up to 30 s; a zombie keeps its user namespace active until it
# is reaped).  nstree.runner_mutant=nowait is the runner before it waited
# (scripts/runner-settle-power.sh).
nsrun_opt=
[ "${NSTREE_RUNNER_MUTANT:-}" != nowait ] || nsrun_opt=-n
run() {
	local limit=$1
	shift
	nsrun $nsrun_opt "$limit" 30 "$@"
}

# Before each test: its predecessor's processes are gone (run()); the
# namespaces suites also wait until listns() is stable (teardown is
# partly asynchronous: tools/nssettle).  The others need no stable list
# (the wait adds up over the hundreds of their tests on the debug kernels).
settle() {
	case $name in namespaces/* | nstree-rs/*) nssettle ;; esac
}
# The tests of a kselftest-harness binary, as "fixture[.variant].test"
# names for -r, from its -l listing (fixed columns: fixture, variant, test;
# the fixture is named on its first row only; variants x tests).
harness_tests() {
	grep -q 'FIXTURE' "$1" 2>/dev/null || return 0
	"$1" -l 2>&1 </dev/null | awk '
		function flush(  i, j) {
			for (j = 0; j < nt; j++) {
				if (nv == 0)
					print fx "." T[j]
				for (i = 0; i < nv; i++)
					print fx "." V[i] "." T[j]
			}
			nv = 0; nt = 0
		}
		/^# FIXTURE/ { ok = 1; next }
		/^-----/ { next }
		ok {
			# Classify each word by the column it starts in: fixture
			# at 1, variant at 22, test at 48 (long names overflow
			# their column but still start in it).
			line = $0; pos = 1
			while (match(line, /[^ ]+/)) {
				col = pos + RSTART - 1; w = substr(line, RSTART, RLENGTH)
				if (col < 22) { flush(); fx = w }
				else if (col < 48) V[nv++] = w
				else T[nt++] = w
				pos = col + RLENGTH; line = substr(line, RSTART + RLENGTH)
			}
		}
		END { flush() }'
}

# run_one BINARY TEST: one harness test, after settling, once.  A test's
# result is its first and only attempt: a SKIP is a result like any
# other.  (Re-running skipped tests would turn an intermittent skip on one
# kernel, such as ns_active_ref_test's "Failed to open child namespace"
# when a namespace's reference count is wrong, into a pass, and the C/Rust
# comparison would never see it.)
run_one() {
	settle
	now
	t1=$NOW
	run "$harness_kill" "$1" -r "$2" </dev/null >/tmp/out.txt 2>&1
	r=$?
	now
	t2=$NOW
	# The output, and from it, in the same process: the harness's own
	# limit for this test (the first "# NSTREE-TIMEOUT N": the overlay's
	# kselftest harness prints it, peers/selftest-fixes/0000-*), and
	# whether the harness ran the test ("ok N TEST" or "not ok N TEST",
	# maybe followed by " # ...").
	awk -v t="$2" '
		{ print }
		!seen && /^# NSTREE-TIMEOUT / {
			seen = 1; v = substr($0, 18); match(v, /^[0-9]*/); lim = substr(v, 1, RLENGTH)
		}
		/^(not )?ok [0-9]+ / {
			v = $0; sub(/^(not )?ok [0-9]+ /, "", v)
			if (v == t || index(v, t " ") == 1) ran = 1
		}
		END { print (lim == "" ? "-" : lim), ran + 0 > "/tmp/meta.txt" }' /tmp/out.txt
	read -r lim ran </tmp/meta.txt
	[ "$lim" != - ] || lim=
	echo "NSTREE-TIME $name:$2 secs=$(((t2 - t1) / 100)).$(((t2 - t1) % 100 / 10)) limit=${lim:-$harness_kill}"
	# A name the harness did not run must not vanish silently.
	[ "$ran" = 1 ] ||
		{ echo "1..1"; echo "not ok 1 $2"; echo "# the harness did not run $2 (rc=$r)"; r=1; }
	return $r
}

cd /tmp
# The runner's own check of run(): a command that leaves a process
# asleep for a second must take that second.
now
t1=$NOW
run 10 sh -c 'sleep 1 &' >/dev/null 2>&1
now
[ $((NOW - t1)) -ge 100 ] ||
	echo "NSTREE-ERROR run() did not wait for a leftover process ($((NOW - t1))0 ms)"
# The binaries, suite by suite; the fault-injection sweep first, in the
# guest as it booted (its fault indices depend on the slab state).
binaries() {
	[ ! -x /tests/nstree-rs/faultinject ] || echo /tests/nstree-rs/faultinject
	for d in /tests/*/; do
		for b in "$d"*; do
			[ "$b" != /tests/nstree-rs/faultinject ] || continue
			[ -x "$b" ] || [ -L "$b" ] || continue
			echo "$b"
		done
	done
}
# The Rust walk's reschedule pauses: its trace event (the C tree has no such
# pause, nor the event), counted over the whole run and printed at its end.
pause_ev=/sys/kernel/tracing/events/nstree/nstree_listns_pause
[ -d /sys/kernel/tracing/events ] || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
[ ! -e $pause_ev/enable ] || echo 1 >$pause_ev/enable
for t in $(binaries); do
	suite_dir=${t%/*}/
	suite=${t%/*}
	suite=${suite##*/}
	name=$suite/${t##*/}
	case "$filter" in ''|all) ;; *) echo "$name" | grep -qE "$filter" || continue ;; esac
	[ -z "${NSTREE_EXCLUDE:-}" ] || ! echo "$name" | grep -qE "$NSTREE_EXCLUDE" || continue
	in_shard "$name" || continue
	mkdir -p /tmp/run && cd /tmp/run
	# Helper binaries some tests exec from their working directory.
	[ -d "${suite_dir}.helpers" ] && ln -s "${suite_dir}".helpers/* /tmp/run/
	echo "NSTREE-TEST-BEGIN $name"
	now
	t0=$NOW
	tests=$(harness_tests "$t")
	if [ -z "$tests" ]; then
		# Not a kselftest-harness binary: run it as it is.
		now
		t1=$NOW
		{ run "$timeout" "$t" </dev/null 2>&1; echo $? >/tmp/rc.txt; } |
			tee /tmp/out.txt
		rc=$(cat /tmp/rc.txt)
		now
		t2=$NOW
		echo "NSTREE-TIME $name secs=$(((t2 - t1) / 100)).$(((t2 - t1) % 100 / 10)) limit=$timeout"
		# No TAP at all (plain kselftest programs): the exit
		# status is the result, as kselftest's runner has it:
		# 0 pass, 4 (KSFT_SKIP) skip, anything else fail.
		if ! grep -qE '^(TAP version|1\.\.[0-9]|(not )?ok [0-9])' /tmp/out.txt; then
			echo "1..1"
			case $rc in
			0) echo "ok 1 $(basename "$t")" ;;
			4) echo "ok 1 $(basename "$t") # SKIP $(grep . /tmp/out.txt | tail -1)" ;;
			*) echo "# exit status $rc"; echo "not ok 1 $(basename "$t")" ;;
			esac
		fi
	else
		# One test per run, with the previous test's leftovers
		# gone (see settle()): upstream tests compare listns()
		# counts with a baseline and otherwise see each other.
		rc=0
		for tn in $tests; do
			run_one "$t" "$tn" || rc=$?
		done
	fi
	now
	echo "NSTREE-TEST-END $name rc=$rc secs=$(((NOW - t0) / 100)).$(((NOW - t0) % 100 / 10))"
	cd /tmp && rm -rf /tmp/run
done
# Kernel health after the run: kmemleak (debug kernels) and the log.
# kmemleak reports an object that two scans in a row found unreferenced
# and unchanged, and that was at least 5 s old (jiffies_min_age) when the
# second scan began (mm/kmemleak.c: update_checksum(), unreferenced_object()).
# The first scan records the checksums near its end, so an object the last
# test's asynchronous teardown leaked during the first scan is reported
# only if the second scan starts 5 s after the first one ended.
# The host starts the next torture guest from these lines (scripts/test.sh):
# its boot overlaps the pause and the second scan, not a test.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo "NSTREE-TESTS-DONE kmemleak=y"
	echo scan >/sys/kernel/debug/kmemleak
	echo "NSTREE-KMEMLEAK-FIRST-SCAN-DONE"
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	echo "NSTREE-KMEMLEAK entries=$n"
	head -60 /sys/kernel/debug/kmemleak
else
	echo "NSTREE-TESTS-DONE kmemleak=n"
fi
if [ -e $pause_ev/enable ]; then
	echo "NSTREE-TRACE nstree_listns_pause $(cat /sys/kernel/tracing/per_cpu/cpu*/stats |
		awk '/^(entries|overrun):/ { n += $2 } END { print n + 0 }')"
fi
