//! # tool-service
//!
//! The one chokepoint every tool call of an agent passes: [`ToolService`]
//! and its per-request implementation [`ScopedToolService`], composed from
//! the layers below (registry snapshot, policy, disclosure, approvals,
//! concurrency) in a fixed order, with limits, retries, hooks and events.
//!
//! ```
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! use serde_json::json;
//! use tool_core::{CallContext, FnTool, ToolFacts, ToolOutput, ToolSource};
//! use tool_registry::{SourceConfig, ToolCatalog};
//! use tool_service::{BatchCall, ScopedToolService};
//!
//! let catalog = ToolCatalog::new();
//! catalog.add_source(SourceConfig::new("host", ToolSource::Host)).unwrap();
//! let now = FnTool::builder("now", "The time.")
//!     .facts(ToolFacts::read_only_tool())
//!     .handler(|_, _| async { Ok(ToolOutput::text("12:00")) })
//!     .unwrap();
//! catalog.set_source_tools("host", vec![now]).unwrap();
//! let service = ScopedToolService::builder(catalog.snapshot()).build();
//! let calls = vec![
//!     BatchCall { id: "a".into(), name: "now".into(), arguments: json!({}), depends_on: vec![] },
//!     BatchCall { id: "b".into(), name: "nope".into(), arguments: json!({}), depends_on: vec![] },
//! ];
//! let results = service.execute_batch(calls, &CallContext::new("turn")).await;
//! assert_eq!(results.len(), 2);
//! assert!(results[0].result.is_ok());
//! assert!(results[1].result.is_err());
//! # });
//! ```

mod batch;
pub mod builtins;
mod events;
mod hooks;
mod limits;
mod resolve;
mod service;
mod shed_search;

pub use batch::{BatchCall, CallResult, FOOTPRINT_KEY};
pub use events::{
    verify_ledger, CallEvent, EventSink, JsonlSink, LedgerError, MemorySink, GENESIS,
};
pub use hooks::{CallHook, HookVerdict};
pub use limits::{BudgetPool, Limits, OutputBudget, Overflow, RetryPolicy};
pub use resolve::repair_name;
pub use service::{ScopedToolService, ServiceBuilder, ToolService};
pub use shed_search::Bm25ShedSearcher;
