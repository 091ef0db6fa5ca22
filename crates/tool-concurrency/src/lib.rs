//! # tool-concurrency
//!
//! Planned (issue: tool-concurrency): `ConcurrencyClaim`, conflict rules,
//! path normalisation, `partition_parallel_groups` and the conflict/dependency
//! scheduler. No async runtime.
