//! Property tests of tool-core's invariants (issue: foundation).

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tool_core::{
    render_tools_bytes, schema_for_type, to_strict_schema, Provider, RenderOptions, ToolCategory,
    ToolDefinition, ToolFacts, ToolSource,
};

fn arb_leaf() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("string"),
            Just("integer"),
            Just("number"),
            Just("boolean")
        ],
        proptest::option::of("[ -~]{0,20}"),
    )
        .prop_map(|(t, desc)| {
            let mut m = Map::new();
            m.insert("type".into(), json!(t));
            if let Some(d) = desc {
                m.insert("description".into(), json!(d));
            }
            Value::Object(m)
        })
}

/// Random schemas using only keywords strict mode can express.
fn arb_schema() -> impl Strategy<Value = Value> {
    arb_leaf().prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map("[a-z_]{1,8}", inner.clone(), 0..5),
                any::<u8>()
            )
                .prop_map(|(props, mask)| {
                    let required: Vec<&String> = props
                        .keys()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << (i % 8)) != 0)
                        .map(|(_, k)| k)
                        .collect();
                    json!({"type": "object", "properties": props, "required": required})
                }),
            inner.prop_map(|items| json!({"type": "array", "items": items})),
        ]
    })
}

fn arb_object_schema() -> impl Strategy<Value = Value> {
    proptest::collection::btree_map("[a-z_]{1,8}", arb_schema(), 0..6)
        .prop_map(|props| json!({"type": "object", "properties": props}))
}

fn arb_facts() -> impl Strategy<Value = ToolFacts> {
    (
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(a, b, c, d, e)| ToolFacts {
            read_only: a,
            destructive: b,
            idempotent: c,
            open_world: d,
            requires_approval: e,
        })
}

fn arb_source() -> impl Strategy<Value = ToolSource> {
    prop_oneof![
        Just(ToolSource::BuiltIn),
        Just(ToolSource::Host),
        "[a-z]{1,10}".prop_map(ToolSource::mcp),
        "[a-z]{1,10}".prop_map(|name| ToolSource::Skill { name }),
        "[a-z]{1,10}".prop_map(|name| ToolSource::Subagent { name }),
    ]
}

fn arb_definition() -> impl Strategy<Value = ToolDefinition> {
    (
        "[A-Za-z0-9_-]{1,64}",
        any::<String>(),
        arb_object_schema(),
        proptest::option::of(arb_object_schema()),
        proptest::option::of(prop_oneof![
            Just(ToolCategory::Read),
            "[a-z]{1,8}".prop_map(|command_arg| ToolCategory::Shell { command_arg }),
        ]),
        arb_source(),
        arb_facts(),
        proptest::collection::btree_map("[a-z]{1,6}", any::<i32>().prop_map(Value::from), 0..3),
    )
        .prop_map(
            |(name, description, input, output, category, source, facts, metadata)| {
                let mut b = ToolDefinition::builder(name, description)
                    .input_schema(input)
                    .source(source)
                    .facts(facts);
                if let Some(o) = output {
                    b = b.output_schema(o);
                }
                if let Some(c) = category {
                    b = b.category(c);
                }
                for (k, v) in metadata {
                    b = b.metadata(k, v);
                }
                b.build().expect("generated definitions are valid")
            },
        )
}

fn every_object_closed_and_required(schema: &Value) -> Result<(), String> {
    match schema {
        Value::Object(obj) => {
            if obj.get("type") == Some(&json!("object"))
                || obj
                    .get("type")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.contains(&json!("object")))
            {
                if obj.get("additionalProperties") != Some(&json!(false)) {
                    return Err(format!("object not closed: {schema}"));
                }
                let props: Vec<&String> = obj["properties"]
                    .as_object()
                    .map(|p| p.keys().collect())
                    .unwrap_or_default();
                let required: Vec<&str> = obj["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if props.len() != required.len()
                    || props.iter().any(|p| !required.contains(&p.as_str()))
                {
                    return Err(format!("not every property required: {schema}"));
                }
            }
            obj.values().try_for_each(every_object_closed_and_required)
        }
        Value::Array(items) => items.iter().try_for_each(every_object_closed_and_required),
        _ => Ok(()),
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
enum Mode {
    Fast,
    Careful,
}

/// Nested argument part.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Window {
    /// First line.
    start: u32,
    /// Line count, if limited.
    count: Option<u16>,
}

/// Arguments covering the usual shapes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct Args {
    path: String,
    offset: i64,
    ratio: f64,
    follow: bool,
    tags: Vec<String>,
    mode: Mode,
    window: Option<Window>,
    #[serde(default)]
    depth: u8,
}

fn arb_args() -> impl Strategy<Value = Args> {
    (
        any::<String>(),
        any::<i64>(),
        -1.0e12..1.0e12f64,
        any::<bool>(),
        proptest::collection::vec(any::<String>(), 0..4),
        prop_oneof![Just(Mode::Fast), Just(Mode::Careful)],
        proptest::option::of(
            (any::<u32>(), proptest::option::of(any::<u16>()))
                .prop_map(|(start, count)| Window { start, count }),
        ),
        any::<u8>(),
    )
        .prop_map(
            |(path, offset, ratio, follow, tags, mode, window, depth)| Args {
                path,
                offset,
                ratio,
                follow,
                tags,
                mode,
                window,
                depth,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn every_definition_round_trips_through_serde(def in arb_definition()) {
        let text = serde_json::to_string(&def).unwrap();
        let back: ToolDefinition = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&def, &back);
        prop_assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }

    #[test]
    fn rendering_is_deterministic(defs in proptest::collection::vec(arb_definition(), 0..6)) {
        for provider in Provider::ALL {
            let a = render_tools_bytes(provider, &defs, RenderOptions::default()).unwrap();
            let copies: Vec<ToolDefinition> = defs.iter().map(|d| serde_json::from_value(serde_json::to_value(d).unwrap()).unwrap()).collect();
            let b = render_tools_bytes(provider, &copies, RenderOptions::default()).unwrap();
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn strict_conversion_closes_every_object_and_requires_every_property(schema in arb_object_schema()) {
        let strict = to_strict_schema(&schema).unwrap();
        prop_assert!(every_object_closed_and_required(&strict).is_ok(), "{:?}", every_object_closed_and_required(&strict));
        // Strict output is itself a fixed point.
        prop_assert_eq!(to_strict_schema(&strict).unwrap(), strict);
    }

    #[test]
    fn every_generated_typed_args_value_validates_against_its_derived_schema(args in arb_args()) {
        let schema = schema_for_type::<Args>();
        let validator = tool_core::CompiledSchema::compile("t", &schema).unwrap();
        let value = serde_json::to_value(&args).unwrap();
        let violations = validator.violations(&value);
        prop_assert!(violations.is_empty(), "{:?}", violations);
    }
}

#[test]
fn derived_schema_marks_defaults_optional_and_keeps_doc_comments() {
    let schema = schema_for_type::<Args>();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!required.contains(&"depth"));
    assert!(required.contains(&"path"));
    assert_eq!(
        schema["description"],
        "Arguments covering the usual shapes."
    );
}
