//! Serde types for the policy sections of a TOML file (or built in code).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A permission: allow, ask or deny. Ordered by restrictiveness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Run without asking.
    Allow,
    /// Ask a person first.
    Ask,
    /// Never run, never show.
    Deny,
}

impl Action {
    /// `allow`, `ask` or `deny`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much the agent may do without asking, where no permission entry
/// names the tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecTier {
    /// Ask before anything that is not idempotent.
    #[default]
    Ask,
    /// Allow described tools that need no approval.
    Auto,
    /// Same table as `auto` for permissions; reserved for hosts that relax
    /// their own sandboxes. The command floor still applies.
    Full,
}

impl ExecTier {
    /// `ask`, `auto` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ask => "ask",
            Self::Auto => "auto",
            Self::Full => "full",
        }
    }
}

/// `[policies.exec]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecConfig {
    /// The exec tier.
    #[serde(default)]
    pub tier: ExecTier,
}

/// One tier's permissions: tool name or glob → action.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    /// Name or glob → action.
    #[serde(default)]
    pub tool_permissions: BTreeMap<String, Action>,
}

/// `[policies]`: the global tier's permissions, the exec tier, and the agent
/// and channel tiers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoliciesConfig {
    /// `[policies.exec]`.
    #[serde(default)]
    pub exec: ExecConfig,
    /// `[policies.tool_permissions]`: the global tier.
    #[serde(default)]
    pub tool_permissions: BTreeMap<String, Action>,
    /// `[policies.agents.NAME]`.
    #[serde(default)]
    pub agents: BTreeMap<String, TierConfig>,
    /// `[policies.channels.NAME]`.
    #[serde(default)]
    pub channels: BTreeMap<String, TierConfig>,
}

/// `[sandbox.command_policy]`: rules added to the default command floor.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandPolicyConfig {
    /// Globs over a simple command (`git push --force*`): always denied.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Globs over a simple command: at least ask.
    #[serde(default)]
    pub ask: Vec<String>,
}

/// `[sandbox]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxConfig {
    /// `[sandbox.command_policy]`.
    #[serde(default)]
    pub command_policy: CommandPolicyConfig,
}

/// A whole policy file: `[policies]` and `[sandbox]`. Unknown keys are
/// errors. Other programs (the MCP gateway) embed these two sections in
/// their own files.
///
/// ```
/// use tool_policy::{Action, ExecTier, PolicyConfig};
/// let config = PolicyConfig::from_toml_str(r#"
/// [policies.exec]
/// tier = "auto"
/// [policies.tool_permissions]
/// "read_*" = "allow"
/// "#).unwrap();
/// assert_eq!(config.policies.exec.tier, ExecTier::Auto);
/// assert_eq!(config.policies.tool_permissions["read_*"], Action::Allow);
///
/// let err = PolicyConfig::from_toml_str("[policies.exec]\ntier = \"auto\"\nteir = 1\n").unwrap_err();
/// assert!(err.to_string().contains("line 3"), "{err}");
/// assert!(err.to_string().contains("policies.exec.teir"), "{err}");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// `[policies]`.
    #[serde(default)]
    pub policies: PoliciesConfig,
    /// `[sandbox]`.
    #[serde(default)]
    pub sandbox: SandboxConfig,
}

impl PolicyConfig {
    /// Parse TOML text.
    pub fn from_toml_str(text: &str) -> Result<Self, crate::PolicyError> {
        toml::from_str(text).map_err(|e| crate::PolicyError::from_toml(&e, text, None))
    }

    /// Read and parse a TOML file; errors name the file.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self, crate::PolicyError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| crate::PolicyError::Io {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        toml::from_str(&text)
            .map_err(|e| crate::PolicyError::from_toml(&e, &text, Some(path.to_owned())))
    }
}
