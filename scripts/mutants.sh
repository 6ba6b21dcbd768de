#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mutants.sh [NAME...]: build each injected bug (mutants/NAME.patch, default
# all of them) into a throwaway copy of its kernel, run the test that must
# catch it RUNS times, and print per mutant: caught k of N, the median
# wall time of a run, the median time nstorture took to its first failure,
# and the check that fired, with where (make mutants).
# mutants.sh --report [NAME...]: the same table from the console logs the
# last runs kept, without building or booting anything.
#
# A mutant is a patch against a kernel tree of the project (the Rust tree
# with the series, or the pristine C tree), with a header of "# Key: value"
# lines that GNU patch skips:
#   # Mutant:  what the bug is
#   # Variant: rust | c            (the tree it applies to)
#   # Flavour: debug | base        (the configuration it is built in)
#   # Test:    a run-tests.sh filter (e.g. nstree-rs/ns_difftest), or
#   # Shard:   the guest of its own a test runs in (faultinject, torture)
#   # Runs:    how many runs (default 3; MUTANT_RUNS overrides)
#   # Own:     other tests written for the same code (an ERE of binaries
#   #          and test ids): left out of the success-path set with the
#   #          Test, not run RUNS times, and their results in a run's
#   #          kernel log do not count (e.g. the differential tester's
#   #          large seeds, or the crate's KUnit test of the same
#   #          boundary of the walk that listns_scale_test targets)
#   # Series:  another kernel series, built as Debian ships it (the C
#   #          variant, no diff: e.g. the pristine 7.2.13 C kernel, whose
#   #          layout the torture must catch), from Package (its
#   #          linux-source version), like make torture LINUX_SERIES=...
#   # Checks:  nstorture checks (numbers) that count as catching it; a
#   #          run in which only others fail is not caught (the 7.2
#   #          kernel's resume ENOENT fails checks 6 and 10 at once: its
#   #          union race is checks 1, 3, 4 and 9)
#   # Append:  more kernel parameters for its runs (e.g.
#   #          nstree.torture_storm=2: nstorture's storm, storm.c;
#   #          MUTANT_APPEND overrides)
# A torture run ends at the first failure of one of the mutant's Checks
# (all checks if it names none: nstorture -x, nstree.torture_stop_on=):
# whether a run catches the mutant within the minute, and when, is
# decided then, so a caught run costs its boot and the time to the catch.
# MUTANT_STOP=0 runs every minute to its end.
# The copy of the tree is hard-linked (the patched files get files of
# their own), and its build directory is seeded from the unmutated
# kernel's (seed_copy, seed_fixup: env.sh), so a mutant costs one
# incremental build.  Everything lands in $NSTREE_CACHE/mutants.
#
# A run catches the mutant when the test reports a failure ("not ok") or
# the guest's kernel log does (report.py's verdict on the console log).
# The unmutated kernel must pass the same test: it runs first, once, as
# the first line of the table (MUTANT_CONTROL=0 leaves it out).
#
# Silent elsewhere: a mutant shows the power of its own test only if the
# other tests do not catch it too.  Each mutant kernel therefore also
# boots once through the success-path set, the upstream namespaces
# selftests and ours (SILENT_SET), minus its own test, and must pass it
# (MUTANT_SILENT=0 leaves this out).  A mutant that any boot catches (a
# bug every test would see: its test is the boot-time KUnit suite, say)
# says so and why in a header line "# Loud: reason"; for every other
# mutant a failure of the set fails make mutants.  A loud mutant's runs
# count only its test's own failures ("not ok"), not the kernel log's.
set -uo pipefail
. "$(dirname "$0")/env.sh"
REPO=$(cd "$(dirname "$0")/.." && pwd)
S="$REPO/scripts"
Q="$REPO/qemu"
MROOT="$NSTREE_CACHE/mutants"
MOUT="$MROOT/out"
mkdir -p "$MOUT"

