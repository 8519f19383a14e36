//! The test environment's switches (tests/prereq/mod.rs): which values of `ARCTURN_BLESS`
//! rewrite goldens, and when a missing prerequisite fails a test instead of skipping it.

#[path = "prereq/mod.rs"]
mod env;

use std::ffi::OsStr;

#[test]
fn only_documented_truthy_values_count_as_set() {
    for yes in ["1", "true", "TRUE", "yes", "on", " 1 "] {
        assert!(env::truthy(Some(OsStr::new(yes))), "{yes:?} is truthy");
    }
    for no in ["", "0", "false", "no", "off", "2", "bless", "00"] {
        assert!(!env::truthy(Some(OsStr::new(no))), "{no:?} is not truthy");
    }
    assert!(!env::truthy(None), "unset is not truthy");
}

/// One test reads and writes the process environment, so no other test races with it.
#[test]
fn bless_zero_or_empty_never_rewrites_and_ci_makes_a_missing_prerequisite_fail() {
    let saved: Vec<_> = ["ARCTURN_BLESS", "CI", "ARCTURN_REQUIRE_TEST"].map(|k| (k, std::env::var_os(k))).into();

    for (value, expected) in [("0", false), ("", false), ("false", false), ("1", true), ("true", true)] {
        std::env::set_var("ARCTURN_BLESS", value);
        assert_eq!(env::bless(), expected, "ARCTURN_BLESS={value:?}");
    }
    std::env::remove_var("ARCTURN_BLESS");
    assert!(!env::bless(), "unset ARCTURN_BLESS");

    let fails = || {
        std::panic::catch_unwind(|| {
            env::missing("the probe of tests/environment.rs", "nothing to install", "ARCTURN_REQUIRE_TEST")
        })
        .is_err()
    };
    std::env::remove_var("ARCTURN_REQUIRE_TEST");
    std::env::set_var("CI", "true");
    assert!(fails(), "CI=true: a missing prerequisite fails");
    std::env::set_var("CI", "false");
    assert!(!fails(), "CI=false: it skips");
    std::env::remove_var("CI");
    assert!(!fails(), "outside CI: it skips");
    std::env::set_var("ARCTURN_REQUIRE_TEST", "1");
    assert!(fails(), "the test's own require variable: it fails");
    std::env::set_var("ARCTURN_REQUIRE_TEST", "0");
    assert!(!fails(), "a require variable of 0 does not");

    for (k, v) in saved {
        match v {
            Some(v) => std::env::set_var(k, v),
            None => std::env::remove_var(k),
        }
    }
}
