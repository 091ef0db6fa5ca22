//! # tool-mcp
//!
//! MCP servers as a toolstack catalog source, on the official `rmcp` SDK:
//! start a server over stdio, import its tools (namespaced, annotations as
//! facts, absent annotations unknown), call them with deadlines and MCP
//! cancellation, map server errors to typed [`tool_core::ToolError`]s, and
//! report health to the catalog.
//!
//! [`McpHub`] keeps a host's servers and offers capability-gated
//! resource and prompt tools while a server advertises them.
//!
//! Status: the client side over stdio. Streamable HTTP, automatic
//! list-changed following and reconnection, and the gateway server
//! (`toolstack serve`) are not built yet (see the tool-mcp issue).

mod client;
mod config;
mod error;
mod hub;

pub use client::{attach, refresh, report_health, McpServer};
pub use config::{McpConfig, ServerConfig};
pub use error::{McpError, McpErrorKind};
pub use hub::McpHub;
