//! OpenAI strict mode: every object closed, every property required,
//! optional properties made nullable. Written by hand: no crate converts
//! schemas to OpenAI's strict subset.

use serde_json::{json, Map, Value};

use crate::args::pointer_segment;
use crate::ToolError;

/// Keywords strict mode cannot express; converting is refused rather than
/// silently changing what the schema accepts.
const REFUSED: &[(&str, &str)] = &[
    ("oneOf", "strict mode supports anyOf, not oneOf"),
    ("allOf", "strict mode does not support allOf"),
    ("not", "strict mode does not support not"),
    ("if", "strict mode does not support if/then/else"),
    (
        "patternProperties",
        "strict mode does not support patternProperties",
    ),
    (
        "dependentSchemas",
        "strict mode does not support dependentSchemas",
    ),
    (
        "prefixItems",
        "strict mode does not support tuples (prefixItems)",
    ),
];

fn fail(path: &str, keyword: &str, reason: &str) -> ToolError {
    ToolError::StrictSchema {
        path: if path.is_empty() {
            "/".into()
        } else {
            path.into()
        },
        keyword: keyword.into(),
        reason: reason.into(),
    }
}

/// Convert an object schema to OpenAI strict form, or say which keyword at
/// which path cannot be made strict.
///
/// ```
/// use serde_json::json;
/// use tool_core::to_strict_schema;
/// let strict = to_strict_schema(&json!({
///     "type": "object",
///     "properties": {"q": {"type": "string"}, "limit": {"type": "integer", "default": 5}},
///     "required": ["q"]
/// })).unwrap();
/// assert_eq!(strict, json!({
///     "type": "object",
///     "properties": {"q": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
///     "required": ["q", "limit"],
///     "additionalProperties": false
/// }));
/// let err = to_strict_schema(&json!({"type": "object", "additionalProperties": true})).unwrap_err();
/// assert!(err.to_string().contains("additionalProperties"));
/// ```
pub fn to_strict_schema(schema: &Value) -> Result<Value, ToolError> {
    let Some(obj) = schema.as_object() else {
        return Err(fail("", "type", "the root schema must be a JSON object"));
    };
    let is_object = obj.get("type").is_none_or(|t| t == "object");
    if !is_object || obj.contains_key("anyOf") {
        return Err(fail(
            "",
            "type",
            "the root schema must be a plain object schema",
        ));
    }
    let mut root = obj.clone();
    root.entry("type").or_insert_with(|| json!("object"));
    convert(&Value::Object(root), "")
}

fn convert(node: &Value, path: &str) -> Result<Value, ToolError> {
    let Some(obj) = node.as_object() else {
        return Err(fail(
            path,
            "type",
            "a schema must be an object (boolean schemas cannot be strict)",
        ));
    };
    for (keyword, reason) in REFUSED {
        if obj.contains_key(*keyword) {
            return Err(fail(path, keyword, reason));
        }
    }
    if obj.contains_key("$ref") {
        let extra = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "$ref" | "description"));
        if let Some(k) = extra {
            return Err(fail(
                path,
                k,
                "a $ref may only be accompanied by a description",
            ));
        }
        return Ok(node.clone());
    }
    let has_type = obj.contains_key("type");
    let has_choice =
        obj.contains_key("anyOf") || obj.contains_key("enum") || obj.contains_key("const");
    if !has_type && !has_choice && !obj.contains_key("properties") {
        return Err(fail(
            path,
            "type",
            "a schema without a type accepts anything, which strict mode cannot express",
        ));
    }
    let types = types_of(obj);
    let mut out = convert_keywords(obj, path)?;
    if types.contains(&"array") && !obj.contains_key("items") {
        return Err(fail(
            path,
            "items",
            "an array without an items schema cannot be strict",
        ));
    }
    if types.contains(&"object") || obj.contains_key("properties") {
        if !out.contains_key("properties") {
            out.insert("properties".into(), Value::Object(Map::new()));
        }
        let names: Vec<Value> = out["properties"]
            .as_object()
            .map(|p| p.keys().cloned().map(Value::String).collect())
            .unwrap_or_default();
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Ok(Value::Object(out))
}

