//! Fuzz target `skim`: see `arcturn_inspect_fuzz::skim_agrees` for the property checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcturn_inspect_fuzz::skim_agrees(data));
