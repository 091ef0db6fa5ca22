//! Gemini accepts an OpenAPI subset of JSON Schema: this maps a schema to
//! it (references inlined, type unions to `nullable`, unknown keywords
//! dropped). Written by hand: no crate does this conversion.

use serde_json::{Map, Value};

const KEEP: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// How deep references are inlined before a recursive one is cut.
const MAX_INLINE_DEPTH: usize = 16;

pub(crate) fn to_gemini_schema(schema: &Value) -> Value {
    convert(schema, schema, 0)
}

fn convert(node: &Value, root: &Value, depth: usize) -> Value {
    let Some(obj) = node.as_object() else {
        return node.clone();
    };
    if let Some(target) = obj.get("$ref").and_then(Value::as_str) {
        let resolved = target.strip_prefix('#').and_then(|p| root.pointer(p));
        return match resolved {
            Some(t) if depth < MAX_INLINE_DEPTH => {
                let mut inlined = convert(t, root, depth + 1);
                if let (Some(desc), Some(map)) = (obj.get("description"), inlined.as_object_mut()) {
                    map.insert("description".into(), desc.clone());
                }
                inlined
            }
            _ => serde_json::json!({"type": "object"}),
        };
    }
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "type" => match value {
                Value::Array(types) => {
                    let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
                    if let Some(first) = non_null.first() {
                        out.insert("type".into(), (*first).clone());
                    }
                    if non_null.len() < types.len() {
                        out.insert("nullable".into(), Value::Bool(true));
                    }
                }
                other => {
                    out.insert("type".into(), other.clone());
                }
            },
            "const" => {
                out.insert("enum".into(), Value::Array(vec![value.clone()]));
            }
            "oneOf" | "anyOf" => {
                let options: Vec<Value> = value
                    .as_array()
                    .map(|a| a.iter().map(|o| convert(o, root, depth + 1)).collect())
                    .unwrap_or_default();
                out.insert("anyOf".into(), Value::Array(options));
            }
            "properties" => {
                let props: Map<String, Value> = value
                    .as_object()
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| (k.clone(), convert(v, root, depth + 1)))
                            .collect()
                    })
                    .unwrap_or_default();
                out.insert(key.clone(), Value::Object(props));
            }
            "items" => {
                out.insert(key.clone(), convert(value, root, depth + 1));
            }
            k if KEEP.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_are_inlined_and_unions_become_nullable() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"p": {"$ref": "#/$defs/P"}, "n": {"type": ["string", "null"]}},
            "$defs": {"P": {"type": "object", "properties": {"x": {"const": 1}}}}
        });
        assert_eq!(
            to_gemini_schema(&schema),
            json!({"type":"object","properties":{
                "p":{"type":"object","properties":{"x":{"enum":[1]}}},
                "n":{"type":"string","nullable":true}}})
        );
    }

    #[test]
    fn recursive_refs_are_cut() {
        let schema = json!({"type":"object","properties":{"next":{"$ref":"#"}}});
        let out = to_gemini_schema(&schema);
        assert!(out.to_string().len() < 10_000);
    }
}
