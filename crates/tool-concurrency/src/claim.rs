//! [`ConcurrencyClaim`]: what one call touches, and when two calls conflict.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::ClaimPath;

/// The footprint of an exclusive claim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExclusiveScope {
    /// Unknown or unbounded footprint (a shell command): conflicts with
    /// every claim, `Shared` included.
    Global,
    /// Writes these paths (and everything below them).
    Paths(BTreeSet<ClaimPath>),
    /// Writes these nodes (graph nodes, documents, records by id).
    Nodes(BTreeSet<String>),
    /// Acts on these sessions (terminals, browsers, REPLs).
    Sessions(BTreeSet<String>),
}

/// What one call touches.
///
/// Conflict rules, exactly:
/// - `Exclusive(Global)` conflicts with every claim.
/// - `Shared` (read-only, side-effect-free) conflicts only with exclusive
///   claims.
/// - `SharedPaths` (reads a set of paths) conflicts only with `Global` and
///   with `Exclusive(Paths)` that overlap it; so reading `docs/` runs beside
///   writing `src/x.rs`.
/// - Paths overlap when equal or one is an ancestor of the other, component
///   by component; nodes and sessions conflict when their sets intersect.
/// - Two exclusive claims of *different* scope kinds (paths vs nodes, say)
///   conflict: the crate cannot know that a path and a node are unrelated,
///   so it is conservative.
///
/// ```
/// use tool_concurrency::ConcurrencyClaim;
/// let read_docs = ConcurrencyClaim::shared_paths(["docs"], None);
/// let write_src = ConcurrencyClaim::paths(["src/x.rs"], None);
/// let write_docs = ConcurrencyClaim::paths(["docs/a.md"], None);
/// assert!(!read_docs.conflicts_with(&write_src));
/// assert!(read_docs.conflicts_with(&write_docs));
/// assert!(ConcurrencyClaim::Shared.conflicts_with(&write_src));
/// assert!(ConcurrencyClaim::global().conflicts_with(&ConcurrencyClaim::Shared));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConcurrencyClaim {
    /// Read-only or side-effect-free, no particular scope.
    Shared,
    /// Reads these paths.
    SharedPaths(BTreeSet<ClaimPath>),
    /// Writes or acts within a scope.
    Exclusive(ExclusiveScope),
}

impl ConcurrencyClaim {
    /// The global exclusive claim.
    pub const fn global() -> Self {
        Self::Exclusive(ExclusiveScope::Global)
    }

    /// Exclusive paths, normalised against `cwd`; any bad path (above its
    /// root, NUL) degrades the whole claim to `Global`.
    pub fn paths<S: AsRef<str>>(paths: impl IntoIterator<Item = S>, cwd: Option<&str>) -> Self {
        match normalise_all(paths, cwd) {
            Some(set) => Self::Exclusive(ExclusiveScope::Paths(set)),
            None => Self::global(),
        }
    }

    /// Shared (read) paths, normalised against `cwd`; a bad path degrades
    /// the claim to `Global`, never to plain `Shared`.
    pub fn shared_paths<S: AsRef<str>>(
        paths: impl IntoIterator<Item = S>,
        cwd: Option<&str>,
    ) -> Self {
        match normalise_all(paths, cwd) {
            Some(set) => Self::SharedPaths(set),
            None => Self::global(),
        }
    }

    /// Exclusive nodes.
    pub fn nodes<S: Into<String>>(nodes: impl IntoIterator<Item = S>) -> Self {
        Self::Exclusive(ExclusiveScope::Nodes(
            nodes.into_iter().map(Into::into).collect(),
        ))
    }

    /// Exclusive sessions.
    pub fn sessions<S: Into<String>>(sessions: impl IntoIterator<Item = S>) -> Self {
        Self::Exclusive(ExclusiveScope::Sessions(
            sessions.into_iter().map(Into::into).collect(),
        ))
    }

    /// True for `Shared` and `SharedPaths`.
    pub fn is_shared(&self) -> bool {
        !matches!(self, Self::Exclusive(_))
    }

    /// True for `Exclusive(Global)`.
    pub fn is_global(&self) -> bool {
        matches!(self, Self::Exclusive(ExclusiveScope::Global))
    }

    /// Whether the two calls must not run at the same time. Symmetric.
    pub fn conflicts_with(&self, other: &Self) -> bool {
        use ConcurrencyClaim::{Exclusive, Shared, SharedPaths};
        use ExclusiveScope::{Global, Nodes, Paths, Sessions};
        match (self, other) {
            (Exclusive(Global), _)
            | (_, Exclusive(Global))
            | (Shared, Exclusive(_))
            | (Exclusive(_), Shared) => true,
            (Shared | SharedPaths(_), Shared | SharedPaths(_)) => false,
            (SharedPaths(read), Exclusive(scope)) | (Exclusive(scope), SharedPaths(read)) => {
                match scope {
                    Paths(write) => any_overlap(read, write),
                    _ => false,
                }
            }
            (Exclusive(a), Exclusive(b)) => match (a, b) {
                (Paths(x), Paths(y)) => any_overlap(x, y),
                (Nodes(x), Nodes(y)) | (Sessions(x), Sessions(y)) => !x.is_disjoint(y),
                _ => true,
            },
        }
    }
}

fn normalise_all<S: AsRef<str>>(
    paths: impl IntoIterator<Item = S>,
    cwd: Option<&str>,
) -> Option<BTreeSet<ClaimPath>> {
    paths
        .into_iter()
        .map(|p| ClaimPath::parse(p.as_ref(), cwd).ok())
        .collect()
}

