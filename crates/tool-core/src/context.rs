//! [`CallContext`]: what every tool call receives besides its arguments.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use tokio_util::sync::CancellationToken;

/// Typed host data attached to a call (a database handle, the user's id).
///
/// ```
/// use tool_core::Extensions;
/// #[derive(Debug, PartialEq)]
/// struct UserId(u32);
/// let mut ext = Extensions::new();
/// ext.insert(UserId(7));
/// assert_eq!(ext.get::<UserId>(), Some(&UserId(7)));
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Extensions {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }
    /// Insert a value, replacing any of the same type.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }
    /// The value of type `T`, if present.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }
    /// Number of values.
    pub fn len(&self) -> usize {
        self.map.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.len())
            .finish()
    }
}

/// The context of one tool call: ids, cancellation, deadline and host data.
/// Long-running tools must observe [`CallContext::cancellation`].
///
/// ```
/// use std::time::Duration;
/// use tool_core::CallContext;
/// let ctx = CallContext::new("call_1")
///     .with_session("s1")
///     .with_timeout(Duration::from_secs(30));
/// assert_eq!(ctx.call_id(), "call_1");
/// assert!(ctx.remaining().unwrap() <= Duration::from_secs(30));
/// ctx.cancellation().cancel();
/// assert!(ctx.is_cancelled());
/// ```
#[derive(Debug, Clone)]
pub struct CallContext {
    call_id: String,
    turn_id: Option<String>,
    session_id: Option<String>,
    cancel: CancellationToken,
    deadline: Option<Instant>,
    extensions: Extensions,
}

impl CallContext {
    /// A context with a fresh token, no deadline and no host data.
    pub fn new(call_id: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            turn_id: None,
            session_id: None,
            cancel: CancellationToken::new(),
            deadline: None,
            extensions: Extensions::new(),
        }
    }
    /// Set the turn id.
    pub fn with_turn(mut self, turn: impl Into<String>) -> Self {
        self.turn_id = Some(turn.into());
        self
    }
    /// Set the session id.
    pub fn with_session(mut self, session: impl Into<String>) -> Self {
        self.session_id = Some(session.into());
        self
    }
    /// Use this cancellation token (for example a child of the batch's).
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }
    /// Set an absolute deadline.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }
    /// Set a deadline `timeout` from now.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        self.with_deadline(Instant::now() + timeout)
    }
    /// Attach host data.
    pub fn with_extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }
    /// Copy this context under another call id, with the same token,
    /// deadline and host data.
    pub fn for_call(&self, call_id: impl Into<String>) -> Self {
        let mut copy = self.clone();
        copy.call_id = call_id.into();
        copy
    }

    /// The call id (as the model sent it).
    pub fn call_id(&self) -> &str {
        &self.call_id
    }
    /// The turn id.
    pub fn turn_id(&self) -> Option<&str> {
        self.turn_id.as_deref()
    }
    /// The session id.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
    /// The cancellation token; await `cancelled()` on it in long calls.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }
    /// True once the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
    /// Time left before the deadline (zero once passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
    /// Host data.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }
    /// Host data, mutably.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }
}
