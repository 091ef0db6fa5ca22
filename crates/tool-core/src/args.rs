//! [`ToolArgs`]: typed reads from untyped arguments, with errors that name
//! the field.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::ToolError;

/// A reader over a call's JSON arguments for untyped tools.
///
/// ```
/// use serde_json::json;
/// use tool_core::ToolArgs;
/// let value = json!({"path": "a.txt", "limit": 10});
/// let args = ToolArgs::new("read_file", &value);
/// assert_eq!(args.str("path").unwrap(), "a.txt");
/// assert_eq!(args.opt_i64("limit").unwrap(), Some(10));
/// assert_eq!(args.opt_bool("follow").unwrap(), None);
/// let err = args.i64("path").unwrap_err();
/// assert!(err.to_string().contains("/path"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ToolArgs<'a> {
    tool: &'a str,
    value: &'a Value,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Escape a property name for use in a JSON pointer (RFC 6901).
pub(crate) fn pointer_segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

impl<'a> ToolArgs<'a> {
    /// Read arguments of `tool`.
    pub fn new(tool: &'a str, value: &'a Value) -> Self {
        Self { tool, value }
    }

    /// The raw value of a field, if present and not null.
    pub fn get(&self, field: &str) -> Option<&'a Value> {
        self.value.get(field).filter(|v| !v.is_null())
    }

    fn error(&self, field: &str, message: String) -> ToolError {
        ToolError::invalid_argument(self.tool, format!("/{}", pointer_segment(field)), message)
    }

    fn required(&self, field: &str) -> Result<&'a Value, ToolError> {
        if !self.value.is_object() {
            return Err(ToolError::invalid_argument(
                self.tool,
                "",
                format!(
                    "arguments must be a JSON object, got {}",
                    type_name(self.value)
                ),
            ));
        }
        self.get(field)
            .ok_or_else(|| self.error(field, "required field is missing".into()))
    }

    fn typed<T>(
        &self,
        field: &str,
        expected: &str,
        read: impl Fn(&'a Value) -> Option<T>,
    ) -> Result<Option<T>, ToolError> {
        match self.get(field) {
            None => Ok(None),
            Some(v) => read(v).map(Some).ok_or_else(|| {
                self.error(field, format!("expected {expected}, got {}", type_name(v)))
            }),
        }
    }

    /// A required string.
    pub fn str(&self, field: &str) -> Result<&'a str, ToolError> {
        self.required(field)?;
        self.opt_str(field).map(Option::unwrap_or_default)
    }
    /// An optional string.
    pub fn opt_str(&self, field: &str) -> Result<Option<&'a str>, ToolError> {
        self.typed(field, "a string", Value::as_str)
    }
    /// A required integer.
    pub fn i64(&self, field: &str) -> Result<i64, ToolError> {
        self.required(field)?;
        self.opt_i64(field).map(Option::unwrap_or_default)
    }
    /// An optional integer.
    pub fn opt_i64(&self, field: &str) -> Result<Option<i64>, ToolError> {
        self.typed(field, "an integer", Value::as_i64)
    }
    /// A required number.
    pub fn f64(&self, field: &str) -> Result<f64, ToolError> {
        self.required(field)?;
        self.opt_f64(field).map(Option::unwrap_or_default)
    }
    /// An optional number.
    pub fn opt_f64(&self, field: &str) -> Result<Option<f64>, ToolError> {
        self.typed(field, "a number", Value::as_f64)
    }
    /// A required boolean.
    pub fn bool(&self, field: &str) -> Result<bool, ToolError> {
        self.required(field)?;
        self.opt_bool(field).map(Option::unwrap_or_default)
    }
    /// An optional boolean.
    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, ToolError> {
        self.typed(field, "a boolean", Value::as_bool)
    }
    /// Parse one field into any deserialisable type.
    pub fn field<T: DeserializeOwned>(&self, field: &str) -> Result<T, ToolError> {
        let v = self.required(field)?;
        T::deserialize(v).map_err(|e| self.error(field, e.to_string()))
    }
    /// Parse the whole argument object into a struct.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, ToolError> {
        T::deserialize(self.value)
            .map_err(|e| ToolError::invalid_argument(self.tool, "", e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_and_wrong_type_name_the_field() {
        let v = json!({"a": "x"});
        let args = ToolArgs::new("t", &v);
        let missing = args.str("b").unwrap_err().to_string();
        assert!(
            missing.contains("/b") && missing.contains("missing"),
            "{missing}"
        );
        let wrong = args.bool("a").unwrap_err().to_string();
        assert!(wrong.contains("expected a boolean, got string"), "{wrong}");
    }

    #[test]
    fn non_object_arguments_are_refused() {
        let v = json!([1]);
        let err = ToolArgs::new("t", &v).str("a").unwrap_err();
        assert!(err.to_string().contains("must be a JSON object"));
    }

    #[test]
    fn whole_struct_parse() {
        #[derive(Debug, serde::Deserialize)]
        struct A {
            n: u8,
        }
        let v = json!({"n": 3});
        assert_eq!(ToolArgs::new("t", &v).parse::<A>().unwrap().n, 3);
        let bad = json!({});
        let err = ToolArgs::new("t", &bad).parse::<A>().unwrap_err();
        assert!(err.to_string().contains("missing field `n`"));
    }
}
