//! What a tool does to the world, mirroring MCP tool annotations.

use serde::{Deserialize, Serialize};

/// Facts about a tool's effects. Each is optional: an absent fact is
/// *unknown* and reads as its fail-closed value (not read-only,
/// destructive, not idempotent, open world, no approval flag), while
/// [`ToolFacts::is_unknown`] still tells "nobody described this tool"
/// apart from "described as unsafe".
///
/// ```
/// use tool_core::ToolFacts;
/// let unknown = ToolFacts::default();
/// assert!(unknown.is_unknown());
/// assert!(!unknown.read_only() && unknown.destructive());
///
/// let reader = ToolFacts::read_only_tool();
/// assert!(reader.read_only() && !reader.destructive() && reader.idempotent());
/// assert!(!reader.is_unknown());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolFacts {
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool reaches an open world (the network, other people).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// The tool's author asks for a person's approval before each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_approval: Option<bool>,
}

impl ToolFacts {
    /// Facts for a side-effect-free tool: read-only, not destructive,
    /// idempotent, closed world, no approval.
    pub const fn read_only_tool() -> Self {
        Self {
            read_only: Some(true),
            destructive: Some(false),
            idempotent: Some(true),
            open_world: Some(false),
            requires_approval: Some(false),
        }
    }

    /// True when no fact was given at all.
    pub fn is_unknown(&self) -> bool {
        *self == Self::default()
    }

    /// Read-only, fail-closed: unknown means `false`.
    pub fn read_only(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// Destructive, fail-closed: unknown means `true`; a read-only tool is
    /// never destructive.
    pub fn destructive(&self) -> bool {
        self.destructive.unwrap_or(!self.read_only())
    }

    /// Idempotent, fail-closed: unknown means `false`.
    pub fn idempotent(&self) -> bool {
        self.idempotent.unwrap_or(false)
    }

    /// Open world, fail-closed: unknown means `true`.
    pub fn open_world(&self) -> bool {
        self.open_world.unwrap_or(true)
    }

    /// Requires approval: unknown means `false` (the policy treats unknown
    /// facts as a whole with suspicion; see tool-policy).
    pub fn requires_approval(&self) -> bool {
        self.requires_approval.unwrap_or(false)
    }

    /// Builder: set `read_only`.
    pub fn with_read_only(mut self, v: bool) -> Self {
        self.read_only = Some(v);
        self
    }
    /// Builder: set `destructive`.
    pub fn with_destructive(mut self, v: bool) -> Self {
        self.destructive = Some(v);
        self
    }
    /// Builder: set `idempotent`.
    pub fn with_idempotent(mut self, v: bool) -> Self {
        self.idempotent = Some(v);
        self
    }
    /// Builder: set `open_world`.
    pub fn with_open_world(mut self, v: bool) -> Self {
        self.open_world = Some(v);
        self
    }
    /// Builder: set `requires_approval`.
    pub fn with_requires_approval(mut self, v: bool) -> Self {
        self.requires_approval = Some(v);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_facts_are_fail_closed() {
        let f: ToolFacts = serde_json::from_str("{}").unwrap();
        assert!(f.is_unknown());
        assert!(!f.read_only());
        assert!(f.destructive());
        assert!(!f.idempotent());
        assert!(f.open_world());
    }

    #[test]
    fn given_unsafe_facts_are_not_unknown() {
        let f = ToolFacts::default().with_read_only(false);
        assert!(!f.is_unknown());
        assert_eq!(serde_json::to_string(&f).unwrap(), r#"{"read_only":false}"#);
    }
}
