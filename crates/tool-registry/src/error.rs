//! [`RegistryError`]: what the catalog, the shed and activation refuse.

use tool_core::ToolError;

/// A registry operation that cannot be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools with one name in one source (or two constructors of one
    /// name in a shed).
    #[error("duplicate tool name `{name}` in {place}")]
    DuplicateName {
        /// The name.
        name: String,
        /// The source or shed.
        place: String,
    },
    /// A name reserved for meta tools.
    #[error("tool name `{name}` is reserved for a meta tool")]
    ReservedName {
        /// The name.
        name: String,
    },
    /// A constructor built a tool under another name.
    #[error("constructor `{expected}` built a tool named `{got}`")]
    NameMismatch {
        /// The constructor's name.
        expected: String,
        /// The built tool's name.
        got: String,
    },
    /// No source has this id.
    #[error("unknown source `{id}`")]
    UnknownSource {
        /// The id.
        id: String,
    },
    /// A source id is already taken.
    #[error("source `{id}` already exists")]
    SourceExists {
        /// The id.
        id: String,
    },
    /// A namespace or separator that cannot be used.
    #[error("invalid namespace {namespace:?} with separator {separator:?}: {reason}")]
    InvalidNamespace {
        /// The namespace.
        namespace: String,
        /// The separator.
        separator: String,
        /// Why.
        reason: String,
    },
    /// A glob that does not compile.
    #[error("invalid glob {pattern:?}: {reason}")]
    InvalidGlob {
        /// The glob.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// Two tools flatten to one name.
    #[error("`{first}` and `{second}` both flatten to `{name}`")]
    FlattenCollision {
        /// The flattened name.
        name: String,
        /// One original.
        first: String,
        /// The other.
        second: String,
    },
    /// A name that no tool of the session has.
    #[error("no tool named `{name}` in this session")]
    UnknownTool {
        /// The name.
        name: String,
    },
    /// A built-in's definition disagrees with the static list.
    #[error("built-in `{name}`: {reason}")]
    BuiltinMismatch {
        /// The built-in.
        name: String,
        /// What differs.
        reason: String,
    },
    /// A tool could not be built or is invalid.
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// The kind of a [`RegistryError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[allow(missing_docs)]
pub enum RegistryErrorKind {
    DuplicateName,
    ReservedName,
    NameMismatch,
    UnknownSource,
    SourceExists,
    InvalidNamespace,
    InvalidGlob,
    FlattenCollision,
    UnknownTool,
    BuiltinMismatch,
    Tool,
}

impl RegistryError {
    /// The kind, for matching.
    pub fn kind(&self) -> RegistryErrorKind {
        match self {
            Self::DuplicateName { .. } => RegistryErrorKind::DuplicateName,
            Self::ReservedName { .. } => RegistryErrorKind::ReservedName,
            Self::NameMismatch { .. } => RegistryErrorKind::NameMismatch,
            Self::UnknownSource { .. } => RegistryErrorKind::UnknownSource,
            Self::SourceExists { .. } => RegistryErrorKind::SourceExists,
            Self::InvalidNamespace { .. } => RegistryErrorKind::InvalidNamespace,
            Self::InvalidGlob { .. } => RegistryErrorKind::InvalidGlob,
            Self::FlattenCollision { .. } => RegistryErrorKind::FlattenCollision,
            Self::UnknownTool { .. } => RegistryErrorKind::UnknownTool,
            Self::BuiltinMismatch { .. } => RegistryErrorKind::BuiltinMismatch,
            Self::Tool(_) => RegistryErrorKind::Tool,
        }
    }
}
