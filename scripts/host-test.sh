#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-test.sh [--loom | --all] [--tap FILE] | --only CARGO-TEST-ARGS...:
# the host tests of the crate (rust/host: cascade.rs, req.rs, listns.rs and
# tree.rs compiled from the very files the kernel compiles, over a model of
# the namespaces and a working stand-in of upstream's kernel crate (rust/kernel); models of the
# namespace system and of C's listns(); loom model checking of the cascade),
# all unit tests of the host library, in one `cargo test --locked`:
#
#   (default)  make host-test: everything, with the quick loom scenarios
#              (under a second each); the two long ones are #[ignore]d,
#              and reported as skipped
#   --loom     make loom: every loom scenario, the long ones included,
#              and nothing else
#   --all      everything, every loom scenario included (make test)
#
# Needs nothing but a cargo: rustup's in ~/.cargo/bin, else one on PATH,
# else it installs Debian's (cargo-web, with rustc-web) with apt-get. It
# does not need `make setup` or a kernel tree.
#
# Build output goes to $NSTREE_CACHE/host-target/<checkout>, never into
# the repo, so a second run only runs the tests.  One directory per
# checkout of the repository: cargo decides freshness by file times, and
# the stand-in kernel crate of another checkout, built later than this
# one's files were written, would pass for this one's. With --tap, FILE gets one TAP line per
# test ("module::name", the module being the file of rust/host/tests/),
# loom's included, and a comment line per loom scenario with the
# interleavings it explored. Exits non-zero if anything failed, a build
# failure included. With --only, just `cargo test CARGO-TEST-ARGS` in the
# same environment and build directory (no TAP):
# `--only --lib -- listns_walk::`, ...
#
#   PROPTEST_CASES     cases per property test (default 1024)
#   PROPTEST_RNG_SEED  seed of every property test (default: random; it is
#                      printed, so a failing run can be repeated exactly)
#   LOOM_MAX_PREEMPTIONS  preemption bound of the one loom scenario too
#                      large to explore fully (default 4; the others are
#                      always exhaustive)
#   NSTREE_LOOM_NO_CAP  set: no cap on a loom scenario's interleavings
#                      (tests/loom_cascade.rs: by default a scenario fails
#                      once it explores 4 times what the correct cascade
#                      needs, which a broken cascade() would)
#   CARGO              cargo to use (default: ~/.cargo/bin/cargo, else
#                      cargo on PATH, else Debian's, installed)
#
# Not sourcing env.sh on purpose: it points RUSTC at the kernel's rustc
# and creates the kernel output directories, neither of which is wanted.
set -uo pipefail

log() { printf '[nstree-rs %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "error: $*"; exit 1; }

tap=
only=()
what=quick
while [ $# -gt 0 ]; do
	case "$1" in
	--tap) [ $# -ge 2 ] || die "--tap needs a file"; tap=$2; shift 2 ;;
	--loom) what=loom; shift ;;
	--all) what=all; shift ;;
	--only) shift; only=("$@"); break ;;
	-h|--help) sed -n '3,44p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (usage: host-test.sh [--loom | --all] [--tap FILE] | --only ARGS...)" ;;
	esac
done

REPO=$(cd "$(dirname "$0")/.." && pwd)
cache=${NSTREE_CACHE:-$HOME/.cache/nstree-rs}
. "$(dirname "$0")/host-cargo.sh"
log "toolchain: $("$CARGO" --version) ($CARGO), $("${RUSTC:-rustc}" --version)"

mkdir -p "$cache" || die "cannot create $cache"
export CARGO_TARGET_DIR="$cache/host-target/$(printf %s "$REPO" | sha256sum | cut -c1-12)"
export PROPTEST_CASES=${PROPTEST_CASES:-1024}
export PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
# The tests disable it already; this covers any test that forgets.
export PROPTEST_DISABLE_FAILURE_PERSISTENCE=1

if [ ${#only[@]} -gt 0 ]; then
	log "cargo test --locked ${only[*]} in rust/host (PROPTEST_CASES=$PROPTEST_CASES PROPTEST_RNG_SEED=$PROPTEST_RNG_SEED)"
	cd "$REPO/rust/host" && exec "$CARGO" test --locked "${only[@]}"
fi

out=$(mktemp "${TMPDIR:-/tmp}/nstree-host-test.XXXXXX") || die "mktemp failed"
stats=$(mktemp "${TMPDIR:-/tmp}/nstree-host-loom.XXXXXX") || die "mktemp failed"
trap 'rm -f "$out" "$stats"' EXIT

args=(--locked --no-fail-fast)
case "$what" in
quick) note="the quick loom scenarios (make loom runs all)" ;;
all) note="every loom scenario"; args+=(-- --include-ignored) ;;
loom) note="loom only, every scenario"; args+=(--lib -- --include-ignored tests::loom_cascade::) ;;
esac
log "cargo test in rust/host, $note (PROPTEST_CASES=$PROPTEST_CASES PROPTEST_RNG_SEED=$PROPTEST_RNG_SEED)"
t0=$(date +%s%N)
(cd "$REPO/rust/host" && NSTREE_LOOM_STATS="$stats" "$CARGO" test "${args[@]}") 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
t1=$(date +%s%N)

