//! One tier's permission entries, compiled once: exact names in a map,
//! globs in one `GlobSet`.

use std::collections::{BTreeMap, HashMap};

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::{Action, PolicyError};

/// The entry of one tier that decided for a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryMatch {
    /// The tier: `global`, `agent:NAME` or `channel:NAME`.
    pub tier: String,
    /// The entry's key as written (a name or a glob).
    pub entry: String,
    /// True for an exact name, false for a glob.
    pub exact: bool,
    /// Its action.
    pub action: Action,
}

struct GlobRule {
    pattern: String,
    matcher: GlobMatcher,
    literal_prefix: usize,
    action: Action,
}

/// A tier's entries, compiled.
pub(crate) struct TierRules {
    tier: String,
    exact: HashMap<String, Action>,
    globs: Vec<GlobRule>,
    set: GlobSet,
}

/// Compile one glob where `*` also crosses `/` (names and command lines
/// are not paths); errors name the place and the pattern as written.
pub(crate) fn compile_glob(place: &str, written: &str, glob: &str) -> Result<Glob, PolicyError> {
    GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map_err(|e| PolicyError::InvalidPattern {
            place: place.to_owned(),
            pattern: written.to_owned(),
            message: e.kind().to_string(),
        })
}

pub(crate) fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

fn literal_prefix(pattern: &str) -> usize {
    pattern.find(['*', '?', '[', '{']).unwrap_or(pattern.len())
}

impl TierRules {
    pub(crate) fn compile(
        tier: &str,
        place: &str,
        entries: &BTreeMap<String, Action>,
    ) -> Result<Self, PolicyError> {
        let mut exact = HashMap::new();
        let mut globs = Vec::new();
        let mut builder = GlobSetBuilder::new();
        for (pattern, &action) in entries {
            if !is_glob(pattern) {
                exact.insert(pattern.clone(), action);
                continue;
            }
            let glob = compile_glob(place, pattern, pattern)?;
            let matcher = glob.compile_matcher();
            builder.add(glob);
            globs.push(GlobRule {
                pattern: pattern.clone(),
                matcher,
                literal_prefix: literal_prefix(pattern),
                action,
            });
        }
        let set = builder.build().map_err(|e| PolicyError::InvalidPattern {
            place: place.to_owned(),
            pattern: String::new(),
            message: e.to_string(),
        })?;
        Ok(Self {
            tier: tier.to_owned(),
            exact,
            globs,
            set,
        })
    }

    /// The deciding entry for `name`: an exact name beats any glob; among
    /// globs the longest literal prefix wins; ties go to the more
    /// restrictive action.
    pub(crate) fn lookup(&self, name: &str) -> Option<EntryMatch> {
        if let Some(&action) = self.exact.get(name) {
            return Some(EntryMatch {
                tier: self.tier.clone(),
                entry: name.to_owned(),
                exact: true,
                action,
            });
        }
        self.set
            .matches(name)
            .into_iter()
            .map(|i| &self.globs[i])
            .max_by(|a, b| {
                a.literal_prefix
                    .cmp(&b.literal_prefix)
                    .then(a.action.cmp(&b.action))
            })
            .map(|rule| EntryMatch {
                tier: self.tier.clone(),
                entry: rule.pattern.clone(),
                exact: false,
                action: rule.action,
            })
    }

    /// Naive lookup: a loop over every pattern's own matcher (the
    /// benchmark baseline; same answer as [`TierRules::lookup`]).
    pub(crate) fn lookup_naive(&self, name: &str) -> Option<Action> {
        if let Some(&a) = self.exact.get(name) {
            return Some(a);
        }
        self.globs
            .iter()
            .filter(|r| r.matcher.is_match(name))
            .max_by(|a, b| {
                a.literal_prefix
                    .cmp(&b.literal_prefix)
                    .then(a.action.cmp(&b.action))
            })
            .map(|r| r.action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tier(entries: &[(&str, Action)]) -> TierRules {
        let map = entries.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
        TierRules::compile("global", "policies.tool_permissions", &map).unwrap()
    }

    #[test]
    fn exact_beats_glob_and_longer_prefix_wins() {
        let t = tier(&[
            ("read_*", Action::Allow),
            ("read_secret", Action::Deny),
            ("*", Action::Ask),
            ("read_s*", Action::Ask),
        ]);
        assert_eq!(t.lookup("read_secret").unwrap().action, Action::Deny);
        assert_eq!(t.lookup("read_file").unwrap().action, Action::Allow);
        assert_eq!(t.lookup("read_sock").unwrap().action, Action::Ask);
        assert_eq!(t.lookup("bash").unwrap().entry, "*");
    }

    #[test]
    fn ties_go_to_the_more_restrictive() {
        let t = tier(&[("mcp_*", Action::Allow), ("mcp_?x", Action::Deny)]);
        assert_eq!(t.lookup("mcp_ax").unwrap().action, Action::Deny);
    }

    #[test]
    fn bad_glob_names_pattern_and_place() {
        let map = [("read_[".to_owned(), Action::Allow)].into_iter().collect();
        let err = TierRules::compile("global", "policies.tool_permissions", &map)
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("\"read_[\"")
                && err.to_string().contains("policies.tool_permissions")
        );
    }
}