names=("$@")
# The success-path set of the silent-elsewhere check.
SILENT_SET='^(namespaces|nstree-rs)/'
if [ ${#names[@]} = 0 ]; then
	for p in "$REPO"/mutants/*.patch; do names+=("$(basename "$p" .patch)"); done
fi

hdr() { sed -n "s/^# $2: *//p" "$1" | head -1; }


# build_mutant NAME PATCH VARIANT FLAVOUR: $MOUT/bzImage-m-NAME-FLAVOUR.
build_mutant() {
	local name=$1 patch=$2 variant=$3 flavour=$4
	local tree build mtree mbuild changed f frags img key series
	series=$(hdr "$patch" Series)
	if [ -n "$series" ] && [ "$series" != "$NSTREE_BASE_SERIES" ]; then
		[ "$variant" = c ] || die "mutant $name: another series is the C variant only"
		img=c
		[ "$flavour" = base ] || img="c-$flavour"
		log "mutant $name: Linux $series as Debian ships it"
		(export LINUX_SERIES=$series LINUX_PKG_VERSION=$(hdr "$patch" Package)
		 "$S/fetch-tree.sh" && "$S/build-kernel.sh" c "$flavour") >"$LOGS/build-m-$name.log" 2>&1 ||
			{ tail -20 "$LOGS/build-m-$name.log" >&2; return 1; }
		cp "$OUT/bzImage-$img-$series" "$MOUT/bzImage-m-$name-$flavour"
		return 0
	fi
	tree=$(variant_tree "$variant")
	build=$(variant_build "$variant" "$flavour")
	# The unmutated kernel, up to date with the tree (incremental): its
	# objects seed the mutant's build, which rebuilds only what is newer.
	"$S/build-kernel.sh" "$variant" "$flavour" >"$LOGS/mutant-base-$variant-$flavour.log" 2>&1 ||
		die "the unmutated $variant $flavour kernel does not build"
	# A mutant with the same diff on the same unmutated kernel as one
	# built before (the same bug under another test, e.g. nstorture's
	# storm: # Append) reuses that image.
	img=$variant
	[ "$flavour" = base ] || img="$variant-$flavour"
	key=$({ grep -v '^# ' "$patch"; echo "$variant $flavour"; sha256sum <"$OUT/bzImage-$img"; } |
		sha256sum | cut -c1-16)
	if [ -f "$MROOT/images/$key" ]; then
		log "mutant $name: the image of the same diff on the same kernel ($key)"
		cp "$MROOT/images/$key" "$MOUT/bzImage-m-$name-$flavour"
		return 0
	fi
	mtree="$MROOT/$name/tree"
	mbuild="$mtree/$(basename "$build")"
	log "mutant $name: a copy of $tree"
	rm -rf "$MROOT/$name"
	mkdir -p "$mtree"
	# Everything but the build directories and git's.
	find "$tree" -mindepth 1 -maxdepth 1 ! -name '.build-*' ! -name .git \
		-exec cp -al -t "$mtree/" {} + || die "cp -al $tree"
	changed="$MROOT/$name/changed"
	grep '^+++ ' "$patch" | sed -e 's|^+++ [ab]/||' -e 's|[[:space:]].*||' >"$changed"
	# Files of their own for the patched files (not the tree's links).
	while IFS= read -r f; do
		cp "$mtree/$f" "$mtree/$f.unlink" && mv "$mtree/$f.unlink" "$mtree/$f"
	done <"$changed"
	patch -s -d "$mtree" -p1 <"$patch" || die "mutant $name does not apply"
	seed_copy "$build" "$mbuild"
	frags=("$REPO/configs/base.config" "$REPO/configs/$variant.config")
	[ "$flavour" = base ] || frags+=("$REPO/configs/$flavour.config")
	configure_frags "m-$name" "$mtree" "$mbuild" "${frags[@]}"
	seed_fixup "$mtree" "$mbuild" "$changed"
	log "mutant $name: building ($JOBS jobs)"
	kmake "$mtree" "$mbuild" -j"$JOBS" bzImage >"$LOGS/build-m-$name.log" 2>&1 ||
		{ grep -E 'error|Error' "$LOGS/build-m-$name.log" | head -20 >&2; return 1; }
	cp "$mbuild/arch/x86/boot/bzImage" "$MOUT/bzImage-m-$name-$flavour"
	mkdir -p "$MROOT/images"
	cp "$mbuild/arch/x86/boot/bzImage" "$MROOT/images/$key"
	# The copy is not needed once the image exists.
	rm -rf "$mtree"
}

# nstorture_when LOG CHECKS: when nstorture first failed one of CHECKS
# (its "# NSTORTURE-FAIL t=SECSs check=N ..." lines).
nstorture_when() {
	sed -e 's/\r$//' "$1" | awk -v want=" $2 " '
		/^# NSTORTURE-FAIL t=[0-9.]+s check=[0-9]+ / {
			t = $3; sub(/^t=/, "", t); sub(/s$/, "", t)
			c = $4; sub(/^check=/, "", c)
			if (index(want, " " c " ")) { print t " s"; exit }
		}'
}

# judge LOG NAME: CAUGHT (0/1), FIRST (the first "not ok" line, or
# the kernel log) and WHEN (how far the test was when it first fired:
# nstorture's time of its first failure, the sweep's operation and n).
judge() {
	local log=$1 name=$2 re='[0-9]+'
	# Only the mutant's own checks, if it names them (MCHECKS).
	[ -z "${MCHECKS:-}" ] || re="($(tr ' ' '|' <<<"$MCHECKS"))"
	FIRST=$(sed -e 's/\r$//' "$log" | grep -m1 -E "^not ok $re( |\$)" || true)
	if [ -n "${MCHECKS:-}" ]; then
		# One of them failed: in the final results, or as it happened
		# (NSTORTURE-FAIL: a guest that panicked prints no results);
		# a kernel report in the log counts as check 13 if it is one.
		WHEN=$(nstorture_when "$log" "$MCHECKS")
		CAUGHT=0
		[ -z "$FIRST$WHEN" ] || CAUGHT=1
		if [ -z "$FIRST" ] && [ -n "$WHEN" ]; then
			FIRST=$(sed -e 's/\r$//' "$log" | grep -m1 -E "^# NSTORTURE-FAIL t=[0-9.]+s check=$re " |
				sed -e 's/^# NSTORTURE-FAIL t=[0-9.]*s check=\([0-9]*\) \(([^)]*)\).*/not ok \1 \2 (the guest did not finish)/')
		fi
		if [ $CAUGHT = 0 ] && grep -qw 13 <<<"$MCHECKS" &&
			sed -e 's/\r$//' "$log" | grep -qE 'WARNING:|BUG:|Oops|Kernel panic'; then
			CAUGHT=1
			FIRST="the kernel log (check 13)"
		fi
		: "${FIRST:=-}"
		return
	fi
	WHEN=$(sed -e 's/\r$//' "$log" | sed -n -e 's/^# NSTORTURE-FAIL t=\([0-9.]*\)s.*/\1 s/p' \
		-e 's/^# \([^ ]*\) \(n=[0-9]*\): .*/\1 \2/p' | head -1)
	CAUGHT=1
	# A loud mutant is in every boot's kernel log (MLOUD=1): only its
	# test's own failure counts.
	if [ "${MLOUD:-0}" = 1 ]; then
		[ -n "$FIRST" ] || CAUGHT=0
		: "${FIRST:=-}"
		return
	fi
	# report.py expects the Rust tree from a name that starts with "rust".
	if [ -z "$FIRST" ] && python3 "$S/report.py" ${MIGNORE:+--ignore "$MIGNORE"} "$name=$log" >/dev/null 2>&1; then
		CAUGHT=0
	fi
	: "${FIRST:=the kernel log (report.py)}"
}

# row LABEL K RUNS TIMES WHENS FIRED [SILENT]: one line of the table (the
# medians of the runs' wall times and of nstorture's first-failure
# times; SILENT: whether the success-path set passed on the mutant).
rows=()
silent_bad=()
errors=0
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "-") }'; }
row() {
	local med tmed
	med=$(tr ' ' '\n' <<<"$4" | grep . | median)
	tmed=$(tr ';' '\n' <<<"$5" | grep -E '^[0-9.]+ s$' | sed 's/ s$//' | median)
	[ "$tmed" = - ] || tmed="${tmed} s"
	[ "$med" = - ] || med="${med}s"
	rows+=("$(printf '%-32s %3s of %-3s %7s  %-9s %-7s %s' "$1" "$2" "$3" "$med" "$tmed" "${7:--}" "${6:--}")")
}
header() {
	printf '%-32s %-10s %7s  %-9s %-7s %s\n' mutant caught median detected silent "first check that fired"
}

