//! Runs the session generator's own tests. The generator (`tests/gen/mod.rs`) is shared by
//! the integration tests and by `benches/throughput.rs`; its tests live beside its code.

mod gen;
