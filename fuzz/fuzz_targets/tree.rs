//! Fuzz target `tree`: see `arcturn_inspect_fuzz::tree_holds` for the property checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcturn_inspect_fuzz::tree_holds(data));
