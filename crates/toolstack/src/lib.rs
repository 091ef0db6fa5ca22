//! # toolstack
//!
//! The tool layer of an LLM agent, as one facade over layered crates (like
//! ripgrep's `grep` over the `grep-*` crates): re-exports and a prelude, one
//! cargo feature per layer, no logic of its own. Each layer is also usable
//! alone; a project that wants only the scheduler depends on
//! `tool-concurrency` and gets no tokio.
//!
//! | module | crate | feature |
//! |---|---|---|
//! | [`core`] | `tool-core` | always |
//! | `concurrency` | `tool-concurrency` | `concurrency` |
//! | `disclosure` | `tool-disclosure` | `disclosure` |
//! | `policy` | `tool-policy` | `policy` |
//! | `registry` | `tool-registry` | `registry` |
//! | `service` | `tool-service` | `service` (needs the others) |
//!
//! ```
//! use toolstack::prelude::*;
//! let def = ToolDefinition::builder("ping", "Ping.").build().unwrap();
//! assert_eq!(def.name(), "ping");
//! ```

pub use tool_core as core;

#[cfg(feature = "concurrency")]
pub use tool_concurrency as concurrency;
#[cfg(feature = "disclosure")]
pub use tool_disclosure as disclosure;
#[cfg(feature = "policy")]
pub use tool_policy as policy;
#[cfg(feature = "registry")]
pub use tool_registry as registry;
#[cfg(feature = "service")]
pub use tool_service as service;

/// The types most agents touch first.
pub mod prelude {
    pub use tool_core::{
        CallContext, DynTool, ErrorKind, FnTool, IntoDynTool, Provider, RenderOptions, SharedTool,
        Tool, ToolCall, ToolDefinition, ToolError, ToolFacts, ToolOutput,
    };

    #[cfg(feature = "concurrency")]
    pub use tool_concurrency::{ConcurrencyClaim, Footprint, PlannedCall, Scheduler};
    #[cfg(feature = "disclosure")]
    pub use tool_disclosure::{
        DeferredStyle, DisclosureConfig, DisclosureSession, ProgressiveDisclosureRewriter,
        SearchIndex,
    };
    #[cfg(feature = "policy")]
    pub use tool_policy::{Action, ApprovalGate, Decision, Policy, PolicyConfig};
    #[cfg(feature = "registry")]
    pub use tool_registry::{SourceConfig, ToolCatalog};
    #[cfg(feature = "service")]
    pub use tool_service::{BatchCall, Limits, ScopedToolService, ToolService};
}
