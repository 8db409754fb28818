//! Nothing to build: the comparison is the bench `benches/extism.rs`.
