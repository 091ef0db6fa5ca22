//! Reading the files commands take: catalogs, call batches, JSON arguments.

use std::path::Path;

use serde_json::Value;
use toolstack::core::{parse_tool_definition, ToolDefinition};

use crate::error::{CliError, CliResult};

/// Read a file to text; the error names the file.
pub fn read(path: &Path) -> CliResult<String> {
    std::fs::read_to_string(path).map_err(|e| CliError::file(path, e))
}

/// Read and parse a JSON file; the error names the file, line and column.
pub fn read_json(path: &Path) -> CliResult<Value> {
    let text = read(path)?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::file(
            path,
            format!(
                "invalid JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })
}

/// Read a catalog: a JSON array (or `{"tools": [...]}`) of definitions in
/// any supported shape, detected per entry; an entry of no known shape is
/// an error naming its index.
pub fn read_catalog(path: &Path) -> CliResult<Vec<ToolDefinition>> {
    let value = read_json(path)?;
    let entries = match &value {
        Value::Array(items) => items,
        Value::Object(o) if o.get("tools").is_some_and(Value::is_array) => {
            o["tools"].as_array().expect("checked")
        }
        _ => {
            return Err(CliError::file(
                path,
                "a catalog is a JSON array of tool definitions (or {\"tools\": [...]})",
            ))
        }
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            parse_tool_definition(i, e)
                .map(|(d, _)| d)
                .map_err(|err| CliError::file(path, format!("entry {i}: {err}")))
        })
        .collect()
}

/// Parse a JSON argument given on the command line; the error names the flag.
pub fn parse_flag_json(flag: &str, text: &str) -> CliResult<Value> {
    serde_json::from_str(text).map_err(|e| CliError(format!("{flag}: invalid JSON: {e}")))
}

/// Print a JSON document on stdout.
pub fn print_json(value: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}
