#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# walk-mutants.sh: the power of rust/host/tests/listns_walk.rs (the walk of
# rust/listns.rs against a model of C's loops): the test runs on versions
# of the walk that each have a bug, and must fail on every one.
#
#   0b3921a          the walk before 6acd3fc: asks may_see_all_namespaces()
#                    with collected ids not yet written (a put_user() fault
#                    then leaves PF_SUPERPRIV where C leaves none)
#   6acd3fc          the walk before 9371be8: skips a candidate that is
#                    going away without the question C asks there
#   no-ask           the question after the write left out
#   resume-after     the deferred candidate resumed after, not at
#   limit            the limit test lets one more id into the batch
#   no-pause-hold    the pause resumes after a candidate it did not hold
#
# For each: the tests that failed and how many cases differed. Exits
# non-zero if the current walk fails or if any mutant passes (survives).
# Build output goes where make host-test's does; each mutant rebuilds the
# host crate (build.rs takes the walk from NSTREE_WALK_SRC), about 20 s.
set -uo pipefail
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$S/.." && pwd)
. "$S/env.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/nstree-walk-mutants.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
src=$REPO/rust/listns.rs

mutate() { # NAME: writes $W/NAME.rs, a mutant of the current walk
	local name=$1 out=$W/$1.rs
	case $name in
	0b3921a|6acd3fc) git -C "$REPO" show "$name:rust/listns.rs" >"$out" ;;
	no-ask) perl -0pe 's/if again \{\n(\s*)filter\.ask\(\);/if again {\n$1();/' "$src" >"$out" ;;
	resume-after) sed 's/cur = if again { Some(here) } else { here.next(&g) };/cur = here.next(\&g);/' "$src" >"$out" ;;
	limit) sed 's/if ids.len() == out.room() {/if ids.len() > out.room() {/' "$src" >"$out" ;;
	no-pause-hold) perl -0pe 's/if let Some\(held\) = c\.hold\(\) \{\n(\s*)pause = true;\n(\s*)break Some\(held\);\n(\s*)\}/pause = true;\n$1break c.hold();/' "$src" >"$out" ;;
	esac
	if cmp -s "$out" "$src"; then
		echo "mutant $name: the mutation did not apply" >&2
		return 1
	fi
}

run() { # SRC LOG: the test on the walk in SRC; its exit status
	NSTREE_WALK_SRC=$1 "$S/host-test.sh" --only --test listns_walk --no-fail-fast >"$2" 2>&1
}

fail=0
log "current walk: rust/listns.rs"
if run "$src" "$W/current.log"; then
	log "  passes"
else
	log "  FAILS (see below)"; cat "$W/current.log"; fail=1
fi
printf '%-14s %-8s %s\n' mutant verdict "failed tests (cases that differ)" >"$W/table"
for m in 0b3921a 6acd3fc no-ask resume-after limit no-pause-hold; do
	if ! mutate "$m"; then
		printf '%-14s %-8s %s\n' "$m" error "mutation did not apply" >>"$W/table"; fail=1; continue
	fi
	if run "$W/$m.rs" "$W/$m.log"; then
		verdict=SURVIVED; fail=1
	elif grep -q '^test .* FAILED$' "$W/$m.log"; then
		verdict=caught
	else
		verdict=error; fail=1
	fi
	# "---- NAME stdout ----" then, in its section, "... N of M cases differ".
	detail=$(awk '/^---- .* stdout ----$/ { t = $2 }
		t && /cases differ/ { match($0, /[0-9]+ of [0-9]+/); printf "%s%s (%s)", sep, t, substr($0, RSTART, RLENGTH); sep = ", "; t = "" }' "$W/$m.log")
	printf '%-14s %-8s %s\n' "$m" "$verdict" "${detail:-build failed: see the log}" >>"$W/table"
	log "mutant $m: $verdict"
done
cat "$W/table"
exit $fail
