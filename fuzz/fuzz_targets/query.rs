//! Fuzz target `query`: see `arcturn_inspect_fuzz::query_runs` for the property checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcturn_inspect_fuzz::query_runs(data));