fn any_overlap(a: &BTreeSet<ClaimPath>, b: &BTreeSet<ClaimPath>) -> bool {
    a.iter().any(|x| b.iter().any(|y| x.overlaps(y)))
}

/// The serialised shape of a claim: `"shared"`, `{"shared": [paths]}`,
/// `"global"`, `{"paths": [...]}`, `{"nodes": [...]}` or
/// `{"sessions": [...]}`. Paths are kept as written until
/// [`ClaimSpec::resolve`] normalises them against a working directory.
///
/// ```
/// use tool_concurrency::{ClaimSpec, ConcurrencyClaim};
/// let spec: ClaimSpec = serde_json::from_str(r#"{"paths": ["a.txt"]}"#).unwrap();
/// assert_eq!(spec.resolve(Some("/w")), ConcurrencyClaim::paths(["/w/a.txt"], None));
/// let shared: ClaimSpec = serde_json::from_str(r#""shared""#).unwrap();
/// assert_eq!(shared.resolve(None), ConcurrencyClaim::Shared);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ClaimSpec {
    /// `"shared"` or `"global"`.
    Word(ClaimWord),
    /// `{"shared"|"paths"|"nodes"|"sessions": [...]}`.
    Scoped(ScopedClaim),
}

/// The one-word claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimWord {
    /// Read-only, no scope.
    Shared,
    /// Exclusive, unknown footprint.
    Global,
}

/// The scoped claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ScopedClaim {
    /// Reads these paths.
    Shared(Vec<String>),
    /// Writes these paths.
    Paths(Vec<String>),
    /// Writes these nodes.
    Nodes(Vec<String>),
    /// Acts on these sessions.
    Sessions(Vec<String>),
}

impl ClaimSpec {
    /// Normalise into a claim, joining relative paths to `cwd`.
    pub fn resolve(&self, cwd: Option<&str>) -> ConcurrencyClaim {
        match self {
            Self::Word(ClaimWord::Shared) => ConcurrencyClaim::Shared,
            Self::Word(ClaimWord::Global) => ConcurrencyClaim::global(),
            Self::Scoped(ScopedClaim::Shared(p)) => ConcurrencyClaim::shared_paths(p, cwd),
            Self::Scoped(ScopedClaim::Paths(p)) => ConcurrencyClaim::paths(p, cwd),
            Self::Scoped(ScopedClaim::Nodes(n)) => ConcurrencyClaim::nodes(n.iter().cloned()),
            Self::Scoped(ScopedClaim::Sessions(s)) => ConcurrencyClaim::sessions(s.iter().cloned()),
        }
    }
}

impl From<&ConcurrencyClaim> for ClaimSpec {
    fn from(claim: &ConcurrencyClaim) -> Self {
        let strings = |set: &BTreeSet<ClaimPath>| set.iter().map(ToString::to_string).collect();
        match claim {
            ConcurrencyClaim::Shared => Self::Word(ClaimWord::Shared),
            ConcurrencyClaim::SharedPaths(p) => Self::Scoped(ScopedClaim::Shared(strings(p))),
            ConcurrencyClaim::Exclusive(ExclusiveScope::Global) => Self::Word(ClaimWord::Global),
            ConcurrencyClaim::Exclusive(ExclusiveScope::Paths(p)) => {
                Self::Scoped(ScopedClaim::Paths(strings(p)))
            }
            ConcurrencyClaim::Exclusive(ExclusiveScope::Nodes(n)) => {
                Self::Scoped(ScopedClaim::Nodes(n.iter().cloned().collect()))
            }
            ConcurrencyClaim::Exclusive(ExclusiveScope::Sessions(s)) => {
                Self::Scoped(ScopedClaim::Sessions(s.iter().cloned().collect()))
            }
        }
    }
}

impl Serialize for ConcurrencyClaim {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ClaimSpec::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ConcurrencyClaim {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ClaimSpec::deserialize(deserializer).map(|spec| spec.resolve(None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_exclusive_kinds_conflict() {
        assert!(
            ConcurrencyClaim::nodes(["n1"]).conflicts_with(&ConcurrencyClaim::paths(["a"], None))
        );
        assert!(ConcurrencyClaim::sessions(["s"]).conflicts_with(&ConcurrencyClaim::nodes(["s"])));
        assert!(!ConcurrencyClaim::nodes(["a"]).conflicts_with(&ConcurrencyClaim::nodes(["b"])));
        assert!(ConcurrencyClaim::sessions(["a", "b"])
            .conflicts_with(&ConcurrencyClaim::sessions(["b"])));
    }

    #[test]
    fn shared_paths_ignore_nodes_and_sessions() {
        let read = ConcurrencyClaim::shared_paths(["docs"], None);
        assert!(!read.conflicts_with(&ConcurrencyClaim::nodes(["x"])));
        assert!(!read.conflicts_with(&ConcurrencyClaim::Shared));
    }

    #[test]
    fn bad_paths_degrade_to_global_never_shared() {
        assert!(ConcurrencyClaim::shared_paths(["../x"], None).is_global());
        assert!(ConcurrencyClaim::paths(["a", "b\0"], None).is_global());
    }

    #[test]
    fn serde_shapes() {
        for text in [
            r#""shared""#,
            r#""global""#,
            r#"{"shared":["/d"]}"#,
            r#"{"paths":["/a","/b"]}"#,
            r#"{"nodes":["n"]}"#,
            r#"{"sessions":["s"]}"#,
        ] {
            let claim: ConcurrencyClaim = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&claim).unwrap(), text);
        }
        assert!(serde_json::from_str::<ConcurrencyClaim>(r#"{"files":["a"]}"#).is_err());
    }
}
