//! What the environment asks of the integration tests: whether a missing prerequisite
//! (a browser, a tool, a corpus beside the checkout) fails the test or skips it, and
//! whether goldens are rewritten.
//!
//! A missing prerequisite fails the test when `CI` is truthy (CI services set `CI=true`),
//! or when the test's own `ARCTURN_REQUIRE_*` variable is; elsewhere the test skips with
//! a `SKIPPED: ...` line on stderr, so a silent pass is never mistaken for a real one.
//! Goldens are rewritten only when `ARCTURN_BLESS` is truthy.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;

/// Truthy values: `1`, `true`, `yes`, `on` (any case). Unset, empty, `0`, `false`, `no`,
/// `off` and anything else are false, so `ARCTURN_BLESS=0` never rewrites a golden.
pub fn truthy(value: Option<&OsStr>) -> bool {
    value
        .and_then(OsStr::to_str)
        .is_some_and(|v| ["1", "true", "yes", "on"].iter().any(|t| v.trim().eq_ignore_ascii_case(t)))
}

fn var_truthy(name: &str) -> bool {
    truthy(std::env::var_os(name).as_deref())
}

/// Whether goldens are rewritten instead of compared.
pub fn bless() -> bool {
    var_truthy("ARCTURN_BLESS")
}

/// Whether a missing prerequisite is a failure: under CI, or when `require_var` is truthy.
pub fn strict(require_var: &str) -> bool {
    var_truthy("CI") || var_truthy(require_var)
}

/// Report that `what` is missing: panic when [`strict`], otherwise print `SKIPPED: ...` to
/// stderr and let the caller return early.
pub fn missing(what: &str, fix: &str, require_var: &str) {
    if strict(require_var) {
        panic!("missing prerequisite: {what} ({fix}); CI or {require_var} makes this an error");
    }
    // Written to the stderr handle, not with `eprintln!`, which the test harness captures
    // and hides for a passing test.
    let _ =
        writeln!(std::io::stderr(), "SKIPPED: {what} ({fix}); set CI=true or {require_var}=1 to make this an error");
}
