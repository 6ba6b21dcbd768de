// SPDX-License-Identifier: GPL-2.0-only
// Copyright (c) 2026 nstree-rs developers

//! What the property tests share.

use proptest::test_runner::Config;

/// The proptest configuration: the defaults, which honour
/// `PROPTEST_CASES` and `PROPTEST_RNG_SEED` (scripts/host-test.sh sets
/// both and prints the seed), without failure persistence, so that a
/// failing run writes no regression file into the source tree; the
/// failure message carries the minimal input instead.
pub fn config() -> Config {
    Config {
        failure_persistence: None,
        ..Config::default()
    }
}