# silent_verdict NAME LOG: SILENT (yes, no or ERROR) and ELSEWHERE (what
# caught the mutant in the success-path set) from the set's console log.
silent_verdict() {
	local name=$1 log=$2
	if ! grep -q '^NSTREE-TEST-BEGIN' "$log" 2>/dev/null; then
		SILENT=ERROR ELSEWHERE="the set never started"
		return
	fi
	local variant
	if [ -f "$REPO/mutants/$name.patch" ]; then
		variant=$(hdr "$REPO/mutants/$name.patch" Variant)
	else
		variant=$(cut -d: -f2 <<<"$name") # control:IMAGE:...
		variant=${variant%%-*}
	fi
	MCHECKS= MLOUD= MIGNORE=$(hdr "$REPO/mutants/$name.patch" Own 2>/dev/null) judge "$log" "$variant-mutant"
	if [ "$CAUGHT" = 0 ]; then
		SILENT=yes ELSEWHERE=
	else
		SILENT=no ELSEWHERE="$FIRST"
	fi
}

# silent_run LABEL IMAGE EXCLUDE: boot IMAGE once through the success-path
# set minus EXCLUDE (an ERE), keep its console log as
# $MROOT/console-LABEL-silent.log, and set SILENT and ELSEWHERE.
silent_run() {
	local label=$1 image=$2 exclude=$3 log file=${1//[\/ ]/_}
	log="$MOUT/console-$image-test.log"
	rm -f "$log" "$MROOT/console-$file-silent.log"
	NSTREE_OUT=$MOUT NSTREE_EXCLUDE=$exclude NSTREE_QEMU_TIMEOUT=3000 \
		"$Q/run.sh" "$image" test "$SILENT_SET" >"$LOGS/mutant-$file-silent.log" 2>&1
	[ ! -f "$log" ] || cp "$log" "$MROOT/console-$file-silent.log"
	silent_verdict "$label" "$MROOT/console-$file-silent.log"
	log "  $label success-path set: silent elsewhere: $SILENT${ELSEWHERE:+ ($ELSEWHERE)}"
}

# own_exclude PATCH: the ERE of the binaries the success-path set leaves
# out for a mutant: its own test and the Own ones, and the fault-injection
# sweep (a guest of its own, and a test of error paths).
own_exclude() {
	local t o
	t=$(hdr "$1" Test)
	o=$(hdr "$1" Own)
	echo "^nstree-rs/faultinject\$${t:+|$t}${o:+|$o}"
}

# run_mutant LABEL IMAGE_NAME FILTER SHARD RUNS [APPEND]: boot it RUNS
# times (nstorture with seed = the run's number, plus MUTANT_SEED0 if set,
# for seeds other runs have not used; APPEND: more kernel
# parameters), keep each console log in $MROOT/console-LABEL-RUN.log,
# and add its row (with SILENT, the verdict of the success-path set, if
# the caller has one).
run_mutant() {
	local label=$1 image=$2 filter=$3 shard=$4 runs=$5 append=${6:-} k=0 i t0 secs fired="" log times="" whens=""
	local checks=${MCHECKS:-all}
	# The label names files too: a test filter's "/" and a parameter's
	# spaces become "_" there (control:rust:clone3/clone3).
	local file=${label//[\/ ]/_}
	[ "$shard" != torture ] || [ "${MUTANT_STOP:-1}" = 0 ] ||
		append="nstree.torture_stop_on=${checks// /,}${append:+ $append}"
	rm -f "$MROOT/console-$file"-[0-9]*.log
	for i in $(seq 1 "$runs"); do
		log="$MOUT/console-$image-test${shard:+.shard-$shard}.log"
		rm -f "$log"
		t0=$(date +%s)
		# oops=panic: a kernel that oopses reboots (and QEMU stops)
		# instead of hanging until the timeout; the torture's runs get
		# 600 s (60 s of torture, up to 120 s to stop), the sweep 3000.
		NSTREE_OUT=$MOUT NSTREE_SHARD=$shard \
			NSTREE_QEMU_TIMEOUT=$([ "$shard" = torture ] && echo 600 || echo 3000) \
			NSTREE_APPEND="nstree.torture_seed=$((${MUTANT_SEED0:-0} + i)) oops=panic${append:+ $append}" \
			"$Q/run.sh" "$image" test "$filter" >"$LOGS/mutant-$file-$i.log" 2>&1
		secs=$(($(date +%s) - t0))
		times+=" $secs"
		# A guest that did not get to run the test caught nothing: the
		# run is an error, shown as such.
		if ! grep -q '^NSTREE-TEST-BEGIN' "$log" 2>/dev/null; then
			log "  $label run $i: ERROR, the test never started (see $LOGS/mutant-$file-$i.log)"
			errors=$((errors + 1))
			continue
		fi
		cp "$log" "$MROOT/console-$file-$i.log"
		judge "$log" "$RNAME"
		if [ "$CAUGHT" = 0 ]; then
			log "  $label run $i: not caught (${secs}s)"
		else
			k=$((k + 1))
			whens+="$WHEN;"
			[ -n "$fired" ] || fired="$FIRST${WHEN:+ (at $WHEN)}"
			log "  $label run $i: caught (${secs}s): $FIRST${WHEN:+ (at $WHEN)}"
		fi
	done
	row "$label" "$k" "$runs" "$times" "$whens" "$fired" "${SILENT:--}"
}

# --report: the table again from the console logs the last runs kept.
if [ "${names[0]:-}" = --report ]; then
	names=("${names[@]:1}")
	if [ ${#names[@]} = 0 ]; then
		for p in "$REPO"/mutants/*.patch; do names+=("$(basename "$p" .patch)"); done
	fi
	for name in "${names[@]}"; do
		k=0 n=0 whens="" fired=""
		for log in "$MROOT/console-$name"-[0-9]*.log; do
			[ -e "$log" ] || continue
			n=$((n + 1))
			MLOUD=$([ -z "$(hdr "$REPO/mutants/$name.patch" Loud)" ] || echo 1) \
				MCHECKS=$(hdr "$REPO/mutants/$name.patch" Checks) \
				MIGNORE=$(hdr "$REPO/mutants/$name.patch" Own) \
				judge "$log" "$(hdr "$REPO/mutants/$name.patch" Variant)-mutant"
			[ "$CAUGHT" = 0 ] && continue
			k=$((k + 1))
			whens+="$WHEN;"
			[ -n "$fired" ] || fired="$FIRST${WHEN:+ (at $WHEN)}"
		done
		SILENT=-
		[ ! -f "$MROOT/console-$name-silent.log" ] ||
			silent_verdict "$name" "$MROOT/console-$name-silent.log"
		[ "$SILENT" != no ] || [ -z "$(hdr "$REPO/mutants/$name.patch" Loud)" ] || SILENT="no (loud)"
		[ "$n" = 0 ] || row "$name" "$k" "$n" "" "$whens" "$fired" "$SILENT"
	done
	header
	printf '%s\n' "${rows[@]}"
	exit 0
fi

# The guest user space, as make test builds it.
"$S/build-selftests.sh" && "$Q/mkinitramfs.sh" || die "could not build the guest user space"
ln -sf "$OUT/initramfs.cpio.gz" "$MOUT/initramfs.cpio.gz"
[ ! -f "$OUT/accel.env" ] || cp "$OUT/accel.env" "$MOUT/accel.env"

# The controls: the unmutated kernel once per kernel and test the mutants
# use (built up to date first, like a mutant's base).
if [ "${MUTANT_CONTROL:-1}" = 1 ]; then
	declare -A controlled=()
	for name in "${names[@]}"; do
		p="$REPO/mutants/$name.patch"
		v=$(hdr "$p" Variant) fl=$(hdr "$p" Flavour) t=$(hdr "$p" Test) sh=$(hdr "$p" Shard)
		ap=${MUTANT_APPEND-$(hdr "$p" Append)}
		img=$v
		[ "$fl" = base ] || img="$v-$fl"
		[ -z "${controlled[$img/$t/$sh/$ap]:-}" ] || continue
		controlled[$img/$t/$sh/$ap]=1
		"$S/build-kernel.sh" "$v" "$fl" >"$LOGS/mutant-base-$v-$fl.log" 2>&1 ||
			die "the unmutated $v $fl kernel does not build"
		cp "$OUT/bzImage-$img" "$MOUT/"
		SILENT=- RNAME=$img run_mutant "control:$img${sh:+:$sh}${t:+:$t}${ap:+:$ap}" "$img" "$t" "$sh" 1 "$ap"
		# The success-path set passes on the unmutated kernel (once per
		# kernel): a row whose "caught" is the set's failure.
		[ "${MUTANT_SILENT:-1}" = 1 ] && [ -z "${controlled[$img/silent]:-}" ] || continue
		controlled[$img/silent]=1
		silent_run "control:$img:silent" "$img" '^nstree-rs/faultinject$'
		k=0
		[ "$SILENT" = yes ] || k=1
		[ "$SILENT" != ERROR ] || errors=$((errors + 1))
		row "control:$img:success-path-set" "$k" 1 "" "" "${ELSEWHERE:--}" "$SILENT"
	done
fi
for name in "${names[@]}"; do
	p="$REPO/mutants/$name.patch"
	[ -f "$p" ] || die "no mutant $p"
	variant=$(hdr "$p" Variant) flavour=$(hdr "$p" Flavour) filter=$(hdr "$p" Test)
	runs=${MUTANT_RUNS:-$(hdr "$p" Runs)}
	runs=${runs:-3}
	log "mutant $name: $(hdr "$p" Mutant)"
	if ! build_mutant "$name" "$p" "$variant" "$flavour"; then
		rows+=("$(printf '%-32s %s' "$name" "BUILD FAILED (see $LOGS/build-m-$name.log)")")
		continue
	fi
	SILENT=- ELSEWHERE=
	if [ "${MUTANT_SILENT:-1}" = 1 ]; then
		silent_run "$name" "m-$name-$flavour" "$(own_exclude "$p")"
		[ "$SILENT" != ERROR ] || errors=$((errors + 1))
		if [ "$SILENT" = no ]; then
			if [ -n "$(hdr "$p" Loud)" ]; then
				SILENT="no (loud)"
			else
				silent_bad+=("$name: caught by the success-path set: $ELSEWHERE")
			fi
		fi
	fi
	MLOUD=$([ -z "$(hdr "$p" Loud)" ] || echo 1) \
		MCHECKS=$(hdr "$p" Checks) MIGNORE=$(hdr "$p" Own) RNAME=$variant-mutant run_mutant "$name" "m-$name-$flavour" "$filter" "$(hdr "$p" Shard)" "$runs" \
		"${MUTANT_APPEND-$(hdr "$p" Append)}"
done

echo
echo "=== mutants ($(git -C "$REPO" rev-parse --short HEAD)) ==="
header
printf '%s\n' "${rows[@]}"
# Every mutant caught in every run, the control never, no run in error,
# and every mutant not marked loud silent outside its own test.
bad=0
for m in "${silent_bad[@]}"; do echo "not silent elsewhere: $m"; bad=1; done
[ "$errors" = 0 ] || { echo "$errors runs in error (the test never started)"; bad=1; }
for r in "${rows[@]}"; do
	case "$r" in
	control:*) echo "$r" | grep -qE ' 0 of ' || bad=1 ;;
	*) echo "$r" | awk '{ exit !($2 == $4) }' || bad=1 ;;
	esac
done
exit $bad
