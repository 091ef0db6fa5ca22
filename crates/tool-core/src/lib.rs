//! # tool-core
//!
//! The base layer of toolstack: what a tool *is*, and how it meets a model.
//!
//! - [`ToolDefinition`] with [`ToolFacts`], [`ToolSource`] and
//!   [`ToolCategory`]; names checked against the strictest provider rule.
//! - Tool traits: typed [`Tool`] (schemas derived with schemars), untyped
//!   [`DynTool`], closures ([`FnTool`]) and [`MultiCommandTool`].
//! - [`CallContext`] (ids, cancellation, deadline, host data) and
//!   [`ToolOutput`].
//! - The [`ToolError`] taxonomy with [`ToolError::kind`] and model-facing
//!   messages.
//! - Validation with cached [`CompiledSchema`]s, input limits, lax
//!   coercion ([`coerce_to_schema`]) and the [`ToolArgs`] reader.
//! - Provider wire formats ([`Provider`], [`render_tools`],
//!   [`to_strict_schema`], [`parse_tool_calls`]).
//!
//! ```
//! use serde_json::json;
//! use tool_core::{render_tools_bytes, Provider, RenderOptions, ToolDefinition};
//!
//! let def = ToolDefinition::builder("get_weather", "Current weather for a city.")
//!     .input_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))
//!     .build()?;
//! def.validate_input(&json!({"city": "Oslo"}))?;
//! let bytes = render_tools_bytes(Provider::OpenAiChat, &[def], RenderOptions::default())?;
//! assert!(bytes.starts_with(r#"[{"type":"function","function":{"name":"get_weather""#));
//! # Ok::<(), tool_core::ToolError>(())
//! ```

mod args;
mod coerce;
mod context;
mod definition;
mod error;
mod facts;
mod name;
mod output;
mod suggest;
mod tool;
mod validation;
mod wire;

pub use args::ToolArgs;
pub use coerce::coerce_to_schema;
pub use context::{CallContext, CancellationToken, Extensions};
pub use definition::{DefinitionBuilder, ToolCategory, ToolDefinition, ToolSource};
pub use error::{ErrorKind, ToolError, Violation};
pub use facts::ToolFacts;
pub use name::{validate_tool_name, ToolName, MAX_TOOL_NAME_LEN};
pub use output::{Content, ToolOutput};
pub use suggest::{closest_names, fold_tool_name};
pub use tool::{
    schema_for_type, BoxFuture, DynTool, FnTool, FnToolBuilder, IntoDynTool, MultiCommandBuilder,
    MultiCommandTool, SharedTool, Tool, TypedTool,
};
pub use validation::{check_value_limits, parse_arguments, CompiledSchema, ValidationLimits};
pub use wire::{
    parse_text_tool_calls, parse_tool_calls, parse_tool_definition, parse_tool_definitions,
    render_tool, render_tools, render_tools_bytes, to_strict_schema, DefinitionFormat, Provider,
    RenderOptions, ToolCall, TEXT_FORMAT_PREAMBLE,
};
