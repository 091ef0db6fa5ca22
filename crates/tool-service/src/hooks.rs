//! Hooks: before a call (rewrite arguments or veto), after it (redact).

use async_trait::async_trait;
use serde_json::Value;
use tool_core::{CallContext, ToolDefinition, ToolOutput};

/// What a before-hook decides.
#[derive(Debug, Clone, PartialEq)]
pub enum HookVerdict {
    /// Go on with these arguments (maybe rewritten).
    Continue(Value),
    /// Refuse the call, with a reason for the model.
    Veto(String),
}

/// A hook around every call. Both methods have pass-through defaults.
///
/// ```
/// use async_trait::async_trait;
/// use serde_json::Value;
/// use tool_core::{CallContext, ToolDefinition, ToolOutput};
/// use tool_service::{CallHook, HookVerdict};
///
/// /// Hide secrets from the model.
/// struct Redact;
/// #[async_trait]
/// impl CallHook for Redact {
///     async fn after(&self, _def: &ToolDefinition, mut out: ToolOutput, _ctx: &CallContext) -> ToolOutput {
///         let text = out.to_text().replace("hunter2", "[redacted]");
///         out.content = vec![tool_core::Content::Text { text }];
///         out
///     }
/// }
/// ```
#[async_trait]
pub trait CallHook: Send + Sync + 'static {
    /// Before validation: rewrite the arguments or veto the call.
    async fn before(&self, _def: &ToolDefinition, args: Value, _ctx: &CallContext) -> HookVerdict {
        HookVerdict::Continue(args)
    }
    /// After the run: redact or annotate the output.
    async fn after(
        &self,
        _def: &ToolDefinition,
        output: ToolOutput,
        _ctx: &CallContext,
    ) -> ToolOutput {
        output
    }
}
