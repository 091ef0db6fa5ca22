//! Namespacing: `<namespace><sep><tool>` flattened to a provider-safe name,
//! deterministic and injective.

use sha2::{Digest, Sha256};
use tool_core::{validate_tool_name, MAX_TOOL_NAME_LEN};

/// Hex digits of the hash suffix (48 bits).
const HASH_HEX: usize = 12;

fn is_safe(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn looks_hashed(name: &str) -> bool {
    name.len() > HASH_HEX
        && name.as_bytes()[name.len() - HASH_HEX - 1] == b'_'
        && name[name.len() - HASH_HEX..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Flatten `(namespace, name)` to one provider-safe tool name.
///
/// The plain form `namespace + separator + name` is used when it is valid:
/// only `[A-Za-z0-9_-]`, at most 64 characters, the namespace free of the
/// separator, and not ending like a hash suffix. Anything else is
/// sanitised (refused characters become `_`), cut, and given a suffix
/// `_<12 hex>` of the SHA-256 of the original pair, so the mapping stays
/// deterministic and injective (plain forms never end in a hash suffix, and
/// a plain form splits back at the first separator).
///
/// ```
/// use tool_registry::flatten_name;
/// assert_eq!(flatten_name(Some("github"), "create_issue", "__"), "github__create_issue");
/// assert_eq!(flatten_name(None, "read_file", "_"), "read_file");
/// let odd = flatten_name(Some("my.server"), "tool/name", "_");
/// assert!(odd.starts_with("my_server_tool_name_") && odd.len() == "my_server_tool_name_".len() + 12);
/// let long = flatten_name(Some("srv"), &"x".repeat(100), "_");
/// assert_eq!(long.len(), 64);
/// ```
pub fn flatten_name(namespace: Option<&str>, name: &str, separator: &str) -> String {
    let plain = match namespace {
        Some(ns) => format!("{ns}{separator}{name}"),
        None => name.to_owned(),
    };
    let namespace_ok = namespace
        .is_none_or(|ns| !ns.is_empty() && !separator.is_empty() && !ns.contains(separator));
    if namespace_ok && validate_tool_name(&plain).is_ok() && !looks_hashed(&plain) {
        return plain;
    }
    let mut hasher = Sha256::new();
    hasher.update(namespace.unwrap_or_default().as_bytes());
    hasher.update([0u8, u8::from(namespace.is_some())]);
    hasher.update(separator.as_bytes());
    hasher.update([0u8]);
    hasher.update(name.as_bytes());
    let digest = hasher.finalize();
    let hex =
        digest
            .iter()
            .take(HASH_HEX / 2)
            .fold(String::with_capacity(HASH_HEX), |mut acc, b| {
                use std::fmt::Write;
                let _ = write!(acc, "{b:02x}");
                acc
            });
    let sanitised: String = plain
        .chars()
        .map(|c| if is_safe(c) { c } else { '_' })
        .collect();
    let room = MAX_TOOL_NAME_LEN - HASH_HEX - 1;
    let head: String = sanitised.chars().take(room).collect();
    format!("{head}_{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_holding_the_separator_is_hashed() {
        let a = flatten_name(Some("a_b"), "c", "_");
        let b = flatten_name(Some("a"), "b_c", "_");
        assert_ne!(a, b);
        assert_eq!(b, "a_b_c");
    }

    #[test]
    fn names_that_look_hashed_are_hashed_again() {
        let tricky = format!("x_{}", "a".repeat(12));
        assert_ne!(flatten_name(None, &tricky, "_"), tricky);
    }
}
