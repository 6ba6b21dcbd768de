#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# runner-settle-power.sh [N]: the power of the guest runner's settle step
# (qemu/run-tests.sh settle(), tested by selftests/runner_settle_test.c),
# measured: N boots of the C kernel with the runner as it is and N with
# its mutant (nstree.runner_mutant=nowait: the runner as it was before it
# waited for a test's leftovers), each running runner_settle_test and the
# upstream pair it stands for (namespaces/regression_pidfd_setns_test
# then namespaces/stress_test).  Prints, for each runner, how many boots
# passed the_orphan_is_gone and stress_test, and how many flagged the
# runner as broken (NSTREE-ERROR); exits non-zero unless the runner
# passes N of N and the mutant is caught N of N.
#
# Needs $OUT/bzImage-c (make test or make kernel VARIANT=c) and the
# guest user space (make initramfs).  ~30 s a boot under TCG.
set -euo pipefail
. "$(dirname "$0")/env.sh"
Q="$(cd "$(dirname "$0")/.." && pwd)/qemu"

n=${1:-5}
filter='nstree-rs/runner_settle_test|namespaces/(regression_pidfd_setns_test|stress_test)'
log="$OUT/console-c-test.log"
[ -f "$OUT/bzImage-c" ] || die "no $OUT/bzImage-c: make kernel VARIANT=c"
[ -f "$OUT/initramfs.cpio.gz" ] || die "no initramfs: make initramfs"

declare -A orphan stress err
for runner in fixed mutant; do
	orphan[$runner]=0 stress[$runner]=0 err[$runner]=0
	append=
	[ $runner = fixed ] || append=nstree.runner_mutant=nowait
	for i in $(seq "$n"); do
		NSTREE_APPEND=$append "$Q/run.sh" c test "$filter" >/dev/null 2>&1 ||
			die "boot $i of the $runner runner did not finish"
		grep -q '^ok 1 global.the_orphan_is_gone' "$log" && orphan[$runner]=$((orphan[$runner] + 1))
		grep -q '^NSTREE-ERROR run() did not wait' "$log" && err[$runner]=$((err[$runner] + 1))
		# stress_test passes if none of its tests failed.
		awk '/^NSTREE-TEST-BEGIN namespaces\/stress_test/ { s = 1 }
		     /^NSTREE-TEST-END/ { s = 0 }
		     s && /^not ok/ { bad = 1 }
		     END { exit bad }' "$log" && stress[$runner]=$((stress[$runner] + 1))
		log "$runner runner, boot $i/$n: the_orphan_is_gone passed ${orphan[$runner]}, stress_test passed ${stress[$runner]}, NSTREE-ERROR ${err[$runner]}"
	done
done
printf '%-8s %-24s %-20s %s\n' runner "the_orphan_is_gone ok" "stress_test ok" "NSTREE-ERROR"
for runner in fixed mutant; do
	printf '%-8s %-24s %-20s %s\n' $runner "${orphan[$runner]}/$n" "${stress[$runner]}/$n" "${err[$runner]}/$n"
done
[ "${orphan[fixed]}" = "$n" ] && [ "${stress[fixed]}" = "$n" ] && [ "${err[fixed]}" = 0 ] &&
	[ "${orphan[mutant]}" = 0 ] && [ "${err[mutant]}" = "$n" ]
