//! Read tool definitions written in any provider's format, detected per
//! entry: toolstack's own `ToolDefinition`, OpenAI Chat, OpenAI Responses,
//! Anthropic, MCP `tools/list`, and BFCL-style functions.

use serde_json::{json, Map, Value};

use crate::{ToolDefinition, ToolError, ToolFacts, ToolSource};

/// The format an entry was recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionFormat {
    /// toolstack's own serde shape.
    Toolstack,
    /// `{"type": "function", "function": {...}}`.
    OpenAiChat,
    /// `{"type": "function", "name", "parameters"}`.
    OpenAiResponses,
    /// `{"name", "description", "input_schema"}`.
    Anthropic,
    /// `{"name", "inputSchema", "annotations"?}`.
    Mcp,
    /// `{"name", "parameters": {"type": "dict", ...}}` and other bare
    /// function objects.
    Bfcl,
}

fn invalid(index: usize, reason: impl Into<String>) -> ToolError {
    ToolError::MalformedPayload {
        pointer: format!("/{index}"),
        reason: reason.into(),
    }
}

/// BFCL's Python-flavoured types mapped to JSON Schema: `dict` → object,
/// `float` → number, `tuple` → array, `any` → no type.
fn bfcl_to_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("type", Value::String(t)) => match t.as_str() {
                        "dict" => {
                            out.insert(k.clone(), json!("object"));
                        }
                        "float" => {
                            out.insert(k.clone(), json!("number"));
                        }
                        "tuple" => {
                            out.insert(k.clone(), json!("array"));
                        }
                        "any" => {}
                        _ => {
                            out.insert(k.clone(), v.clone());
                        }
                    },
                    _ => {
                        out.insert(k.clone(), bfcl_to_json_schema(v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(bfcl_to_json_schema).collect()),
        other => other.clone(),
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn build(
    index: usize,
    name: &str,
    description: &str,
    schema: Option<&Value>,
) -> Result<ToolDefinition, ToolError> {
    let schema = schema
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    ToolDefinition::builder(name, description)
        .input_schema(schema)
        .build()
        .map_err(|e| invalid(index, e.to_string()))
}

fn mcp_facts(annotations: &Value) -> ToolFacts {
    let flag = |k: &str| annotations.get(k).and_then(Value::as_bool);
    ToolFacts {
        read_only: flag("readOnlyHint"),
        destructive: flag("destructiveHint"),
        idempotent: flag("idempotentHint"),
        open_world: flag("openWorldHint"),
        requires_approval: None,
    }
}

/// Read one entry, recognising its format. `index` is used in errors.
///
/// ```
/// use serde_json::json;
/// use tool_core::{parse_tool_definition, DefinitionFormat};
/// let (def, format) = parse_tool_definition(0, &json!({
///     "name": "get_weather", "description": "Weather.",
///     "parameters": {"type": "dict", "properties": {"lat": {"type": "float"}}}
/// })).unwrap();
/// assert_eq!(format, DefinitionFormat::Bfcl);
/// assert_eq!(def.input_schema()["properties"]["lat"]["type"], "number");
/// let err = parse_tool_definition(3, &json!({"title": "x"})).unwrap_err();
/// assert!(err.to_string().contains("/3"));
/// ```
pub fn parse_tool_definition(
    index: usize,
    entry: &Value,
) -> Result<(ToolDefinition, DefinitionFormat), ToolError> {
    if !entry.is_object() {
        return Err(invalid(index, "a tool definition must be a JSON object"));
    }
    if entry.get("type").and_then(Value::as_str) == Some("function") {
        if let Some(function) = entry.get("function") {
            let name = str_of(function, "name")
                .ok_or_else(|| invalid(index, "OpenAI Chat tool without function.name"))?;
            let def = build(
                index,
                name,
                str_of(function, "description").unwrap_or_default(),
                function.get("parameters"),
            )?;
            return Ok((def, DefinitionFormat::OpenAiChat));
        }
        let name = str_of(entry, "name")
            .ok_or_else(|| invalid(index, "OpenAI Responses tool without name"))?;
        let def = build(
            index,
            name,
            str_of(entry, "description").unwrap_or_default(),
            entry.get("parameters"),
        )?;
        return Ok((def, DefinitionFormat::OpenAiResponses));
    }
    let Some(name) = str_of(entry, "name") else {
        return Err(invalid(
            index,
            "matches no known tool format (no `name`, no `function`)",
        ));
    };
    let description = str_of(entry, "description").unwrap_or_default();
    if let Some(schema) = entry.get("input_schema") {
        // Anthropic's shape has only these keys; anything more is ours.
        if entry.as_object().is_some_and(|o| {
            o.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "name" | "description" | "input_schema" | "cache_control"
                )
            })
        }) {
            return Ok((
                build(index, name, description, Some(schema))?,
                DefinitionFormat::Anthropic,
            ));
        }
        let def: ToolDefinition =
            serde_json::from_value(entry.clone()).map_err(|e| invalid(index, e.to_string()))?;
        return Ok((def, DefinitionFormat::Toolstack));
    }
    if let Some(schema) = entry.get("inputSchema") {
        let mut def = build(index, name, description, Some(schema))?;
        if let Some(out) = entry.get("outputSchema") {
            def = ToolDefinition::builder(def.name(), def.description())
                .input_schema(def.input_schema().clone())
                .output_schema(out.clone())
                .build()
                .map_err(|e| invalid(index, e.to_string()))?;
        }
        if let Some(annotations) = entry.get("annotations") {
            def = def.with_facts(mcp_facts(annotations));
        }
        return Ok((
            def.with_source(ToolSource::mcp("imported")),
            DefinitionFormat::Mcp,
        ));
    }
    if let Some(params) = entry.get("parameters") {
        let schema = bfcl_to_json_schema(params);
        return Ok((
            build(index, name, description, Some(&schema))?,
            DefinitionFormat::Bfcl,
        ));
    }
    Err(invalid(
        index,
        "matches no known tool format (no parameters, input_schema or inputSchema)",
    ))
}

