//! [`PlanError`]: everything that can be wrong with a batch or a schedule.

/// A batch that cannot be planned, or a misuse of the ready queue.
///
/// ```
/// use tool_concurrency::{PlanError, PlanErrorKind};
/// let err = PlanError::Cycle { ids: vec!["a".into(), "b".into(), "a".into()] };
/// assert_eq!(err.kind(), PlanErrorKind::Cycle);
/// assert_eq!(err.to_string(), "dependency cycle: a -> b -> a");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Two calls share one id.
    #[error("duplicate call id `{id}`")]
    DuplicateId {
        /// The id.
        id: String,
    },
    /// A call depends on an id no call has.
    #[error("call `{call}` depends on unknown call `{missing}`")]
    UnknownDependency {
        /// The dependent call.
        call: String,
        /// The id that does not exist.
        missing: String,
    },
    /// Dependencies form a cycle (the ids in order, first repeated last).
    #[error("dependency cycle: {}", .ids.join(" -> "))]
    Cycle {
        /// The cycle.
        ids: Vec<String>,
    },
    /// A call depends on a call that comes after it in the model's order.
    #[error("call `{call}` depends on `{depends_on}`, which comes after it; a call may depend only on earlier calls")]
    ForwardDependency {
        /// The dependent call.
        call: String,
        /// The later call.
        depends_on: String,
    },
    /// The ready queue was told of a call it does not know.
    #[error("unknown call `{id}`")]
    UnknownCall {
        /// The id.
        id: String,
    },
    /// `complete` for a call that is not running.
    #[error("call `{id}` is not running (it is {state})")]
    NotRunning {
        /// The id.
        id: String,
        /// Its state.
        state: &'static str,
    },
    /// A duration that is negative or not a number, or missing where
    /// others are given.
    #[error("call `{id}`: {reason}")]
    InvalidDuration {
        /// The call.
        id: String,
        /// What is wrong.
        reason: String,
    },
    /// The cap on calls in flight is zero.
    #[error("the cap on calls in flight must be at least 1")]
    ZeroCap,
}

/// The kind of a [`PlanError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum PlanErrorKind {
    DuplicateId,
    UnknownDependency,
    Cycle,
    ForwardDependency,
    UnknownCall,
    NotRunning,
    InvalidDuration,
    ZeroCap,
}

impl PlanError {
    /// The kind, for matching.
    pub fn kind(&self) -> PlanErrorKind {
        match self {
            Self::DuplicateId { .. } => PlanErrorKind::DuplicateId,
            Self::UnknownDependency { .. } => PlanErrorKind::UnknownDependency,
            Self::Cycle { .. } => PlanErrorKind::Cycle,
            Self::ForwardDependency { .. } => PlanErrorKind::ForwardDependency,
            Self::UnknownCall { .. } => PlanErrorKind::UnknownCall,
            Self::NotRunning { .. } => PlanErrorKind::NotRunning,
            Self::InvalidDuration { .. } => PlanErrorKind::InvalidDuration,
            Self::ZeroCap => PlanErrorKind::ZeroCap,
        }
    }
}
