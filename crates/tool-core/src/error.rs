//! The [`ToolError`] taxonomy shared by every toolstack crate.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One schema violation: where in the value it is (a JSON pointer) and why.
///
/// ```
/// use tool_core::Violation;
/// let v = Violation::new("/count", "expected integer, got string");
/// assert_eq!(v.to_string(), "/count: expected integer, got string");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// JSON pointer of the offending value (`""` is the whole value).
    pub pointer: String,
    /// Why the value is wrong, in words a model can act on.
    pub message: String,
}

impl Violation {
    /// A violation at `pointer`.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            pointer: pointer.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

fn list(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

fn suggest(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" (did you mean: {}?)", suggestions.join(", "))
    }
}

/// Everything that can go wrong between "the model asked for a tool" and
/// "the result went back". Match on [`ToolError::kind`] for retry and
/// approval decisions; show [`ToolError::model_message`] to the model.
///
/// ```
/// use tool_core::{ErrorKind, ToolError};
/// let err = ToolError::not_found("red_file", vec!["read_file".into()]);
/// assert_eq!(err.kind(), ErrorKind::NotFound);
/// assert!(!err.is_retryable());
/// assert!(err.model_message().contains("read_file"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool has this name.
    #[error("tool `{name}` not found{}", suggest(.suggestions))]
    NotFound {
        /// The name asked for.
        name: String,
        /// Close names that do exist, best first.
        suggestions: Vec<String>,
    },
    /// A tool name breaks the provider name rule.
    #[error("invalid tool name {name:?}: {reason}")]
    InvalidName {
        /// The name as given.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A definition is unusable (for example, its schema does not compile).
    #[error("invalid definition for tool `{tool}`: {reason}")]
    InvalidDefinition {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// Policy forbids this call.
    #[error("permission denied for tool `{tool}`: {reason}")]
    PermissionDenied {
        /// The tool.
        tool: String,
        /// The readable reason.
        reason: String,
    },
    /// The call needs a person's approval first.
    #[error("tool `{tool}` requires approval: {reason}")]
    ApprovalRequired {
        /// The tool.
        tool: String,
        /// Why approval is needed.
        reason: String,
    },
    /// The person said no.
    #[error("approval for tool `{tool}` was declined{}", .feedback.as_ref().map(|f| format!(": {f}")).unwrap_or_default())]
    ApprovalDeclined {
        /// The tool.
        tool: String,
        /// What the person said, if anything.
        feedback: Option<String>,
    },
    /// Nobody answered before the deadline.
    #[error("approval for tool `{tool}` expired after {waited:?}")]
    ApprovalExpired {
        /// The tool.
        tool: String,
        /// How long the gate waited.
        waited: Duration,
    },
    /// Arguments do not satisfy the input schema (or are not JSON at all).
    #[error("invalid arguments for tool `{tool}`: {}", list(.violations))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Each bad field with its pointer.
        violations: Vec<Violation>,
    },
    /// The tool's result does not satisfy its output schema.
    #[error("invalid output from tool `{tool}`: {}", list(.violations))]
    InvalidOutput {
        /// The tool.
        tool: String,
        /// Each bad field with its pointer.
        violations: Vec<Violation>,
    },
    /// The tool ran and failed.
    #[error("tool `{tool}` failed: {message}")]
    Execution {
        /// The tool.
        tool: String,
        /// What went wrong.
        message: String,
        /// Whether running it again may succeed.
        retryable: bool,
    },
    /// The call passed its deadline.
    #[error("tool `{tool}` timed out after {after:?}")]
    Timeout {
        /// The tool.
        tool: String,
        /// The time budget it had.
        after: Duration,
    },
    /// The call's cancellation token fired.
    #[error("tool `{tool}` was cancelled")]
    Cancelled {
        /// The tool.
        tool: String,
    },
    /// The tool's backend (an MCP server, a plugin host) could not be reached.
    #[error("tool `{tool}` is unavailable: source `{origin}`: {message}")]
    Transport {
        /// The tool.
        tool: String,
        /// The source (server, plugin) at fault.
        origin: String,
        /// What happened.
        message: String,
    },
    /// Two tools share one name where names must be unique.
    #[error("duplicate tool name `{name}`")]
    DuplicateName {
        /// The name.
        name: String,
    },
    /// The tool exists but is not active in this session.
    #[error("tool `{tool}` is not active")]
    NotActive {
        /// The tool.
        tool: String,
    },
    /// The tool panicked; the panic was caught.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// A schema cannot be converted to OpenAI strict form.
    #[error("schema cannot be made strict at `{path}` (keyword `{keyword}`): {reason}")]
    StrictSchema {
        /// JSON pointer into the schema.
        path: String,
        /// The keyword at fault.
        keyword: String,
        /// Why.
        reason: String,
    },
    /// A provider's tool-call payload could not be read.
    #[error("malformed tool-call payload at `{pointer}`: {reason}")]
    MalformedPayload {
        /// Where in the payload.
        pointer: String,
        /// What is wrong.
        reason: String,
    },
}

