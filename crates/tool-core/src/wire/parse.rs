//! Parse each provider's tool-call payload into [`ToolCall`]s.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Provider;
use crate::{parse_arguments, ToolError, ValidationLimits};

/// One tool call, whatever provider it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's call id (generated as `call_N` where a provider gives none).
    pub id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    /// The arguments, parsed.
    pub arguments: Value,
}

fn malformed(pointer: impl Into<String>, reason: impl Into<String>) -> ToolError {
    ToolError::MalformedPayload {
        pointer: pointer.into(),
        reason: reason.into(),
    }
}

fn str_field<'a>(item: &'a Value, key: &str, at: &str) -> Result<&'a str, ToolError> {
    item.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| malformed(format!("{at}/{key}"), format!("expected a string `{key}`")))
}

/// OpenAI sends arguments as a JSON string; objects are accepted too.
fn arguments_of(name: &str, value: Option<&Value>, at: &str) -> Result<Value, ToolError> {
    match value {
        None | Some(Value::Null) => Ok(Value::Object(serde_json::Map::new())),
        Some(Value::String(raw)) => parse_arguments(name, raw, &ValidationLimits::default()),
        Some(v @ Value::Object(_)) => Ok(v.clone()),
        Some(_) => Err(malformed(
            format!("{at}/arguments"),
            "arguments must be a JSON string or an object",
        )),
    }
}

/// The array at `key` of `payload`, or `payload` itself when it is an array.
fn items<'a>(payload: &'a Value, key: &str) -> Result<(&'a [Value], String), ToolError> {
    match payload {
        Value::Array(a) => Ok((a, String::new())),
        Value::Object(o) => match o.get(key) {
            Some(Value::Array(a)) => Ok((a, format!("/{key}"))),
            None | Some(Value::Null) => Ok((&[], String::new())),
            Some(_) => Err(malformed(
                format!("/{key}"),
                format!("`{key}` must be an array"),
            )),
        },
        _ => Err(malformed(
            "",
            format!("expected an object with `{key}` or an array"),
        )),
    }
}

/// Parse a provider payload: for OpenAI Chat an assistant message (or its
/// `tool_calls` array), for Responses a response (or its `output` array),
/// for Anthropic a message (or its `content` array), for Gemini a content
/// (or its `parts` array), and for text a string with `<tool_call>` blocks.
/// Items that are not tool calls (text blocks, reasoning) are skipped.
///
/// ```
/// use serde_json::json;
/// use tool_core::{parse_tool_calls, Provider};
/// let msg = json!({"role": "assistant", "tool_calls": [
///     {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1}"}}
/// ]});
/// let calls = parse_tool_calls(Provider::OpenAiChat, &msg).unwrap();
/// assert_eq!(calls[0].arguments, json!({"a": 1}));
///
/// let bad = json!({"tool_calls": [{"id": "c1", "function": {"name": "add", "arguments": "{oops"}}]});
/// let err = parse_tool_calls(Provider::OpenAiChat, &bad).unwrap_err();
/// assert_eq!(err.kind(), tool_core::ErrorKind::InvalidArguments);
/// ```
pub fn parse_tool_calls(provider: Provider, payload: &Value) -> Result<Vec<ToolCall>, ToolError> {
    match provider {
        Provider::OpenAiChat => {
            let (list, base) = items(payload, "tool_calls")?;
            list.iter()
                .enumerate()
                .map(|(i, item)| {
                    let at = format!("{base}/{i}");
                    let function = item
                        .get("function")
                        .ok_or_else(|| malformed(format!("{at}/function"), "missing `function`"))?;
                    let name = str_field(function, "name", &format!("{at}/function"))?;
                    Ok(ToolCall {
                        id: str_field(item, "id", &at)?.to_owned(),
                        name: name.to_owned(),
                        arguments: arguments_of(
                            name,
                            function.get("arguments"),
                            &format!("{at}/function"),
                        )?,
                    })
                })
                .collect()
        }
        Provider::OpenAiResponses => {
            let (list, base) = items(payload, "output")?;
            collect_typed(list, &base, "function_call", |item, at| {
                let name = str_field(item, "name", at)?;
                Ok(ToolCall {
                    id: str_field(item, "call_id", at)?.to_owned(),
                    name: name.to_owned(),
                    arguments: arguments_of(name, item.get("arguments"), at)?,
                })
            })
        }
        Provider::Anthropic => {
            let (list, base) = items(payload, "content")?;
            collect_typed(list, &base, "tool_use", |item, at| {
                let name = str_field(item, "name", at)?;
                Ok(ToolCall {
                    id: str_field(item, "id", at)?.to_owned(),
                    name: name.to_owned(),
                    arguments: arguments_of(name, item.get("input"), at)?,
                })
            })
        }
        Provider::Gemini => {
            let (list, base) = items(payload, "parts")?;
            let mut calls = Vec::new();
            for (i, part) in list.iter().enumerate() {
                let Some(call) = part.get("functionCall") else {
                    continue;
                };
                let at = format!("{base}/{i}/functionCall");
                let name = str_field(call, "name", &at)?;
                let id = call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{}", calls.len()), str::to_owned);
                calls.push(ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments: arguments_of(name, call.get("args"), &at)?,
                });
            }
            Ok(calls)
        }
        Provider::Text => match payload {
            Value::String(text) => parse_text_tool_calls(text),
            _ => Err(malformed("", "the text format's payload is a string")),
        },
    }
}

