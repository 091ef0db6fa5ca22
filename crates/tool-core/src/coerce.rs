//! Lax mode: coerce arguments toward their schema before validating.
//!
//! Text-based backends (and some weaker models) send every value as a
//! string. In lax mode `"5"` becomes `5` where an integer is asked for,
//! `"true"` becomes `true`, `"null"` becomes `null`, a JSON-encoded object
//! or array inside a string is decoded, and a lone value becomes a
//! one-element array. Values that cannot be coerced are left as they are,
//! so validation still reports them.

use serde_json::{Map, Number, Value};

/// How deep `$ref` chains and nesting are followed before giving up.
const MAX_COERCE_DEPTH: usize = 64;

/// Coerce `value` toward `schema` (whose own `$defs` and `#/...` references
/// are resolved against it).
///
/// ```
/// use serde_json::json;
/// use tool_core::coerce_to_schema;
/// let schema = json!({"type": "object", "properties": {
///     "n": {"type": "integer"}, "flag": {"type": "boolean"},
///     "tags": {"type": "array", "items": {"type": "string"}}
/// }});
/// let args = coerce_to_schema(json!({"n": "5", "flag": "true", "tags": "x"}), &schema);
/// assert_eq!(args, json!({"n": 5, "flag": true, "tags": ["x"]}));
/// ```
pub fn coerce_to_schema(value: Value, schema: &Value) -> Value {
    coerce(value, schema, schema, 0)
}

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..MAX_COERCE_DEPTH {
        match current.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with('#') => match root.pointer(&r[1..]) {
                Some(target) => current = target,
                None => return current,
            },
            _ => return current,
        }
    }
    current
}

fn schema_types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn matches_type(value: &Value, t: &str) -> bool {
    match t {
        "string" => value.is_string(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn convert(value: &Value, t: &str) -> Option<Value> {
    let text = value.as_str()?.trim();
    match t {
        "integer" => text.parse::<i64>().ok().map(Value::from).or_else(|| {
            let f = text.parse::<f64>().ok()?;
            #[allow(clippy::float_cmp)]
            (f.fract() == 0.0 && f.abs() < 9.0e15).then(|| Value::from(f as i64))
        }),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(|n| text.parse::<i64>().map_or(Value::Number(n), Value::from)),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (text == "null" || text.is_empty()).then_some(Value::Null),
        "array" | "object" => serde_json::from_str::<Value>(text)
            .ok()
            .filter(|v| matches_type(v, t)),
        _ => None,
    }
}

fn coerce(value: Value, schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_COERCE_DEPTH {
        return value;
    }
    let schema = resolve(schema, root);
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return coerce_alternatives(value, options, root, depth);
        }
    }
    let types = schema_types(schema);
    let value = if types.is_empty() || types.iter().any(|t| matches_type(&value, t)) {
        value
    } else if let Some(converted) = types.iter().find_map(|t| convert(&value, t)) {
        converted
    } else if types.contains(&"array") {
        Value::Array(vec![value])
    } else {
        value
    };
    match value {
        Value::Object(map) => Value::Object(coerce_object(map, schema, root, depth)),
        Value::Array(items) => Value::Array(coerce_array(items, schema, root, depth)),
        other => other,
    }
}

fn coerce_alternatives(value: Value, options: &[Value], root: &Value, depth: usize) -> Value {
    // A value that already fits one alternative's type goes down that one.
    let fits = options.iter().find(|o| {
        let o = resolve(o, root);
        let types = schema_types(o);
        types.is_empty() || types.iter().any(|t| matches_type(&value, t))
    });
    if let Some(option) = fits {
        return coerce(value, option, root, depth + 1);
    }
    for option in options {
        let option = resolve(option, root);
        if let Some(converted) = schema_types(option).iter().find_map(|t| convert(&value, t)) {
            return coerce(converted, option, root, depth + 1);
        }
    }
    value
}

fn coerce_object(
    map: Map<String, Value>,
    schema: &Value,
    root: &Value,
    depth: usize,
) -> Map<String, Value> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|a| a.is_object());
    map.into_iter()
        .map(|(k, v)| {
            let sub = properties.and_then(|p| p.get(&k)).or(additional);
            let v = match sub {
                Some(sub) => coerce(v, sub, root, depth + 1),
                None => v,
            };
            (k, v)
        })
        .collect()
}

fn coerce_array(items: Vec<Value>, schema: &Value, root: &Value, depth: usize) -> Vec<Value> {
    let prefix = schema.get("prefixItems").and_then(Value::as_array);
    let rest = schema.get("items").filter(|i| i.is_object());
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| match prefix.and_then(|p| p.get(i)).or(rest) {
            Some(sub) => coerce(v, sub, root, depth + 1),
            None => v,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_and_nulls_and_refs() {
        let schema = json!({
            "type": "object",
            "properties": {
                "x": {"type": "number"},
                "maybe": {"type": ["integer", "null"]},
                "inner": {"$ref": "#/$defs/Inner"}
            },
            "$defs": {"Inner": {"type": "object", "properties": {"k": {"type": "integer"}}}}
        });
        let out = coerce_to_schema(
            json!({"x": "2.5", "maybe": "null", "inner": "{\"k\": \"3\"}"}),
            &schema,
        );
        assert_eq!(out, json!({"x": 2.5, "maybe": null, "inner": {"k": 3}}));
    }

    #[test]
    fn uncoercible_values_are_left_for_validation() {
        let schema = json!({"type":"object","properties":{"n":{"type":"integer"}}});
        assert_eq!(
            coerce_to_schema(json!({"n": "five"}), &schema),
            json!({"n": "five"})
        );
    }

    #[test]
    fn any_of_picks_the_alternative_that_converts() {
        let schema = json!({"anyOf": [{"type": "boolean"}, {"type": "integer"}]});
        assert_eq!(coerce_to_schema(json!("7"), &schema), json!(7));
        assert_eq!(coerce_to_schema(json!("false"), &schema), json!(false));
    }

    #[test]
    fn self_referencing_schema_terminates() {
        let schema = json!({"$ref": "#"});
        assert_eq!(coerce_to_schema(json!("x"), &schema), json!("x"));
    }
}
