//! [`DisclosureError`]: configuration and data errors of this crate.

/// Why a disclosure setting, catalog or query file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DisclosureError {
    /// A core-set or always-loaded pattern is not a valid glob.
    #[error("invalid pattern {pattern:?} in {place}: {message}")]
    InvalidPattern {
        /// Where the pattern was given.
        place: String,
        /// The pattern.
        pattern: String,
        /// Why.
        message: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// A catalog that is not valid JSON or holds an entry of no known shape.
    #[error("bad catalog {path}: {message}")]
    BadCatalog {
        /// The file.
        path: String,
        /// What is wrong (naming the entry's index).
        message: String,
    },
    /// A query file line that is not a labelled query.
    #[error("{path}, line {line}: {message}")]
    BadQueryLine {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// The kind of a [`DisclosureError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum DisclosureErrorKind {
    InvalidPattern,
    Io,
    BadCatalog,
    BadQueryLine,
}

impl DisclosureError {
    /// The kind, for matching.
    pub fn kind(&self) -> DisclosureErrorKind {
        match self {
            Self::InvalidPattern { .. } => DisclosureErrorKind::InvalidPattern,
            Self::Io { .. } => DisclosureErrorKind::Io,
            Self::BadCatalog { .. } => DisclosureErrorKind::BadCatalog,
            Self::BadQueryLine { .. } => DisclosureErrorKind::BadQueryLine,
        }
    }
}