fn collect_typed(
    list: &[Value],
    base: &str,
    kind: &str,
    read: impl Fn(&Value, &str) -> Result<ToolCall, ToolError>,
) -> Result<Vec<ToolCall>, ToolError> {
    list.iter()
        .enumerate()
        .filter(|(_, item)| item.get("type").and_then(Value::as_str) == Some(kind))
        .map(|(i, item)| read(item, &format!("{base}/{i}")))
        .collect()
}

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// Parse `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks
/// from a model's text (the convention of [`super::TEXT_FORMAT_PREAMBLE`]).
///
/// ```
/// let calls = tool_core::parse_text_tool_calls(
///     "Sure. <tool_call>{\"name\": \"ls\", \"arguments\": {\"path\": \".\"}}</tool_call>").unwrap();
/// assert_eq!(calls[0].name, "ls");
/// assert_eq!(calls[0].id, "call_0");
/// ```
pub fn parse_text_tool_calls(text: &str) -> Result<Vec<ToolCall>, ToolError> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let body_start = start + OPEN.len();
        let Some(len) = rest[body_start..].find(CLOSE) else {
            return Err(malformed(
                format!("/{}", calls.len()),
                "a <tool_call> block is not closed",
            ));
        };
        let body = &rest[body_start..body_start + len];
        let at = format!("/{}", calls.len());
        let value: Value = serde_json::from_str(body.trim())
            .map_err(|e| malformed(&at, format!("the block is not valid JSON: {e}")))?;
        let name = str_field(&value, "name", &at)?;
        calls.push(ToolCall {
            id: format!("call_{}", calls.len()),
            name: name.to_owned(),
            arguments: arguments_of(name, value.get("arguments"), &at)?,
        });
        rest = &rest[body_start + len + CLOSE.len()..];
    }
    Ok(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn every_provider_parses_its_own_shape() {
        let responses = json!({"output": [
            {"type": "reasoning"},
            {"type": "function_call", "call_id": "r1", "name": "a", "arguments": "{}"}
        ]});
        assert_eq!(
            parse_tool_calls(Provider::OpenAiResponses, &responses).unwrap()[0].id,
            "r1"
        );
        let anthropic = json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "t1", "name": "b", "input": {"x": 1}}
        ]});
        let calls = parse_tool_calls(Provider::Anthropic, &anthropic).unwrap();
        assert_eq!(
            calls,
            vec![ToolCall {
                id: "t1".into(),
                name: "b".into(),
                arguments: json!({"x": 1})
            }]
        );
        let gemini = json!({"parts": [{"text": "x"}, {"functionCall": {"name": "c", "args": {}}}]});
        assert_eq!(
            parse_tool_calls(Provider::Gemini, &gemini).unwrap()[0].id,
            "call_0"
        );
    }

    #[test]
    fn shape_errors_name_the_pointer() {
        let err = parse_tool_calls(Provider::OpenAiChat, &json!({"tool_calls": [{"id": "x"}]}))
            .unwrap_err();
        assert!(err.to_string().contains("/tool_calls/0/function"), "{err}");
    }

    proptest! {
        #[test]
        fn random_strings_never_panic_the_payload_parsers(s in ".*") {
            let _ = parse_text_tool_calls(&s);
            let as_args = json!({"tool_calls": [{"id": "1", "function": {"name": "n", "arguments": s.clone()}}]});
            let _ = parse_tool_calls(Provider::OpenAiChat, &as_args);
            for p in Provider::ALL {
                let _ = parse_tool_calls(p, &Value::String(s.clone()));
                if let Ok(v) = serde_json::from_str::<Value>(&s) {
                    let _ = parse_tool_calls(p, &v);
                }
            }
        }
    }
}
