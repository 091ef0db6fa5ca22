//! # tool-concurrency
//!
//! Decide which tool calls of one model turn may run together, from what
//! each call actually touches, and prove it safe. No async runtime: any
//! executor drives the [`ReadyQueue`].
//!
//! - [`ConcurrencyClaim`]: `Shared`, `SharedPaths` (reads), or `Exclusive`
//!   over `Global`, paths, nodes or sessions, with exact conflict rules.
//! - [`ClaimPath`]: lexical, total path normalisation; bad paths degrade a
//!   claim to `Global`, never toward `Shared`.
//! - [`Footprint`] / [`claim_for`]: the claim of one call from the tool's
//!   facts and its declared footprint.
//! - [`partition_parallel_groups`]: the contiguous seed rule.
//! - [`Dag`] / [`ReadyQueue`] / [`Scheduler`]: each call waits only for the
//!   earlier calls it conflicts with and its declared dependencies.
//! - [`BatchSpec`] → [`Plan`]: serde in, plan out.
//!
//! It is generic over [`ScheduledCall`], so a project with its own call type
//! uses it without the rest of toolstack.
//!
//! ```
//! use tool_concurrency::{ConcurrencyClaim, PlannedCall, Scheduler};
//!
//! let calls = vec![
//!     PlannedCall::new("read_docs", ConcurrencyClaim::shared_paths(["docs"], Some("/repo"))),
//!     PlannedCall::new("write_src", ConcurrencyClaim::paths(["src/x.rs"], Some("/repo"))),
//!     PlannedCall::new("write_doc", ConcurrencyClaim::paths(["docs/a.md"], Some("/repo"))),
//! ];
//! let mut scheduler = Scheduler::new(&calls, None)?;
//! assert_eq!(scheduler.ready(), vec!["read_docs", "write_src"]);
//! scheduler.complete(&"read_docs".to_string())?;
//! assert_eq!(scheduler.ready(), vec!["write_doc"]);
//! # Ok::<(), tool_concurrency::PlanError>(())
//! ```

mod batch;
mod claim;
mod error;
mod footprint;
mod path;
mod plan;
mod scheduler;

pub use batch::{
    dependency_indices, dependency_stages, partition_parallel_groups, PlannedCall, ScheduledCall,
};
pub use claim::{ClaimSpec, ClaimWord, ConcurrencyClaim, ExclusiveScope, ScopedClaim};
pub use error::{PlanError, PlanErrorKind};
pub use footprint::{claim_for, Footprint, OperationRule};
pub use path::{ClaimPath, PathError};
pub use plan::{BatchSpec, CallSpec, Makespan, Plan};
pub use scheduler::{
    partition_makespan, simulate_scheduler, CallState, Dag, ReadyQueue, Scheduler, Simulation,
};