/// The kind of a [`ToolError`], for `match` without the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum ErrorKind {
    NotFound,
    InvalidName,
    InvalidDefinition,
    PermissionDenied,
    ApprovalRequired,
    ApprovalDeclined,
    ApprovalExpired,
    InvalidArguments,
    InvalidOutput,
    Execution,
    Timeout,
    Cancelled,
    Transport,
    DuplicateName,
    NotActive,
    Panicked,
    StrictSchema,
    MalformedPayload,
}

impl ErrorKind {
    /// The snake_case name used in events and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::InvalidName => "invalid_name",
            Self::InvalidDefinition => "invalid_definition",
            Self::PermissionDenied => "permission_denied",
            Self::ApprovalRequired => "approval_required",
            Self::ApprovalDeclined => "approval_declined",
            Self::ApprovalExpired => "approval_expired",
            Self::InvalidArguments => "invalid_arguments",
            Self::InvalidOutput => "invalid_output",
            Self::Execution => "execution",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Transport => "transport",
            Self::DuplicateName => "duplicate_name",
            Self::NotActive => "not_active",
            Self::Panicked => "panicked",
            Self::StrictSchema => "strict_schema",
            Self::MalformedPayload => "malformed_payload",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolError {
    /// A not-found error with suggestions.
    pub fn not_found(name: impl Into<String>, suggestions: Vec<String>) -> Self {
        Self::NotFound {
            name: name.into(),
            suggestions,
        }
    }

    /// An execution failure that is not worth retrying.
    pub fn execution(tool: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Execution {
            tool: tool.into(),
            message: message.into(),
            retryable: false,
        }
    }

    /// Invalid arguments with a single violation.
    pub fn invalid_argument(
        tool: impl Into<String>,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::InvalidArguments {
            tool: tool.into(),
            violations: vec![Violation::new(pointer, message)],
        }
    }

    /// The kind, for matching.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::NotFound { .. } => ErrorKind::NotFound,
            Self::InvalidName { .. } => ErrorKind::InvalidName,
            Self::InvalidDefinition { .. } => ErrorKind::InvalidDefinition,
            Self::PermissionDenied { .. } => ErrorKind::PermissionDenied,
            Self::ApprovalRequired { .. } => ErrorKind::ApprovalRequired,
            Self::ApprovalDeclined { .. } => ErrorKind::ApprovalDeclined,
            Self::ApprovalExpired { .. } => ErrorKind::ApprovalExpired,
            Self::InvalidArguments { .. } => ErrorKind::InvalidArguments,
            Self::InvalidOutput { .. } => ErrorKind::InvalidOutput,
            Self::Execution { .. } => ErrorKind::Execution,
            Self::Timeout { .. } => ErrorKind::Timeout,
            Self::Cancelled { .. } => ErrorKind::Cancelled,
            Self::Transport { .. } => ErrorKind::Transport,
            Self::DuplicateName { .. } => ErrorKind::DuplicateName,
            Self::NotActive { .. } => ErrorKind::NotActive,
            Self::Panicked { .. } => ErrorKind::Panicked,
            Self::StrictSchema { .. } => ErrorKind::StrictSchema,
            Self::MalformedPayload { .. } => ErrorKind::MalformedPayload,
        }
    }

    /// Whether the same call may succeed if run again unchanged: timeouts,
    /// transport failures and execution failures marked retryable.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Timeout { .. } | Self::Transport { .. } => true,
            Self::Execution { retryable, .. } => *retryable,
            _ => false,
        }
    }

    /// The text to send back to the model: what happened and what to do next.
    pub fn model_message(&self) -> String {
        match self {
            Self::NotFound { name, suggestions } if suggestions.is_empty() => format!(
                "Error: no tool named `{name}` exists. Use only the tools you were given, or search for one with tool_search."
            ),
            Self::NotFound { name, suggestions } => format!(
                "Error: no tool named `{name}` exists. Did you mean: {}? Call one of those instead.",
                suggestions.join(", ")
            ),
            Self::InvalidName { name, reason } => {
                format!("Error: {name:?} is not a valid tool name ({reason}). Use the exact name from the tool list.")
            }
            Self::InvalidDefinition { tool, reason } => format!(
                "Error: tool `{tool}` is misconfigured ({reason}) and cannot be used. Try another tool."
            ),
            Self::PermissionDenied { tool, reason } => format!(
                "Error: you are not allowed to call `{tool}` ({reason}). Do not retry it; choose another approach."
            ),
            Self::ApprovalRequired { tool, reason } => format!(
                "The call to `{tool}` needs the user's approval ({reason}). Wait for the user, or choose another approach."
            ),
            Self::ApprovalDeclined { tool, feedback: Some(f) } => format!(
                "The user declined the call to `{tool}` and said: \"{f}\". Adjust your plan accordingly; do not repeat the same call."
            ),
            Self::ApprovalDeclined { tool, feedback: None } => format!(
                "The user declined the call to `{tool}`. Do not repeat the same call; ask the user how to proceed."
            ),
            Self::ApprovalExpired { tool, .. } => format!(
                "Nobody approved the call to `{tool}` in time. Ask the user before trying it again."
            ),
            Self::InvalidArguments { tool, violations } => format!(
                "Error: invalid arguments for `{tool}`. Fix these fields and call it again: {}",
                list(violations)
            ),
            Self::InvalidOutput { tool, violations } => format!(
                "Error: `{tool}` returned a result that does not match its declared output ({}). Treat the call as failed.",
                list(violations)
            ),
            Self::Execution { tool, message, retryable: true } => {
                format!("Error: `{tool}` failed: {message}. It may succeed if you try again.")
            }
            Self::Execution { tool, message, .. } => {
                format!("Error: `{tool}` failed: {message}.")
            }
            Self::Timeout { tool, after } => format!(
                "Error: `{tool}` did not finish within {:.1}s. Try a smaller request, or try again.",
                after.as_secs_f64()
            ),
            Self::Cancelled { tool } => format!("The call to `{tool}` was cancelled."),
            Self::Transport { tool, origin, .. } => format!(
                "Error: `{tool}` is temporarily unavailable (its source `{origin}` is not reachable). Try again later or use another tool."
            ),
            Self::DuplicateName { name } => format!(
                "Error: more than one tool is named `{name}`; this is a configuration problem, not yours."
            ),
            Self::NotActive { tool } => format!(
                "Error: `{tool}` is not active yet. Search for it first (with `shed` or tool_search), then call it."
            ),
            Self::Panicked { tool, .. } => format!(
                "Error: `{tool}` crashed while running. Do not retry the same call."
            ),
            Self::StrictSchema { .. } | Self::MalformedPayload { .. } => format!("Error: {self}."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_arguments_message_names_each_field() {
        let err = ToolError::InvalidArguments {
            tool: "t".into(),
            violations: vec![
                Violation::new("/a", "expected integer"),
                Violation::new("", "missing property `b`"),
            ],
        };
        let msg = err.model_message();
        assert!(msg.contains("/a: expected integer"), "{msg}");
        assert!(msg.contains("(root): missing property `b`"), "{msg}");
        assert_eq!(err.kind(), ErrorKind::InvalidArguments);
    }

    #[test]
    fn retryable_kinds() {
        assert!(ToolError::Timeout {
            tool: "t".into(),
            after: Duration::from_secs(1)
        }
        .is_retryable());
        assert!(!ToolError::execution("t", "boom").is_retryable());
        assert!(!ToolError::Cancelled { tool: "t".into() }.is_retryable());
    }

    #[test]
    fn kind_names_are_snake_case() {
        assert_eq!(ErrorKind::ApprovalExpired.to_string(), "approval_expired");
        assert_eq!(
            serde_json::to_string(&ErrorKind::NotActive).unwrap(),
            "\"not_active\""
        );
    }
}
