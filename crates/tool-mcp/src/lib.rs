//! # tool-mcp
//!
//! Planned (issue: tool-mcp): an MCP client (rmcp) feeding the catalog, and
//! the gateway server.
