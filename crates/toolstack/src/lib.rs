//! # toolstack
//!
//! The thin facade over the toolstack crates: re-exports, a prelude and one
//! cargo feature per layer, no logic of its own. Each layer is also usable
//! alone (`tool-core`, `tool-concurrency`, ...).
//!
//! ```
//! use toolstack::prelude::*;
//! let def = ToolDefinition::builder("ping", "Ping.").build().unwrap();
//! assert_eq!(def.name(), "ping");
//! ```

pub use tool_core as core;

/// The types most agents touch first.
pub mod prelude {
    pub use tool_core::{
        CallContext, DynTool, ErrorKind, FnTool, IntoDynTool, Provider, RenderOptions, SharedTool,
        Tool, ToolCall, ToolDefinition, ToolError, ToolFacts, ToolOutput,
    };
}
