//! # tool-mcp
//!
//! MCP servers as a toolstack catalog source, on the official `rmcp` SDK:
//! start a server over stdio (or reach one over streamable HTTP), import its tools (namespaced, annotations as
//! facts, absent annotations unknown), call them with deadlines and MCP
//! cancellation, map server errors to typed [`tool_core::ToolError`]s, and
//! report health to the catalog.
//!
//! [`McpHub`] keeps a host's servers, follows their tools-list-changed
//! notifications, reconnects dead ones with backoff and offers
//! capability-gated resource and prompt tools while a server advertises
//! them.
//!
//! The gateway serves the hub's tools, with policy and progressive
//! disclosure, as one MCP server (`toolstack serve`): a [`GatewayHost`]
//! shared by all clients, one [`Gateway`] session per client, on stdio
//! ([`serve_stdio`]) or streamable HTTP on a loopback address
//! ([`HttpGateway`], [`serve_http`]). `ask` decisions go to the client's
//! user through MCP form elicitation when the client supports it; a client
//! is told (`notifications/tools/list_changed`) when promotions or upstream
//! changes alter the list it sees. Upstream servers are reached over stdio
//! or streamable HTTP (plain http).

mod client;
mod config;
mod error;
mod gateway;
mod hub;

pub use client::{attach, refresh, report_health, McpServer};
pub use config::{McpConfig, ServerConfig};
pub use error::{McpError, McpErrorKind};
pub use gateway::{serve_http, serve_stdio, Gateway, GatewayHost, HttpGateway, MCP_PATH};
pub use hub::McpHub;