/// Read a whole catalog: a JSON array of entries in any supported format
/// (an MCP `tools/list` result `{"tools": [...]}` is accepted too).
pub fn parse_tool_definitions(catalog: &Value) -> Result<Vec<ToolDefinition>, ToolError> {
    let entries = match catalog {
        Value::Array(items) => items,
        Value::Object(o) => match o.get("tools") {
            Some(Value::Array(items)) => items,
            _ => {
                return Err(ToolError::MalformedPayload {
                    pointer: String::new(),
                    reason: "a catalog is a JSON array of tool definitions (or {\"tools\": [...]})"
                        .into(),
                })
            }
        },
        _ => {
            return Err(ToolError::MalformedPayload {
                pointer: String::new(),
                reason: "a catalog is a JSON array of tool definitions".into(),
            })
        }
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| parse_tool_definition(i, e).map(|(d, _)| d))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_detected() {
        let cases = [
            (
                json!({"type":"function","function":{"name":"a","parameters":{"type":"object"}}}),
                DefinitionFormat::OpenAiChat,
            ),
            (
                json!({"type":"function","name":"a","parameters":{"type":"object"}}),
                DefinitionFormat::OpenAiResponses,
            ),
            (
                json!({"name":"a","description":"d","input_schema":{"type":"object"}}),
                DefinitionFormat::Anthropic,
            ),
            (
                json!({"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}),
                DefinitionFormat::Mcp,
            ),
            (
                json!({"name":"a","input_schema":{"type":"object"},"source":{"kind":"built_in"}}),
                DefinitionFormat::Toolstack,
            ),
        ];
        for (entry, format) in cases {
            assert_eq!(
                parse_tool_definition(0, &entry).unwrap().1,
                format,
                "{entry}"
            );
        }
        let (mcp, _) = parse_tool_definition(0, &cases_mcp()).unwrap();
        assert_eq!(mcp.facts().read_only, Some(true));
        assert_eq!(
            mcp.facts().idempotent,
            None,
            "absent annotations stay unknown"
        );
    }

    fn cases_mcp() -> Value {
        json!({"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}})
    }
}