# "Running unittests src/lib.rs (...)" names the suite of the "test NAME
# ... RESULT" lines that follow; the tests are "tests::MODULE::NAME" there,
# and reported as "MODULE::NAME".
results=$(awk '
	/^ *Running unittests / { suite = "lib"; next }
	/^ *Running tests\// {
		suite = $2; sub(/^tests\//, "", suite); sub(/\.rs$/, "", suite); next
	}
	/^ *Doc-tests / { suite = "doc"; next }
	/^test .* \.\.\. / {
		line = $0
		sub(/^test /, "", line)
		i = index(line, " ... ")
		name = substr(line, 1, i - 1)
		res = substr(line, i + 5)
		sub(/ - should panic$/, "", name)
		if (res == "ok") st = "ok"
		else if (res ~ /^FAILED/) st = "fail"
		else if (res ~ /^ignored/) st = "skip"
		else next
		reason = res
		sub(/^ignored,? ?/, "", reason)
		if (suite == "lib" && sub(/^tests::/, "", name)) full = name
		else full = suite "::" name
		printf "%s\t%s\t%s\n", st, full, reason
	}' "$out")

n=0 pass=0 fail=0 skip=0 props=0
lines=()
while IFS=$'\t' read -r st name reason; do
	[ -n "$st" ] || continue
	n=$((n + 1))
	case "$st" in
	ok)
		pass=$((pass + 1))
		lines+=("ok $n $name")
		case "${name##*::}" in prop_*) props=$((props + 1)) ;; esac
		;;
	fail) fail=$((fail + 1)); lines+=("not ok $n $name") ;;
	skip) skip=$((skip + 1)); lines+=("ok $n $name # SKIP ${reason:-ignored}") ;;
	esac
done <<<"$results"

# A failed build, or a test binary that died before reporting, leaves no
# failing test line: the exit status itself is then a failure.
if [ "$rc" -ne 0 ] && ! grep -q '^fail	' <<<"$results"; then
	n=$((n + 1)) fail=$((fail + 1))
	lines+=("not ok $n cargo test ${args[*]} (exit status $rc)")
fi
if [ "$rc" -eq 0 ] && ! grep -q '	loom_cascade::' <<<"$results"; then
	n=$((n + 1)) fail=$((fail + 1))
	lines+=("not ok $n cargo test: no loom test ran")
fi
# The interleavings each loom scenario explored.
loom_notes=()
loom_total=0
while IFS=$'\t' read -r sc iters secs bound; do
	[ -n "$sc" ] || continue
	loom_total=$((loom_total + iters))
	note="loom $sc: $iters interleavings in ${secs}s"
	if [ "$bound" = - ]; then note+=" (all)"; else note+=" (preemption bound $bound)"; fi
	loom_notes+=("$note")
done <"$stats"
if [ "$n" -eq 0 ]; then
	n=1 fail=1
	lines+=("not ok 1 cargo test --locked (no test ran)")
fi

if [ -n "$tap" ]; then
	mkdir -p "$(dirname "$tap")"
	{
		echo "TAP version 13"
		echo "1..$n"
		printf '%s\n' "${lines[@]}"
		[ ${#loom_notes[@]} -eq 0 ] || printf '# %s\n' "${loom_notes[@]}"
	} >"$tap"
fi

secs() { printf '%d.%03d' $(($1 / 1000000000)) $(($1 / 1000000 % 1000)); }
log "host tests: $pass passed, $fail failed, $skip skipped of $n in $(secs $((t1 - t0)))s"
log "property cases run: $props property tests x $PROPTEST_CASES = $((props * PROPTEST_CASES))"
for note in "${loom_notes[@]}"; do log "$note"; done
log "loom interleavings explored: $loom_total in ${#loom_notes[@]} scenarios"
[ -z "$tap" ] || log "TAP: $tap"
if [ "$fail" -ne 0 ]; then
	log "to repeat: PROPTEST_RNG_SEED=$PROPTEST_RNG_SEED PROPTEST_CASES=$PROPTEST_CASES $0"
	exit 1
fi
exit 0
