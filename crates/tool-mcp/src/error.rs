//! [`McpError`]: what connecting to and importing from MCP servers refuses.

use tool_core::ToolError;
use tool_policy::PolicyError;
use tool_registry::RegistryError;

/// An MCP server that cannot be configured, reached or imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The configuration file is bad (line and key named).
    #[error(transparent)]
    Config(PolicyError),
    /// One server's entry is inconsistent.
    #[error("server `{server}`: {reason}")]
    BadServer {
        /// The server.
        server: String,
        /// Why.
        reason: String,
    },
    /// Starting or talking to the server failed.
    #[error("server `{server}`: {message}")]
    Connection {
        /// The server.
        server: String,
        /// What happened.
        message: String,
    },
    /// The server did not answer within its startup deadline.
    #[error("server `{server}` did not start within {seconds} s")]
    StartupTimeout {
        /// The server.
        server: String,
        /// The deadline.
        seconds: u64,
    },
    /// The gateway cannot listen where it was asked to.
    #[error("cannot serve the gateway at `{address}`: {reason}")]
    Listen {
        /// The address asked for.
        address: String,
        /// Why.
        reason: String,
    },
    /// The catalog refused the server's tools.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A tool of the server is unusable.
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// The kind of an [`McpError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum McpErrorKind {
    Config,
    BadServer,
    Connection,
    StartupTimeout,
    Listen,
    Registry,
    Tool,
}

impl McpError {
    /// The kind, for matching.
    pub fn kind(&self) -> McpErrorKind {
        match self {
            Self::Config(_) => McpErrorKind::Config,
            Self::BadServer { .. } => McpErrorKind::BadServer,
            Self::Connection { .. } => McpErrorKind::Connection,
            Self::StartupTimeout { .. } => McpErrorKind::StartupTimeout,
            Self::Listen { .. } => McpErrorKind::Listen,
            Self::Registry(_) => McpErrorKind::Registry,
            Self::Tool(_) => McpErrorKind::Tool,
        }
    }
}
