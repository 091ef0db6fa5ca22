//! The gateway/client TOML: `[tools]`, `[[servers]]`, and the policy
//! sections of tool-policy in the same file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tool_disclosure::DisclosureConfig;
use tool_policy::{PoliciesConfig, PolicyError, SandboxConfig};

use crate::McpError;

fn default_call_timeout_s() -> u64 {
    60
}

fn default_startup_timeout_s() -> u64 {
    10
}

fn default_ping_timeout_s() -> u64 {
    10
}

/// One MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The server's name: its source id and default namespace.
    pub name: String,
    /// Program to start (stdio transport).
    #[serde(default)]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Streamable HTTP endpoint (instead of `command`).
    #[serde(default)]
    pub url: Option<String>,
    /// Namespace of its tools (default: the name; `""` for none).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Deadline of one call, seconds.
    #[serde(default = "default_call_timeout_s")]
    pub call_timeout_s: u64,
    /// Deadline of connecting and listing tools, seconds.
    #[serde(default = "default_startup_timeout_s")]
    pub startup_timeout_s: u64,
    /// How long the server may take to answer a health ping, seconds; one
    /// that does not is treated as dead (unhealthy, then restarted).
    #[serde(default = "default_ping_timeout_s")]
    pub ping_timeout_s: u64,
}

impl ServerConfig {
    /// A stdio server.
    pub fn stdio(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = String>,
    ) -> Self {
        Self {
            name: name.into(),
            command: Some(command.into()),
            args: args.into_iter().collect(),
            env: BTreeMap::new(),
            url: None,
            namespace: None,
            call_timeout_s: default_call_timeout_s(),
            startup_timeout_s: default_startup_timeout_s(),
            ping_timeout_s: default_ping_timeout_s(),
        }
    }

    /// The namespace its tools are flattened under, if any.
    pub fn effective_namespace(&self) -> Option<&str> {
        match self.namespace.as_deref() {
            Some("") => None,
            Some(ns) => Some(ns),
            None => Some(&self.name),
        }
    }
}

/// The whole file.
///
/// ```
/// let config = tool_mcp::McpConfig::from_toml_str(r#"
/// [tools]
/// defer_mcp_tools = true
/// core = ["read_file"]
///
/// [[servers]]
/// name = "everything"
/// command = "node"
/// args = ["server.js", "stdio"]
/// env = { KEY = "value" }
/// call_timeout_s = 60
/// startup_timeout_s = 10
///
/// [policies.tool_permissions]
/// "everything_*" = "ask"
/// "#).unwrap();
/// assert_eq!(config.servers[0].effective_namespace(), Some("everything"));
/// assert!(config.tools.defer_mcp_tools);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// `[tools]`: disclosure settings.
    #[serde(default)]
    pub tools: DisclosureConfig,
    /// `[[servers]]`.
    #[serde(default)]
    pub servers: Vec<ServerConfig>,
    /// `[policies]` (tool-policy).
    #[serde(default)]
    pub policies: PoliciesConfig,
    /// `[sandbox]` (tool-policy).
    #[serde(default)]
    pub sandbox: SandboxConfig,
}

impl McpConfig {
    /// Parse TOML text; errors give the line and the key.
    pub fn from_toml_str(text: &str) -> Result<Self, McpError> {
        let config: Self = toml::from_str(text)
            .map_err(|e| McpError::Config(PolicyError::from_toml(&e, text, None)))?;
        config.check()?;
        Ok(config)
    }

    /// Read and parse a file; errors name it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, McpError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            McpError::Config(PolicyError::Io {
                path: path.to_owned(),
                message: e.to_string(),
            })
        })?;
        let config: Self = toml::from_str(&text).map_err(|e| {
            McpError::Config(PolicyError::from_toml(&e, &text, Some(path.to_owned())))
        })?;
        config.check()?;
        Ok(config)
    }

    fn check(&self) -> Result<(), McpError> {
        let mut seen = std::collections::HashSet::new();
        for s in &self.servers {
            if !seen.insert(&s.name) {
                return Err(McpError::BadServer {
                    server: s.name.clone(),
                    reason: "two servers share this name".into(),
                });
            }
            match (&s.command, &s.url) {
                (Some(_), Some(_)) => {
                    return Err(McpError::BadServer {
                        server: s.name.clone(),
                        reason: "give `command` or `url`, not both".into(),
                    })
                }
                (None, None) => {
                    return Err(McpError::BadServer {
                        server: s.name.clone(),
                        reason: "give `command` (stdio) or `url` (HTTP)".into(),
                    })
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The policy sections as a tool-policy configuration.
    pub fn policy(&self) -> tool_policy::PolicyConfig {
        tool_policy::PolicyConfig {
            policies: self.policies.clone(),
            sandbox: self.sandbox.clone(),
        }
    }
}
