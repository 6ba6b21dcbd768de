# SPDX-License-Identifier: GPL-2.0
# nstree-rs: the one entry point.  `make help` lists the targets.
#
# Everything large (kernel tree, build directories, images, logs) lives in
# NSTREE_CACHE, default ~/.cache/nstree-rs.  Override on the command line:
#   make test NSTREE_CACHE=/srv/nstree-cache

NSTREE_CACHE ?= $(HOME)/.cache/nstree-rs
export NSTREE_CACHE
VARIANT ?= rust
FLAVOUR ?= base
# Configurations `make test` runs: base, and debug (lockdep, KASAN, ...).
FLAVOURS ?= base debug
SHELL := /bin/bash

S := scripts
Q := qemu

.PHONY: help setup tree rust-tree patches kernel kernels selftests initramfs \
	test test-base test-debug test-kcsan demo bench check check-series check-toolchains host-test loom walk-mutants cascade-mutants shard-merge-check rustdoc clean distclean \
	torture shell kunit mutants mutants-report results

help:
	@echo 'nstree-rs targets:'
	@echo '  setup        install the toolchain and packages (idempotent)'
	@echo '  tree         fetch Debian linux-source-7.3 into $$NSTREE_CACHE'
	@echo '  rust-tree    copy the tree and apply patches/ with git am'
	@echo '  patches      regenerate patches/ from rust/ and c-glue/'
	@echo '  kernel       build VARIANT=c|rust (FLAVOUR=base|debug|kcsan)'
	@echo '  test         both kernels, base and debug configs, all tests, C/Rust table'
	@echo '  test-base    the same, base configuration only (FLAVOURS=base)'
	@echo '  test-debug   the same, debug configuration only'
	@echo '  test-kcsan   the same, KCSAN configuration only (configs/kcsan.config; not in make test)'
	@echo '  demo         boot the Rust kernel and show listns in action'
	@echo '  bench        C, C-opt, Rust and Rust-noinline benchmark: ratios, docs/bench/'
	@echo '  torture      nstorture alone: DURATION=secs VARIANT=c|rust FLAVOUR=base|debug|kcsan STORM=N PATHS=0|1 STOP_ON=checks RUNS=N'
	@echo '               [LINUX_SERIES=7.2 (C only)] [SEED=n]'
	@echo '  mutants      build each injected bug of mutants/ (NAME=...) and run the test that'
	@echo '               must catch it: caught k of N per mutant (MUTANT_RUNS=N)'
	@echo '  mutants-report  the mutants'"'"' table again, from the console logs the last runs kept'
	@echo '  results      docs/results.md from the last make test run (and the mutants'"'"' table)'
	@echo '  host-test    cargo tests of the crate logic, quick loom scenarios (no kernel, no setup)'
	@echo '  loom         every loom scenario of the cascade, the long ones too (no kernel)'
	@echo '  walk-mutants the listns() walk test on ten buggy walks, each must fail (no kernel)'
	@echo '  cascade-mutants the cascade host tests on seven buggy cascades, each must fail (no kernel)'
	@echo '  shard-merge-check  after make test: FLAVOUR=base|debug once unsharded; its report must equal the shards'"'"' merged one'
	@echo '  shell        boot VARIANT=rust|c (FLAVOUR=base|debug) to an interactive shell'
	@echo '  kunit        the crate'"'"'s KUnit suites with tools/testing/kunit/kunit.py (x86_64, QEMU)'
	@echo '  rustdoc      HTML documentation of the crate (host build, no kernel needed)'
	@echo '  check        rustfmt, clippy, checkpatch, unsafe rules'
	@echo '  check-series build every prefix of the series, C and Rust choice'
	@echo '  check-toolchains  the Rust kernel built with the oldest (rustc 1.85.1, clang 19) and'
	@echo '               newest (rustc 1.98.1) Debian toolchains in trixie chroots, 0 warnings,'
	@echo '               the oldest one booted with the namespaces selftests [PATCHES=dir]'
	@echo '  clean        remove build outputs (keeps the downloaded tree)'

setup:
	@$(S)/setup.sh

tree: setup
	@$(S)/fetch-tree.sh

rust-tree: tree
	@$(S)/rust-tree.sh

patches: tree
	@$(S)/gen-patches.sh

kernel: $(if $(filter rust,$(VARIANT)),rust-tree,tree)
	@$(S)/build-kernel.sh $(VARIANT) $(FLAVOUR)

selftests: rust-tree
	@$(S)/build-selftests.sh

initramfs: selftests
	@$(Q)/mkinitramfs.sh

test: rust-tree
	@$(S)/test.sh $(FLAVOURS)

test-base:
	@$(MAKE) --no-print-directory test FLAVOURS=base

test-debug:
	@$(MAKE) --no-print-directory test FLAVOURS=debug

test-kcsan:
	@$(MAKE) --no-print-directory test FLAVOURS=kcsan

demo: rust-tree
	@$(S)/demo.sh

bench: rust-tree
	@$(S)/bench.sh

torture: $(if $(filter rust,$(VARIANT)),rust-tree,tree)
	@$(S)/torture.sh

mutants: rust-tree
	@$(S)/mutants.sh $(NAME)

mutants-report:
	@$(S)/mutants.sh --report $(NAME)

results:
	@$(S)/results.sh

# Installs its own cargo if there is none: no `setup` needed.
# ONLY="--no-fail-fast --test cascade" runs just that (cargo test arguments).
host-test:
	@$(S)/host-test.sh $(if $(ONLY),--only $(ONLY))

loom:
	@$(S)/host-test.sh --loom

walk-mutants:
	@$(S)/walk-mutants.sh

cascade-mutants:
	@$(S)/cascade-mutants.sh

shard-merge-check:
	@$(S)/shard-merge-check.sh $(or $(FLAVOUR),base)

# An interactive shell in a kernel of this tree (Ctrl-A X quits QEMU).
shell:
	@$(S)/shell.sh $(VARIANT) $(FLAVOUR)

kunit: rust-tree
	@$(S)/kunit.sh $(ARGS)

rustdoc:
	@$(S)/rustdoc.sh

check: tree
	@$(S)/check.sh

check-series: tree
	@$(S)/check-series.sh

# The boot uses make test's initramfs (make initramfs).
check-toolchains: tree
	@$(S)/check-toolchains.sh

clean:
	rm -rf $(NSTREE_CACHE)/out $(NSTREE_CACHE)/logs
	rm -rf $(NSTREE_CACHE)/src/linux-source-*/.build-* $(NSTREE_CACHE)/trees

distclean:
	rm -rf $(NSTREE_CACHE)
