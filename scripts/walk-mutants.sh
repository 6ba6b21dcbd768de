#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# walk-mutants.sh: the power of rust/host/tests/listns_walk.rs (the walk of
# rust/listns.rs, Walk::run, against a model of C's loops): the test runs on
# versions of the walk that each have a bug, and must fail on every one.
#
#   held-resume-wrong  a full batch resumes at the namespace it held, not
#                      after it: its last id is listed twice
#   batch-drops-last   a full batch holds its last namespace and drops its
#                      id: never listed
#   pause-one-past     the reschedule pause resumes one past the namespace
#                      it held: the one after it is never looked at
#   resume-after       the deferred candidate (the capability question,
#                      asked once the ids are written) resumed after, not at
#   limit              the limit test lets one more id into the batch
#   limit-early        the limit test ends the batch one id early
#   no-ask             the question after the write left out
#   ask-at-once        the question asked with collected ids not yet
#                      written (a fault then leaves PF_SUPERPRIV where C
#                      leaves none)
#   no-pause-hold      the pause resumes after a candidate it did not hold
#   deferred-ends      the deferred candidate, going away, ends the walk
#                      instead of the next one that is not
#
# Each mutant is a textual change of rust/listns.rs in a copy of rust/ and
# scripts/ (the build cache is make host-test's; each mutant rebuilds the
# host crate). For each: the tests that failed and how many cases differed.
# Exits non-zero if the current walk fails or if any mutant passes
# (survives).
set -uo pipefail
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$S/.." && pwd)
. "$S/env.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/nstree-walk-mutants.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
mutants=(held-resume-wrong batch-drops-last pause-one-past resume-after limit limit-early
	no-ask ask-at-once no-pause-hold deferred-ends)

mutate() { # NAME DIR: DIR/rust/listns.rs becomes the mutant
	local f=$2/rust/listns.rs
	local resume='cur = if again \{ Some\(here\) \} else \{ here\.next\(\) \};'
	case $1 in
	held-resume-wrong) perl -0pi -e "s/$resume/cur = if again || !pause { Some(here) } else { here.next() };/" "$f" ;;
	batch-drops-last) perl -0pi -e 's/Some\(held\) => break Some\(held\),/Some(held) => {\n                                    drop(ids.pop());\n                                    break Some(held);\n                                }/' "$f" ;;
	pause-one-past) perl -0pi -e "s/$resume/cur = if again { Some(here) } else if pause { here.next().and_then(|n| n.next()) } else { here.next() };/" "$f" ;;
	resume-after) perl -0pi -e "s/$resume/cur = here.next();/" "$f" ;;
	limit) perl -0pi -e 's/if ids\.len\(\) == out\.room\(\) \{/if ids.len() > out.room() {/' "$f" ;;
	limit-early) perl -0pi -e 's/if ids\.len\(\) == out\.room\(\) \{/if ids.len() + 1 == out.room() {/' "$f" ;;
	no-ask) perl -0pi -e 's/if again \{\n\s*self\.filter\.ask\(\);\n\s*\}/if again {}/' "$f" ;;
	ask-at-once) perl -0pi -e 's/self\.filter\.wants\(c\.item\(\), ids\.is_empty\(\)\)/self.filter.wants(c.item(), true)/' "$f" ;;
	no-pause-hold) perl -0pi -e 's/(\n\s*)if let Some\(held\) = c\.hold\(\) \{\n\s*pause = true;\n\s*break Some\(held\);\n\s*\}/$1pause = true;$1break c.hold();/' "$f" ;;
	deferred-ends) perl -0pi -e 's/let mut from = Some\(c\);\n\s*break loop \{.*?\n\s*\};/break c.hold();/s' "$f" ;;
	esac
	! cmp -s "$f" "$REPO/rust/listns.rs"
}

run() { # DIR LOG: the walk test in DIR; its exit status
	"$1/scripts/host-test.sh" --only --lib --no-fail-fast -- listns_walk:: >"$2" 2>&1
}

copy() { # DIR: a copy of the sources the host tests build
	mkdir -p "$1" && cp -a "$REPO/rust" "$REPO/scripts" "$1/"
}

fail=0
copy "$W/current"
log "current walk: rust/listns.rs"
if run "$W/current" "$W/current.log"; then
	log "  passes"
else
	log "  FAILS (see below)"; tail -40 "$W/current.log"; fail=1
fi
rm -rf "${W:?}/current"
printf '%-18s %-8s %s\n' mutant verdict "failed tests (cases that differ)" >"$W/table"
for m in "${mutants[@]}"; do
	copy "$W/$m"
	if ! mutate "$m" "$W/$m"; then
		printf '%-18s %-8s %s\n' "$m" error "mutation did not apply" >>"$W/table"; fail=1; continue
	fi
	if run "$W/$m" "$W/$m.log"; then
		verdict=SURVIVED; fail=1
	elif grep -q '^test .* FAILED$' "$W/$m.log"; then
		verdict=caught
	else
		verdict=error; fail=1
	fi
	# "---- NAME stdout ----" then, in its section, "... N of M cases differ".
	detail=$(awk '/^---- .* stdout ----$/ { t = $2; sub(/^tests::listns_walk::/, "", t) }
		t && /cases differ/ { match($0, /[0-9]+ of [0-9]+/); printf "%s%s (%s)", sep, t, substr($0, RSTART, RLENGTH); sep = ", "; t = "" }' "$W/$m.log")
	printf '%-18s %-8s %s\n' "$m" "$verdict" "${detail:-build failed: see the log}" >>"$W/table"
	log "mutant $m: $verdict"
	[ "$verdict" = caught ] || tail -30 "$W/$m.log"
	rm -rf "${W:?}/$m"
done
cat "$W/table"
exit $fail
