//! Lexical, total path normalisation for claims.

use std::fmt;

/// Why a path cannot be claimed precisely (the claim then degrades to
/// `Global`, never toward `Shared`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// `..` climbs above the root (or above the working directory of a
    /// relative path with no working directory given).
    #[error("path {0:?} climbs above its root")]
    AboveRoot(String),
    /// The path holds a NUL byte.
    #[error("path {0:?} holds a NUL byte")]
    Nul(String),
}

/// A normalised path: absolute or relative (to an unknown working
/// directory), as components. `.` is removed, `..` resolved, repeated and
/// trailing separators dropped.
///
/// ```
/// use tool_concurrency::ClaimPath;
/// let p = ClaimPath::parse("src/./a//b/../c.rs/", Some("/work")).unwrap();
/// assert_eq!(p.to_string(), "/work/src/a/c.rs");
/// assert!(ClaimPath::parse("/../etc", None).is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClaimPath {
    absolute: bool,
    components: Vec<String>,
}

impl ClaimPath {
    /// Normalise `path`; a relative path is joined to `cwd` when given.
    pub fn parse(path: &str, cwd: Option<&str>) -> Result<Self, PathError> {
        if path.contains('\0') {
            return Err(PathError::Nul(path.to_owned()));
        }
        let mut out = match (path.starts_with('/'), cwd) {
            (false, Some(cwd)) => Self::parse(cwd, None)?,
            (absolute, _) => Self {
                absolute,
                components: Vec::new(),
            },
        };
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if out.components.pop().is_none() {
                        return Err(PathError::AboveRoot(path.to_owned()));
                    }
                }
                other => out.components.push(other.to_owned()),
            }
        }
        Ok(out)
    }

    /// True for absolute paths.
    pub fn is_absolute(&self) -> bool {
        self.absolute
    }

    /// The components, in order.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// True when the paths are equal or one is an ancestor of the other,
    /// compared component by component (`src/a` and `src/ab` do not
    /// overlap). An absolute and a relative path (unknown working
    /// directory) are taken to overlap: the safe answer.
    pub fn overlaps(&self, other: &Self) -> bool {
        if self.absolute != other.absolute {
            return true;
        }
        let n = self.components.len().min(other.components.len());
        self.components[..n] == other.components[..n]
    }
}

impl fmt::Display for ClaimPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let joined = self.components.join("/");
        match (self.absolute, joined.is_empty()) {
            (true, _) => write!(f, "/{joined}"),
            (false, true) => f.write_str("."),
            (false, false) => f.write_str(&joined),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(s: &str) -> ClaimPath {
        ClaimPath::parse(s, None).unwrap()
    }

    #[test]
    fn component_wise_overlap() {
        assert!(!p("src/a").overlaps(&p("src/ab")));
        assert!(p("src/a").overlaps(&p("src/a/b.rs")));
        assert!(p("src/a/b.rs").overlaps(&p("src/a")));
        assert!(
            p("/x").overlaps(&p("y")),
            "absolute vs relative is unknown, so overlapping"
        );
        assert!(p(".").overlaps(&p("anything")));
    }

    #[test]
    fn relative_paths_join_the_working_directory() {
        assert_eq!(
            ClaimPath::parse("../b", Some("/w/a")).unwrap().to_string(),
            "/w/b"
        );
        assert!(ClaimPath::parse("../../..", Some("/w")).is_err());
        assert!(ClaimPath::parse("a\0b", None).is_err());
    }

    proptest! {
        #[test]
        fn normalisation_is_idempotent(s in "[a-c./]{0,24}", cwd in proptest::option::of("/[a-c./]{0,10}")) {
            if let Ok(once) = ClaimPath::parse(&s, cwd.as_deref()) {
                let twice = ClaimPath::parse(&once.to_string(), None).unwrap();
                prop_assert_eq!(once, twice);
            }
        }
    }
}