/// Convert each keyword of one schema node; `required` is rebuilt and
/// `default` dropped (every property is required in strict mode).
fn convert_keywords(obj: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, ToolError> {
    let mut out = Map::new();
    for (key, value) in obj {
        let sub = format!("{path}/{}", pointer_segment(key));
        match key.as_str() {
            "default" | "required" => {}
            "properties" => {
                out.insert(
                    key.clone(),
                    Value::Object(convert_properties(obj, value, &sub)?),
                );
            }
            "additionalProperties" => {
                if *value != Value::Bool(false) {
                    return Err(fail(
                        &sub,
                        "additionalProperties",
                        "an open map (additionalProperties other than false) cannot be strict",
                    ));
                }
            }
            "items" => {
                out.insert(key.clone(), convert(value, &sub)?);
            }
            "anyOf" => {
                let options = value
                    .as_array()
                    .ok_or_else(|| fail(&sub, "anyOf", "anyOf must be an array"))?;
                let converted = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| convert(o, &format!("{sub}/{i}")))
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert(key.clone(), Value::Array(converted));
            }
            "$defs" | "definitions" => {
                let defs = value
                    .as_object()
                    .ok_or_else(|| fail(&sub, key, "definitions must be an object"))?;
                let mut converted = Map::new();
                for (name, def) in defs {
                    converted.insert(
                        name.clone(),
                        convert(def, &format!("{sub}/{}", pointer_segment(name)))?,
                    );
                }
                out.insert(key.clone(), Value::Object(converted));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(out)
}

fn types_of(obj: &Map<String, Value>) -> Vec<&str> {
    match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn convert_properties(
    parent: &Map<String, Value>,
    props: &Value,
    path: &str,
) -> Result<Map<String, Value>, ToolError> {
    let props = props
        .as_object()
        .ok_or_else(|| fail(path, "properties", "properties must be an object"))?;
    let required: Vec<&str> = parent
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    for (name, schema) in props {
        let sub = format!("{path}/{}", pointer_segment(name));
        let converted = convert(schema, &sub)?;
        let converted = if required.contains(&name.as_str()) {
            converted
        } else {
            make_nullable(converted)
        };
        out.insert(name.clone(), converted);
    }
    Ok(out)
}

/// Let a (converted) schema also accept `null`, the strict-mode spelling of
/// "optional".
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut obj) = schema else {
        return schema;
    };
    if obj.contains_key("$ref") {
        return json!({"anyOf": [Value::Object(obj), {"type": "null"}]});
    }
    if let Some(Value::Array(options)) = obj.get_mut("anyOf") {
        if !options
            .iter()
            .any(|o| o.get("type") == Some(&json!("null")))
        {
            options.push(json!({"type": "null"}));
        }
        return Value::Object(obj);
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    match obj.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            obj.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.contains(&json!("null")) => ts.push(json!("null")),
        _ => {}
    }
    Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_objects_and_defs_are_closed() {
        let strict = to_strict_schema(&json!({
            "type": "object",
            "properties": {"inner": {"$ref": "#/$defs/I"}},
            "$defs": {"I": {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}}}
        }))
        .unwrap();
        assert_eq!(
            strict["properties"]["inner"],
            json!({"anyOf": [{"$ref": "#/$defs/I"}, {"type": "null"}]})
        );
        assert_eq!(strict["$defs"]["I"]["additionalProperties"], json!(false));
        assert_eq!(
            strict["$defs"]["I"]["properties"]["a"]["enum"],
            json!(["x", null])
        );
    }

    #[test]
    fn refusals_name_path_and_keyword() {
        let err = to_strict_schema(&json!({
            "type": "object",
            "properties": {"x": {"oneOf": [{"type": "string"}]}}
        }))
        .unwrap_err();
        match err {
            ToolError::StrictSchema { path, keyword, .. } => {
                assert_eq!(path, "/properties/x");
                assert_eq!(keyword, "oneOf");
            }
            other => panic!("unexpected {other:?}"),
        }
        let err = to_strict_schema(&json!({"type":"object","properties":{"any":{}}})).unwrap_err();
        assert!(err.to_string().contains("/properties/any"));
    }
}
