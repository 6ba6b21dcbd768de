// SPDX-License-Identifier: GPL-2.0-only

//! What the property tests share.

use std::cell::Cell;
use std::sync::Once;

use proptest::test_runner::Config;

/// The proptest configuration: the defaults, which honour
/// `PROPTEST_CASES` and `PROPTEST_RNG_SEED` (scripts/host-test.sh sets
/// both and prints the seed), without failure persistence, so that a
/// failing run writes no regression file into the source tree; the
/// failure message carries the minimal input instead.
///
/// Also installs [`quiet_panics`], so that a failing property prints one
/// panic, not one per shrink step.
pub fn config() -> Config {
    quiet_panics();
    Config {
        failure_persistence: None,
        ..Config::default()
    }
}

/// A panic hook that prints the first panic of each test (each test runs
/// on a thread of its own) as usual, with its backtrace if
/// `RUST_BACKTRACE` asks for one, and only counts the others.
///
/// When a property fails by a panic (the model's own checks panic, e.g.
/// when the cascade changes an initial namespace's count), proptest
/// catches it and shrinks the failing case: it runs thousands of smaller
/// cases, most of which panic too. The default hook prints every one of
/// them, and the test's captured output, printed when it fails, grows to
/// thousands of lines (hundreds of thousands with `RUST_BACKTRACE=1`).
/// proptest's own report at the end names the panic message and the
/// smallest failing case, which is what to read.
pub fn quiet_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            thread_local! {
                static SEEN: Cell<usize> = const { Cell::new(0) };
            }
            let n = SEEN.with(|s| {
                let n = s.get();
                s.set(n + 1);
                n
            });
            if n == 0 {
                default(info);
                eprintln!(
                    "(tests/common/mod.rs: further panics of this test, e.g. while proptest \
                     shrinks the failing case, are not printed; its report names the \
                     smallest case)"
                );
            }
        }));
    });
}
