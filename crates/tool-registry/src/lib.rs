//! # tool-registry
//!
//! The one place that knows which tool a name means right now, and what
//! one request may see.
//!
//! - [`ToolCatalog`]: sources (built-in, MCP, skills, plugins, ...), each
//!   entry keeping its source; collisions (built-ins win, losers reported),
//!   namespacing ([`flatten_name`]), health, capability-gated tools, and
//!   scoped registrations with [`RegistrationHandle`]s.
//! - [`CatalogSnapshot`]: the immutable view one request captures in O(1).
//! - [`ToolShed`] and [`Preset`]: per-session tool construction.
//! - [`Activation`]: shed-style activation (only `shed` offered; found
//!   tools appended, never reordered).
//!
//! ```
//! use tool_core::{FnTool, ToolOutput, ToolSource};
//! use tool_registry::{SourceConfig, ToolCatalog};
//!
//! let tool = |n: &str| FnTool::builder(n, "A tool.").handler(|_, _| async { Ok(ToolOutput::text("ok")) }).unwrap();
//! let catalog = ToolCatalog::new();
//! catalog.add_source(SourceConfig::new("plugin", ToolSource::Plugin { name: "p".into() }))?;
//! let before = catalog.snapshot();
//! let handle = catalog.register("plugin", tool("lint"))?;
//! assert!(catalog.snapshot().get("lint").is_some());
//! assert!(before.get("lint").is_none(), "a snapshot never changes");
//! handle.close();
//! assert!(catalog.snapshot().get("lint").is_none());
//! # Ok::<(), tool_registry::RegistryError>(())
//! ```

mod activation;
mod builtin;
mod catalog;
mod changes;
mod error;
mod flatten;
mod shed;

pub use activation::{Activation, ToolSearcher, WordMatchSearcher};
pub use builtin::BuiltinSpec;
pub use catalog::{
    CatalogEntry, CatalogSnapshot, CatalogWarning, Health, OriginalName, RegistrationHandle,
    SourceConfig, SourceProbe, ToolCatalog,
};
pub use changes::ChangeSubscription;
pub use error::{RegistryError, RegistryErrorKind};
pub use flatten::flatten_name;
pub use shed::{constructor, Preset, ToolConstructor, ToolShed, RESERVED_NAMES};
