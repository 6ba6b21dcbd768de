#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# results.sh: write docs/results.md from the last make test run ($OUT/run-record.txt and
# $OUT/report.txt) and the mutants' table of the last make mutants runs, and the README's
# summary and headline blocks (scripts/results.py).
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$OUT/run-record.txt" ] && [ -f "$OUT/report.txt" ] || die "no run in $OUT: make test first"
mut=-
if ls "$NSTREE_CACHE"/mutants/console-*-1.log >/dev/null 2>&1; then
	"$REPO/scripts/mutants.sh" --report >"$OUT/mutants-report.txt" 2>/dev/null && mut="$OUT/mutants-report.txt"
fi
python3 "$REPO/scripts/results.py" "$OUT" "$mut" >"$REPO/docs/results.md" || die "results.py failed"
# The README's summary and headline blocks, from the same run and docs/bench/.
python3 "$REPO/scripts/results.py" --readme "$OUT" "$REPO/docs/bench/summary.csv" "$REPO/README.md" ||
	die "results.py --readme failed"
# The cover letter's results, of the series the run tested.
python3 "$REPO/scripts/results.py" --cover "$OUT" >"$REPO/c-glue/messages/cover-results.txt" ||
	die "results.py --cover failed"
log "wrote docs/results.md from the run of $(sed -n 's/^commit //p' "$OUT/run-record.txt" | cut -c1-12)"
