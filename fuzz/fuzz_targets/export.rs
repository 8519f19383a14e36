//! Fuzz target `export`: see `arcturn_inspect_fuzz::export_is_inert` for the property checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| arcturn_inspect_fuzz::export_is_inert(data));
