#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cascade-mutants.sh: the power of the host tests of rust/cascade.rs (the
# active count's cascade, which the kernel and the host models run): the
# tests run on versions of the cascade that each have a bug, and some
# test must fail on every one.
#
#   id0-skipped      the namespace that passes the quick test and is not
#                    initial (the kernel's id 0) is not counted at all
#   id0-no-owner     ... is counted, but its owners are not
#   id0-one-owner    ... is counted with its owner, not the owner's owner
#   initial-counted  initial namespaces are counted (the walkthrough's
#                    exercise 2: the `is_initial()` return deleted)
#   quick-ignored    the quick test never holds (`maybe_initial()`
#                    ignored): initial namespaces are counted too
#   no-cascade       a zero crossing does not go on to the owner
#   get-no-resurrect the first get of an inactive namespace does not
#                    resurrect its owner
#
# The host tests are deterministic here (proptest's seed is fixed by
# host-test.sh), so each mutant is caught or not: 1 of 1. For each: the
# number of tests that failed, and the first of them. Exits non-zero if the
# current cascade fails or any mutant survives. Each mutant is a copy of
# rust/ and scripts/ in a temporary directory (the build cache is make
# host-test's; each mutant rebuilds the host crate).
set -uo pipefail
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$S/.." && pwd)
. "$S/env.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/nstree-cascade-mutants.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
# The cascade's tests: unit tests of the host library, chosen by module.
tests=(--lib -- cascade:: system_props:: concurrency:: loom_cascade::)

mutate() { # NAME DIR: DIR/rust/cascade.rs becomes the mutant
	local f=$2/rust/cascade.rs
	case $1 in
	id0-skipped) perl -0pi -e 's/return counted_cold\(ns, step\);/return;/' "$f" ;;
	id0-no-owner) perl -0pi -e 's/(fn counted_cold<[^{]*\{\n)\s*counted\(ns, step\);/$1    let mut step = step;\n    step(ns, true);/' "$f" ;;
	id0-one-owner) perl -0pi -e 's/(fn counted_cold<[^{]*\{\n)\s*counted\(ns, step\);/$1    let mut step = step;\n    if step(ns, true) {\n        if let Some(o) = ns.active_owner() {\n            step(o, false);\n        }\n    }/' "$f" ;;
	initial-counted) perl -0pi -e 's/        if ns\.is_initial\(\) \{\n            return;\n        \}\n//' "$f" ;;
	quick-ignored) perl -0pi -e 's/if ns\.maybe_initial\(\) \{/if false {/' "$f" ;;
	no-cascade) perl -0pi -e 's/(\n\s*)cold\(\);/$1cold();$1if true {$1    return;$1}/' "$f" ;;
	get-no-resurrect) perl -0pi -e 's/(\n\s*)prev == 0(\n\s*\}\);)/$1false$2/' "$f" ;;
	esac
	! cmp -s "$f" "$REPO/rust/cascade.rs"
}

run() { # DIR LOG: the host tests of the cascade in DIR; their exit status
	"$1/scripts/host-test.sh" --only --no-fail-fast "${tests[@]}" >"$2" 2>&1
}

copy() { # DIR: a copy of the sources the host tests build
	mkdir -p "$1" && cp -a "$REPO/rust" "$REPO/scripts" "$1/"
}

fail=0
copy "$W/current"
if run "$W/current" "$W/current.log"; then
	log "current cascade: passes"
else
	log "current cascade: FAILS"; tail -40 "$W/current.log"; fail=1
fi
printf '%-16s %-9s %s\n' mutant verdict "failed tests" >"$W/table"
for m in id0-skipped id0-no-owner id0-one-owner initial-counted quick-ignored no-cascade get-no-resurrect; do
	copy "$W/$m"
	if ! mutate "$m" "$W/$m"; then
		printf '%-16s %-9s %s\n' "$m" error "mutation did not apply" >>"$W/table"; fail=1; continue
	fi
	if run "$W/$m" "$W/$m.log"; then
		verdict=SURVIVED; fail=1
	elif grep -q '^test .* FAILED$' "$W/$m.log"; then
		verdict=caught
	else
		verdict=error; fail=1
	fi
	failed=$(grep -c '^test .* FAILED$' "$W/$m.log")
	names=$(grep '^test .* FAILED$' "$W/$m.log" | awk '{sub(/^tests::/, "", $2); print $2}' | head -1)
	printf '%-16s %-9s %s\n' "$m" "$verdict" "$failed: $names" >>"$W/table"
	log "mutant $m: $verdict"
	[ "$verdict" = caught ] || tail -30 "$W/$m.log"
	rm -rf "${W:?}/$m"
done
cat "$W/table"
exit $fail
