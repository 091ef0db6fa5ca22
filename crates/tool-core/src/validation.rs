//! Argument and output validation: compiled schemas and input limits.

use std::fmt;

use serde_json::Value;

use crate::{ToolError, Violation};

/// A JSON Schema compiled once (with the `jsonschema` crate) and reused for
/// every call.
///
/// ```
/// use serde_json::json;
/// use tool_core::CompiledSchema;
/// let schema = CompiledSchema::compile("t", &json!({"type": "object", "required": ["a"]})).unwrap();
/// let violations = schema.violations(&json!({}));
/// assert_eq!(violations.len(), 1);
/// assert_eq!(violations[0].pointer, "");
/// ```
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema").finish_non_exhaustive()
    }
}

impl CompiledSchema {
    /// Compile `schema` for tool `tool`; a schema that does not compile is an
    /// invalid-definition error.
    pub fn compile(tool: &str, schema: &Value) -> Result<Self, ToolError> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|e| ToolError::InvalidDefinition {
                tool: tool.to_owned(),
                reason: format!("schema does not compile: {e}"),
            })
    }

    /// Every violation, each with its JSON pointer.
    pub fn violations(&self, value: &Value) -> Vec<Violation> {
        self.validator
            .iter_errors(value)
            .map(|e| Violation::new(e.instance_path().as_str(), e.to_string()))
            .collect()
    }

    /// True when `value` satisfies the schema.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Validate arguments: an invalid-arguments error listing every violation.
    pub fn validate_arguments(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        if self.validator.is_valid(args) {
            return Ok(());
        }
        Err(ToolError::InvalidArguments {
            tool: tool.to_owned(),
            violations: self.violations(args),
        })
    }

    /// Validate output: an invalid-output error listing every violation.
    pub fn validate_output(&self, tool: &str, output: &Value) -> Result<(), ToolError> {
        if self.validator.is_valid(output) {
            return Ok(());
        }
        Err(ToolError::InvalidOutput {
            tool: tool.to_owned(),
            violations: self.violations(output),
        })
    }
}

/// Limits applied to arguments before they are parsed or validated.
///
/// ```
/// use tool_core::{parse_arguments, ValidationLimits};
/// let limits = ValidationLimits { max_bytes: 1024, max_depth: 2 };
/// assert!(parse_arguments("t", r#"{"a":{"b":1}}"#, &limits).is_ok());
/// let err = parse_arguments("t", r#"{"a":{"b":[1]}}"#, &limits).unwrap_err();
/// assert!(err.to_string().contains("depth"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ValidationLimits {
    /// Largest accepted argument text, in bytes (default 1 MiB).
    pub max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects (default 64).
    pub max_depth: usize,
}

impl Default for ValidationLimits {
    fn default() -> Self {
        Self {
            max_bytes: 1024 * 1024,
            max_depth: 64,
        }
    }
}

fn limit_error(tool: &str, message: String) -> ToolError {
    ToolError::InvalidArguments {
        tool: tool.to_owned(),
        violations: vec![Violation::new("", message)],
    }
}

/// Nesting depth of raw JSON text, found by one byte scan (strings and
/// escapes skipped) so that a hostile payload is refused before parsing.
/// Returns as soon as `stop_above` is exceeded.
fn raw_depth(raw: &str, stop_above: usize) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in raw.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
                if max > stop_above {
                    return max;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Parse argument text under `limits`: size and depth are checked before
/// parsing; malformed JSON is an invalid-arguments error, never a panic.
pub fn parse_arguments(
    tool: &str,
    raw: &str,
    limits: &ValidationLimits,
) -> Result<Value, ToolError> {
    if raw.len() > limits.max_bytes {
        return Err(limit_error(
            tool,
            format!(
                "arguments are {} bytes, over the limit of {} bytes",
                raw.len(),
                limits.max_bytes
            ),
        ));
    }
    let depth = raw_depth(raw, limits.max_depth);
    if depth > limits.max_depth {
        return Err(limit_error(
            tool,
            format!(
                "arguments nest deeper than the depth limit of {}",
                limits.max_depth
            ),
        ));
    }
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        // Models often send "" for a tool without parameters.
        return Ok(Value::Object(serde_json::Map::new()));
    }
    serde_json::from_str(trimmed)
        .map_err(|e| limit_error(tool, format!("arguments are not valid JSON: {e}")))
}

fn value_depth_exceeds(value: &Value, max: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        if d + 1 > max {
            return true;
        }
        stack.extend(children.map(|c| (c, d + 1)));
    }
    false
}

/// Counts bytes written, stopping (with an error) past a limit.
struct CountingWriter {
    count: usize,
    limit: usize,
}

impl std::io::Write for CountingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.count += buf.len();
        if self.count > self.limit {
            return Err(std::io::Error::other("over limit"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Check already-parsed arguments against `limits` (depth first, so a
/// deep value is never serialised).
pub fn check_value_limits(
    tool: &str,
    value: &Value,
    limits: &ValidationLimits,
) -> Result<(), ToolError> {
    if value_depth_exceeds(value, limits.max_depth) {
        return Err(limit_error(
            tool,
            format!(
                "arguments nest deeper than the depth limit of {}",
                limits.max_depth
            ),
        ));
    }
    let mut counter = CountingWriter {
        count: 0,
        limit: limits.max_bytes,
    };
    if serde_json::to_writer(&mut counter, value).is_err() {
        return Err(limit_error(
            tool,
            format!("arguments are over the limit of {} bytes", limits.max_bytes),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_violation_is_reported_with_its_pointer() {
        let schema = CompiledSchema::compile(
            "t",
            &json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}),
        )
        .unwrap();
        let mut pointers: Vec<_> = schema
            .violations(&json!({"a":"x","b":1}))
            .into_iter()
            .map(|v| v.pointer)
            .collect();
        pointers.sort();
        assert_eq!(pointers, vec!["/a", "/b"]);
    }

    #[test]
    fn oversized_arguments_are_refused_before_parsing() {
        let limits = ValidationLimits {
            max_bytes: 10,
            max_depth: 64,
        };
        let err = parse_arguments("t", r#"{"a":"0123456789"}"#, &limits).unwrap_err();
        assert!(err.to_string().contains("over the limit"), "{err}");
    }

    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let raw = "[".repeat(100_000);
        let err = parse_arguments("t", &raw, &ValidationLimits::default()).unwrap_err();
        assert!(err.to_string().contains("depth"));
        let mut v = json!(1);
        for _ in 0..100 {
            v = json!([v]);
        }
        assert!(check_value_limits("t", &v, &ValidationLimits::default()).is_err());
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        let raw = format!(r#"{{"a":"{}"}}"#, "[".repeat(500));
        assert!(parse_arguments("t", &raw, &ValidationLimits::default()).is_ok());
    }

    #[test]
    fn malformed_json_is_a_typed_error() {
        let err = parse_arguments("t", "{not json", &ValidationLimits::default()).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidArguments);
    }
}
