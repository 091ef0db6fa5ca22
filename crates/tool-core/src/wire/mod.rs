//! Provider wire formats: render definitions for each provider, convert
//! schemas to OpenAI strict form, and parse tool calls back.
//!
//! Rendering is byte-stable: the same definitions always give the same
//! bytes, keys in a fixed order (wrapper keys as written here, schema keys
//! in the order of the definition).

mod gemini;
mod import;
mod parse;
mod strict;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::{ToolDefinition, ToolError};

pub use import::{parse_tool_definition, parse_tool_definitions, DefinitionFormat};
pub use parse::{parse_text_tool_calls, parse_tool_calls, ToolCall};
pub use strict::to_strict_schema;

/// The tool formats toolstack can render and parse.
///
/// ```
/// use tool_core::Provider;
/// let p: Provider = "anthropic".parse().unwrap();
/// assert_eq!(p, Provider::Anthropic);
/// assert_eq!(p.to_string(), "anthropic");
/// assert!("claude".parse::<Provider>().unwrap_err().contains("openai-chat"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// OpenAI Chat Completions `tools`.
    OpenAiChat,
    /// OpenAI Responses `tools`.
    OpenAiResponses,
    /// Anthropic Messages `tools`.
    Anthropic,
    /// Gemini `functionDeclarations`.
    Gemini,
    /// Plain text in the system prompt, for models without native tools.
    Text,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Provider; 5] = [
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Anthropic,
        Self::Gemini,
        Self::Text,
    ];

    /// The kebab-case name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
            Self::Text => "text",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|p| p.as_str()).collect();
                format!(
                    "unknown provider {s:?}; expected one of: {}",
                    names.join(", ")
                )
            })
    }
}

/// Options for rendering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderOptions {
    /// OpenAI strict mode (Chat and Responses only): convert each schema to
    /// strict form, failing with a typed error when one cannot be.
    pub strict: bool,
}

/// Render one definition for `provider`. For [`Provider::Text`] the value
/// is a string.
///
/// ```
/// use serde_json::json;
/// use tool_core::{render_tool, Provider, RenderOptions, ToolDefinition};
/// let def = ToolDefinition::builder("ping", "Ping a host.").build().unwrap();
/// let v = render_tool(Provider::Anthropic, &def, RenderOptions::default()).unwrap();
/// assert_eq!(v.to_string(),
///     r#"{"name":"ping","description":"Ping a host.","input_schema":{"type":"object","properties":{}}}"#);
/// ```
pub fn render_tool(
    provider: Provider,
    def: &ToolDefinition,
    options: RenderOptions,
) -> Result<Value, ToolError> {
    let parameters = || -> Result<Value, ToolError> {
        if options.strict {
            to_strict_schema(def.input_schema()).map_err(|e| with_tool(e, def.name()))
        } else {
            Ok(def.input_schema().clone())
        }
    };
    Ok(match provider {
        Provider::OpenAiChat => {
            let mut function = json!({
                "name": def.name(),
                "description": def.description(),
                "parameters": parameters()?,
            });
            if options.strict {
                function["strict"] = Value::Bool(true);
            }
            json!({"type": "function", "function": function})
        }
        Provider::OpenAiResponses => json!({
            "type": "function",
            "name": def.name(),
            "description": def.description(),
            "parameters": parameters()?,
            "strict": options.strict,
        }),
        Provider::Anthropic => json!({
            "name": def.name(),
            "description": def.description(),
            "input_schema": def.input_schema(),
        }),
        Provider::Gemini => json!({
            "name": def.name(),
            "description": def.description(),
            "parameters": gemini::to_gemini_schema(def.input_schema()),
        }),
        Provider::Text => Value::String(render_text_tool(def)),
    })
}

fn with_tool(err: ToolError, tool: &str) -> ToolError {
    match err {
        ToolError::StrictSchema {
            path,
            keyword,
            reason,
        } => ToolError::StrictSchema {
            path,
            keyword,
            reason: format!("{reason} (tool `{tool}`)"),
        },
        other => other,
    }
}

fn render_text_tool(def: &ToolDefinition) -> String {
    let mut out = format!(
        "### {}\n{}\nParameters (JSON Schema): {}",
        def.name(),
        def.description(),
        def.input_schema()
    );
    if let Some(output) = def.output_schema() {
        out.push_str("\nReturns: ");
        out.push_str(&output.to_string());
    }
    out
}

/// The instructions that head the text format.
pub const TEXT_FORMAT_PREAMBLE: &str =
    "You can call the tools below. To call one, reply with a block \
<tool_call>{\"name\": \"TOOL_NAME\", \"arguments\": {...}}</tool_call> for each call, \
with arguments matching the tool's parameters.";

/// Render many definitions: a JSON array for native providers, one string
/// (preamble then one section per tool) for [`Provider::Text`].
pub fn render_tools(
    provider: Provider,
    defs: &[ToolDefinition],
    options: RenderOptions,
) -> Result<Value, ToolError> {
    let rendered = defs
        .iter()
        .map(|d| render_tool(provider, d, options))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(match provider {
        Provider::Text => {
            let mut text = String::from(TEXT_FORMAT_PREAMBLE);
            for part in rendered {
                text.push_str("\n\n");
                text.push_str(part.as_str().unwrap_or_default());
            }
            Value::String(text)
        }
        _ => Value::Array(rendered),
    })
}

/// The exact bytes sent: compact JSON for native providers, the text itself
/// for [`Provider::Text`].
pub fn render_tools_bytes(
    provider: Provider,
    defs: &[ToolDefinition],
    options: RenderOptions,
) -> Result<String, ToolError> {
    Ok(match render_tools(provider, defs, options)? {
        Value::String(text) => text,
        other => other.to_string(),
    })
}
