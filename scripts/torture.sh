#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# torture.sh: nstorture alone, for as long as asked, on one kernel (make
# torture).  The guest runs only /tests/torture; the summary is the
# torture's TAP results, its failures as they happened (with their time),
# its operation rates, and report.py's verdict on the kernel log.
#
#   DURATION      seconds of torture (default 600)
#   VARIANT       c | rust (default rust)
#   FLAVOUR       base | debug (default base)
#   LINUX_SERIES  the kernel series (default: the project's, 7.3); another
#                 series is the C variant only, its image bzImage-c-SERIES
#   SEED          nstorture's seed (default: a random one, printed)
#   STORM         storm walkers (nstorture -S, selftests/torture/storm.c;
#                 default 2, as in make test; 0: no storm)
#   PATHS         the path walker (nstorture -P, selftests/torture/paths.c;
#                 default 1, as in make test; 0: none)
#   STOP_ON       nstorture -x: end the run at the first failure of these
#                 checks (commas; "all"; default: run to the end)
#   RUNS          that many runs, seeds SEED, SEED+1, ... (default 1): one
#                 line per run and "clean K of N"; each run's console log
#                 is kept in $OUT/torture-runs/ (a clean kernel's count of
#                 clean runs: make torture RUNS=20 SEED=1001 ...)
set -euo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"

duration=${DURATION:-600}
variant=${VARIANT:-rust}
flavour=${FLAVOUR:-base}
seed=${SEED:-$(((RANDOM << 15) | RANDOM))}
name=$variant
[ "$flavour" = base ] || name="$name-$flavour"
if [ "$LINUX_SERIES" != "$NSTREE_BASE_SERIES" ]; then
	[ "$variant" = c ] || die "the Rust series applies to Linux $NSTREE_BASE_SERIES only (VARIANT=c for $LINUX_SERIES)"
	name="$name-$LINUX_SERIES"
fi

# The guest user space is the same as make test's, built from the
# project's series whatever kernel it boots.
(
	unset LINUX_SERIES LINUX_PKG_VERSION
	"$S/build-selftests.sh" && "$Q/mkinitramfs.sh"
) || die "could not build the guest user space"
[ -f "$OUT/bzImage-$name" ] || "$S/build-kernel.sh" "$variant" "$flavour"

storm=${STORM:-2}
paths=${PATHS:-1}
runs=${RUNS:-1}

# one_run SEED: boot the kernel with nstorture alone; the console log is
# $OUT/console-$name-test.log.
one_run() {
	rm -f "$OUT/console-$name-test.log"
	NSTREE_TORTURE_S=$duration \
	NSTREE_APPEND="nstree.torture_seed=$1 nstree.torture_storm=$storm nstree.torture_paths=$paths${STOP_ON:+ nstree.torture_stop_on=$STOP_ON} nstree.test_timeout=$((duration + 300))" \
	NSTREE_QEMU_TIMEOUT=$((duration + 900)) \
		"$Q/run.sh" "$name" test 'torture/' || true
}
logf="$OUT/console-$name-test.log"

if [ "$runs" -gt 1 ]; then
	mkdir -p "$OUT/torture-runs"
	log "nstorture on $name: $runs runs of ${duration}s, seeds $seed to $((seed + runs - 1)), storm $storm, paths $paths"
	clean=0 bad=""
	for i in $(seq 0 $((runs - 1))); do
		s=$((seed + i))
		one_run "$s" >"$LOGS/torture-run-$name-$s.log" 2>&1
		keep="$OUT/torture-runs/console-$name-seed$s.log"
		cp "$logf" "$keep" 2>/dev/null || : >"$keep"
		# Clean: the guest finished, nstorture passed every check and
		# report.py found nothing in the kernel log.
		if grep -q '^NSTREE-DONE' "$keep" && python3 "$S/report.py" "$name=$keep" >/dev/null 2>&1; then
			clean=$((clean + 1))
			verdict=clean
		else
			bad+=" $s"
			verdict="FAILED: $(sed -e 's/\r$//' "$keep" | grep -m1 -E '^not ok [0-9]+' || echo 'see the log')"
		fi
		log "  $name seed $s: $verdict ($(sed -e 's/\r$//' "$keep" | grep -o -m1 '^# NSTORTURE-GATE cpus=.* walks/s=[0-9.]*' | sed 's/.* //' || echo '?'))"
	done
	echo
	echo "=== nstorture on $name ($(cat "$OUT/kernelrelease-$name" 2>/dev/null || echo "?")), ${duration}s, storm $storm, paths $paths ==="
	echo "clean $clean of $runs (seeds $seed to $((seed + runs - 1)))${bad:+; failed seeds:$bad}"
	[ -z "$bad" ]
	exit
fi

log "nstorture on $name for ${duration}s, seed $seed, storm $storm, paths $paths"
one_run "$seed"

echo
echo "=== nstorture on $name ($(cat "$OUT/kernelrelease-$name" 2>/dev/null || echo "?")), ${duration}s, seed $seed, storm $storm, paths $paths ==="
sed -e 's/\r$//' -e 's/^\[ *[0-9.]*\] //' "$logf" |
	grep -E '^(ok|not ok) [0-9]|^# (nstorture|NSTORTURE-FAIL|NSTORTURE-STATS|NSTORTURE-GATE)|^# [0-9]+ of [0-9]+ checks failed' |
	sed 's/^# NSTORTURE-STATS/# ops per second:/' || true
echo
python3 "$S/report.py" "$name=$logf" | tail -n +3
