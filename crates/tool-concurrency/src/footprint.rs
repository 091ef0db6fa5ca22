//! [`Footprint`]: declared once beside a tool, it turns one call's input
//! into a [`ConcurrencyClaim`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ConcurrencyClaim;

/// Which values of an operation argument read and which write.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationRule {
    /// The argument holding the operation (e.g. `"op"`).
    pub arg: String,
    /// Operation values that only read.
    #[serde(default)]
    pub read: Vec<String>,
    /// Operation values that write.
    #[serde(default)]
    pub write: Vec<String>,
}

/// What a tool's calls touch, declared by its author: which arguments hold
/// paths, nodes or sessions (a string or an array of strings each), and
/// optionally which operations read or write. Hosts usually keep it in the
/// tool definition's metadata under `"footprint"`.
///
/// ```
/// use serde_json::json;
/// use tool_concurrency::{ConcurrencyClaim, Footprint};
/// let footprint: Footprint = serde_json::from_value(json!({
///     "paths": ["path"],
///     "operation": {"arg": "op", "read": ["read"], "write": ["write"]}
/// })).unwrap();
/// let read = footprint.claim(&json!({"op": "read", "path": "a.txt"}), Some("/w"));
/// assert_eq!(read, ConcurrencyClaim::shared_paths(["/w/a.txt"], None));
/// let write = footprint.claim(&json!({"op": "write", "path": "a.txt"}), Some("/w"));
/// assert_eq!(write, ConcurrencyClaim::paths(["/w/a.txt"], None));
/// assert!(footprint.claim(&json!({"op": "chmod", "path": "a"}), None).is_global());
/// assert!(footprint.claim(&json!({"op": "write"}), None).is_global());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Footprint {
    /// Arguments holding paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Arguments holding node ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// Arguments holding session ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<String>,
    /// Which operations read and which write; without it, the tool's
    /// read-only fact decides (see [`claim_for`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<OperationRule>,
    /// Whether the tool only reads, when no operation rule says; `None`
    /// means "writes" (fail-closed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
}

/// Strings of one argument: a string or an array of strings; `None` when
/// missing or of another type.
fn strings_of(input: &Value, arg: &str) -> Option<Vec<String>> {
    match input.get(arg)? {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => None,
    }
}

fn collect(input: &Value, args: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for arg in args {
        out.extend(strings_of(input, arg)?);
    }
    Some(out)
}

impl Footprint {
    /// The claim of one call with this input. Anything the footprint cannot
    /// read (a missing argument, a wrong type, an unknown operation, a bad
    /// path) degrades to `Global`.
    pub fn claim(&self, input: &Value, cwd: Option<&str>) -> ConcurrencyClaim {
        let reads = match &self.operation {
            Some(rule) => match input.get(&rule.arg).and_then(Value::as_str) {
                Some(op) if rule.read.iter().any(|r| r == op) => true,
                Some(op) if rule.write.iter().any(|w| w == op) => false,
                _ => return ConcurrencyClaim::global(),
            },
            None => self.read_only.unwrap_or(false),
        };
        let Some(paths) = collect(input, &self.paths) else {
            return ConcurrencyClaim::global();
        };
        if reads {
            return if self.paths.is_empty() {
                ConcurrencyClaim::Shared
            } else {
                ConcurrencyClaim::shared_paths(paths, cwd)
            };
        }
        let (Some(nodes), Some(sessions)) =
            (collect(input, &self.nodes), collect(input, &self.sessions))
        else {
            return ConcurrencyClaim::global();
        };
        // One claim holds one scope kind; a write spanning several kinds
        // (or none) is unbounded as far as this crate can tell.
        match (
            self.paths.is_empty(),
            self.nodes.is_empty(),
            self.sessions.is_empty(),
        ) {
            (false, true, true) => ConcurrencyClaim::paths(paths, cwd),
            (true, false, true) => ConcurrencyClaim::nodes(nodes),
            (true, true, false) => ConcurrencyClaim::sessions(sessions),
            _ => ConcurrencyClaim::global(),
        }
    }
}

/// The claim of one call: the footprint's when the tool declares one,
/// otherwise from its facts alone (read-only gives `Shared`, anything
/// else `Global`).
///
/// ```
/// use serde_json::json;
/// use tool_concurrency::{claim_for, ConcurrencyClaim};
/// assert_eq!(claim_for(true, None, &json!({}), None), ConcurrencyClaim::Shared);
/// assert!(claim_for(false, None, &json!({}), None).is_global());
/// ```
pub fn claim_for(
    read_only: bool,
    footprint: Option<&Footprint>,
    input: &Value,
    cwd: Option<&str>,
) -> ConcurrencyClaim {
    match footprint {
        Some(f) => {
            let with_fact;
            let f = if f.read_only.is_none() && f.operation.is_none() {
                with_fact = Footprint {
                    read_only: Some(read_only),
                    ..f.clone()
                };
                &with_fact
            } else {
                f
            };
            f.claim(input, cwd)
        }
        None if read_only => ConcurrencyClaim::Shared,
        None => ConcurrencyClaim::global(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_degrade_to_global() {
        let f = Footprint {
            paths: vec!["path".into()],
            ..Footprint::default()
        };
        assert!(f.claim(&json!({"path": 3}), None).is_global());
        assert!(f.claim(&json!({"path": ["a", 1]}), None).is_global());
        assert_eq!(
            f.claim(&json!({"path": ["a", "b"]}), None),
            ConcurrencyClaim::paths(["a", "b"], None)
        );
    }

    #[test]
    fn nodes_and_sessions() {
        let f = Footprint {
            sessions: vec!["tab".into()],
            ..Footprint::default()
        };
        assert_eq!(
            f.claim(&json!({"tab": "t1"}), None),
            ConcurrencyClaim::sessions(["t1"])
        );
        let mixed = Footprint {
            sessions: vec!["tab".into()],
            nodes: vec!["n".into()],
            ..Footprint::default()
        };
        assert!(mixed
            .claim(&json!({"tab": "t1", "n": "x"}), None)
            .is_global());
    }

    #[test]
    fn facts_decide_reading_when_no_operation_is_declared() {
        let f = Footprint {
            paths: vec!["path".into()],
            ..Footprint::default()
        };
        let input = json!({"path": "docs"});
        assert_eq!(
            claim_for(true, Some(&f), &input, None),
            ConcurrencyClaim::shared_paths(["docs"], None)
        );
        assert_eq!(
            claim_for(false, Some(&f), &input, None),
            ConcurrencyClaim::paths(["docs"], None)
        );
    }
}
