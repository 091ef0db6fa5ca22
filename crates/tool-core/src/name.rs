//! Tool names: 1 to 64 characters of `[A-Za-z0-9_-]`, the strictest rule
//! any provider applies.

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

use crate::ToolError;

/// The longest name any provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Check a tool name against the provider rule.
///
/// ```
/// use tool_core::validate_tool_name;
/// assert!(validate_tool_name("read_file").is_ok());
/// let err = validate_tool_name("read file").unwrap_err();
/// assert!(err.to_string().contains("\"read file\""));
/// ```
pub fn validate_tool_name(name: &str) -> Result<(), ToolError> {
    let fail = |reason: String| ToolError::InvalidName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(fail("a name needs at least one character".into()));
    }
    let len = name.chars().count();
    if len > MAX_TOOL_NAME_LEN {
        return Err(fail(format!(
            "{len} characters, over the limit of {MAX_TOOL_NAME_LEN}"
        )));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(fail(format!(
            "character {bad:?} is not allowed; use only A-Z, a-z, 0-9, `_` and `-`"
        )));
    }
    Ok(())
}

/// A validated tool name.
///
/// ```
/// use tool_core::ToolName;
/// let name = ToolName::new("grep").unwrap();
/// assert_eq!(name.as_str(), "grep");
/// assert!(ToolName::new("").is_err());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ToolName(String);

impl ToolName {
    /// Validate and wrap a name.
    pub fn new(name: impl Into<String>) -> Result<Self, ToolError> {
        let name = name.into();
        validate_tool_name(&name)?;
        Ok(Self(name))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ToolName {
    type Error = ToolError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::new(value)
    }
}

impl From<ToolName> for String {
    fn from(value: ToolName) -> Self {
        value.0
    }
}

impl Deref for ToolName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for ToolName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn boundaries() {
        assert!(validate_tool_name(&"a".repeat(64)).is_ok());
        assert!(validate_tool_name(&"a".repeat(65)).is_err());
        assert!(validate_tool_name("a-b_C9").is_ok());
        assert!(validate_tool_name("a.b").is_err());
        assert!(validate_tool_name("é").is_err());
    }

    #[test]
    fn deserialising_checks_the_name() {
        let err = serde_json::from_str::<ToolName>("\"bad name\"").unwrap_err();
        assert!(err.to_string().contains("bad name"), "{err}");
    }

    proptest! {
        #[test]
        fn random_strings_never_panic_the_name_check(s in any::<String>()) {
            let ok = validate_tool_name(&s).is_ok();
            let expected = !s.is_empty()
                && s.chars().count() <= 64
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            prop_assert_eq!(ok, expected);
        }
    }
}
