//! [`PolicyError`]: a policy that cannot be loaded or compiled.

use std::path::PathBuf;

/// Why a policy could not be loaded. Every variant names the place at
/// fault: file, line, key or pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file could not be read.
    #[error("cannot read policy file {}: {message}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The TOML is malformed, has an unknown key or a bad value.
    #[error("{}line {line}, column {column}{}: {message}",
        .file.as_ref().map(|f| format!("{}: ", f.display())).unwrap_or_default(),
        .key.as_ref().map(|k| format!(", key `{k}`")).unwrap_or_default())]
    Toml {
        /// The file, when loaded from one.
        file: Option<PathBuf>,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The key at fault (dotted, with its table), when known.
        key: Option<String>,
        /// The parser's message.
        message: String,
    },
    /// A permission pattern or command rule is not a valid glob.
    #[error("invalid pattern {pattern:?} in {place}: {message}")]
    InvalidPattern {
        /// Where: `policies.tool_permissions`, `policies.agents.coder.tool_permissions`, ...
        place: String,
        /// The pattern.
        pattern: String,
        /// Why.
        message: String,
    },
}

/// The kind of a [`PolicyError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum PolicyErrorKind {
    Io,
    Toml,
    InvalidPattern,
}

impl PolicyError {
    /// The kind, for matching.
    pub fn kind(&self) -> PolicyErrorKind {
        match self {
            Self::Io { .. } => PolicyErrorKind::Io,
            Self::Toml { .. } => PolicyErrorKind::Toml,
            Self::InvalidPattern { .. } => PolicyErrorKind::InvalidPattern,
        }
    }

    /// Build a TOML error (line, column, dotted key) from the parser's error and
    /// the source text; other programs reading the same file use it too.
    pub fn from_toml(err: &toml::de::Error, source: &str, file: Option<PathBuf>) -> Self {
        let (line, column, key) = match err.span() {
            Some(span) => {
                let start = span.start.min(source.len());
                let before = &source[..start];
                let line = before.matches('\n').count() + 1;
                let column = before.rfind('\n').map_or(start, |nl| start - nl - 1) + 1;
                (line, column, key_at(source, span))
            }
            None => (0, 0, None),
        };
        Self::Toml {
            file,
            line,
            column,
            key,
            message: err.message().trim().to_owned(),
        }
    }
}

/// The dotted key at a span: the enclosing `[table]` header plus the key
/// written on that line.
fn key_at(source: &str, span: std::ops::Range<usize>) -> Option<String> {
    let start = span.start.min(source.len());
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |i| start + i);
    let line = source[line_start..line_end].trim();
    let table = source[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    if line.starts_with('[') {
        return Some(
            line.trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_owned(),
        );
    }
    let key = line.split('=').next()?.trim().trim_matches('"').to_owned();
    if key.is_empty() {
        return table;
    }
    Some(match table {
        Some(t) => format!("{t}.{key}"),
        None => key,
    })
}
