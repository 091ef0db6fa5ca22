//! The layering check: every crate may depend only on the siblings that the
//! machine-readable table in `docs/ARCHITECTURE.md` allows, and crates that
//! must stay runtime-free pull in no async runtime, even transitively.
//!
//! The table sits between `<!-- layering:begin -->` and
//! `<!-- layering:end -->`; each row is
//! `| \`crate\` | owns | \`sibling\`, ... or anything or none | \`forbidden\`, ... |`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// What one crate may depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// `None` means anything.
    pub allowed: Option<BTreeSet<String>>,
    /// External crates that must not appear anywhere below this crate.
    pub forbidden: BTreeSet<String>,
}

/// Parse the layering table out of ARCHITECTURE.md.
pub fn parse_table(doc: &str) -> Result<BTreeMap<String, Rule>, String> {
    let begin = doc
        .find("<!-- layering:begin -->")
        .ok_or("docs/ARCHITECTURE.md has no `<!-- layering:begin -->` marker")?;
    let end = doc[begin..]
        .find("<!-- layering:end -->")
        .ok_or("docs/ARCHITECTURE.md has no `<!-- layering:end -->` marker")?;
    let mut rules = BTreeMap::new();
    for (i, line) in doc[begin..begin + end].lines().enumerate() {
        let line = line.trim();
        if !line.starts_with('|') || line.starts_with("|---") || line.starts_with("| crate") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 4 {
            return Err(format!(
                "layering table row {i} has {} cells, expected 4: {line}",
                cells.len()
            ));
        }
        let name = ticked(cells[0]).into_iter().next().ok_or_else(|| {
            format!("layering table row {i}: first cell names no `crate`: {line}")
        })?;
        let allowed = match cells[2] {
            "anything" => None,
            "none" => Some(BTreeSet::new()),
            other => Some(ticked(other)),
        };
        let forbidden = ticked(cells[3]);
        rules.insert(name, Rule { allowed, forbidden });
    }
    if rules.is_empty() {
        return Err("the layering table in docs/ARCHITECTURE.md has no rows".into());
    }
    Ok(rules)
}

/// The backticked names in a table cell.
fn ticked(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// A package of the workspace and the dependencies it declares.
#[derive(Debug, Clone)]
pub struct Package {
    /// Package name.
    pub name: String,
    /// Names of every dependency it declares (any kind).
    pub declared: BTreeSet<String>,
    /// Package id, to walk the resolved graph.
    pub id: String,
}

/// Check declared sibling dependencies and forbidden transitive ones.
/// `resolved` maps a package id to (name, normal/build dependency ids).
pub fn violations(
    rules: &BTreeMap<String, Rule>,
    members: &[Package],
    resolved: &BTreeMap<String, (String, Vec<String>)>,
) -> Vec<String> {
    let names: BTreeSet<&str> = members.iter().map(|p| p.name.as_str()).collect();
    let mut problems = Vec::new();
    for pkg in members {
        let Some(rule) = rules.get(&pkg.name) else {
            problems.push(format!(
                "crate `{}` is not in the layering table of docs/ARCHITECTURE.md; add a row saying what it may depend on",
                pkg.name
            ));
            continue;
        };
        if let Some(allowed) = &rule.allowed {
            for dep in pkg.declared.iter().filter(|d| names.contains(d.as_str())) {
                if !allowed.contains(dep) {
                    let may = if allowed.is_empty() {
                        "no sibling".to_owned()
                    } else {
                        allowed.iter().cloned().collect::<Vec<_>>().join(", ")
                    };
                    problems.push(format!(
                        "crate `{}` depends on sibling `{dep}`, which the layering table does not allow (it may depend on: {may})",
                        pkg.name
                    ));
                }
            }
        }
        if !rule.forbidden.is_empty() {
            let mut seen = BTreeSet::new();
            let mut queue = VecDeque::from([(pkg.id.clone(), vec![pkg.name.clone()])]);
            while let Some((id, path)) = queue.pop_front() {
                if !seen.insert(id.clone()) {
                    continue;
                }
                let Some((_, deps)) = resolved.get(&id) else {
                    continue;
                };
                for dep in deps {
                    let Some((dep_name, _)) = resolved.get(dep) else {
                        continue;
                    };
                    let mut next = path.clone();
                    next.push(dep_name.clone());
                    if rule.forbidden.contains(dep_name) {
                        problems.push(format!(
                            "crate `{}` must not depend on `{dep_name}`, but does through {}",
                            pkg.name,
                            next.join(" -> ")
                        ));
                    }
                    queue.push_back((dep.clone(), next));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Read `cargo metadata` and the table, and fail with every violation.
pub fn check(root: &Path) -> Result<(), String> {
    let doc_path = root.join("docs/ARCHITECTURE.md");
    let doc = std::fs::read_to_string(&doc_path)
        .map_err(|e| format!("cannot read {}: {e}", doc_path.display()))?;
    let rules = parse_table(&doc)?;
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root)
        .args(["metadata", "--format-version", "1"])
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let meta: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed invalid JSON: {e}"))?;
    let (members, resolved) = read_metadata(&meta)?;
    let problems = violations(&rules, &members, &resolved);
    if problems.is_empty() {
        println!(
            "layering: {} crates follow docs/ARCHITECTURE.md",
            members.len()
        );
        Ok(())
    } else {
        Err(format!(
            "layering check failed:\n  - {}",
            problems.join("\n  - ")
        ))
    }
}

type Resolved = BTreeMap<String, (String, Vec<String>)>;

fn read_metadata(meta: &Value) -> Result<(Vec<Package>, Resolved), String> {
    let member_ids: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .ok_or("cargo metadata has no workspace_members")?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut members = Vec::new();
    let mut resolved = BTreeMap::new();
    for pkg in meta["packages"]
        .as_array()
        .ok_or("cargo metadata has no packages")?
    {
        let id = pkg["id"].as_str().unwrap_or_default().to_owned();
        let name = pkg["name"].as_str().unwrap_or_default().to_owned();
        resolved.insert(id.clone(), (name.clone(), Vec::new()));
        if member_ids.contains(id.as_str()) {
            let declared = pkg["dependencies"]
                .as_array()
                .map(|deps| {
                    deps.iter()
                        .filter_map(|d| d["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            members.push(Package { name, declared, id });
        }
    }
    for node in meta["resolve"]["nodes"].as_array().into_iter().flatten() {
        let id = node["id"].as_str().unwrap_or_default();
        let deps: Vec<String> = node["deps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| {
                d["dep_kinds"].as_array().is_some_and(|kinds| {
                    kinds
                        .iter()
                        .any(|k| k["kind"].is_null() || k["kind"] == "build")
                })
            })
            .filter_map(|d| d["pkg"].as_str().map(str::to_owned))
            .collect();
        if let Some(entry) = resolved.get_mut(id) {
            entry.1 = deps;
        }
    }
    Ok((members, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "
<!-- layering:begin -->
| crate | owns | may depend on | must not pull in |
|---|---|---|---|
| `core` | base | none | |
| `conc` | scheduling | `core` | `tokio` |
| `svc` | service | `core`, `conc` | |
| `cli` | binary | anything | |
<!-- layering:end -->
";

    fn pkg(name: &str, deps: &[&str]) -> Package {
        Package {
            name: name.into(),
            declared: deps.iter().map(|d| (*d).to_owned()).collect(),
            id: format!("{name}-id"),
        }
    }

    #[test]
    fn the_table_parses() {
        let rules = parse_table(DOC).unwrap();
        assert_eq!(rules["core"].allowed, Some(BTreeSet::new()));
        assert_eq!(rules["cli"].allowed, None);
        assert!(rules["conc"].forbidden.contains("tokio"));
    }

    #[test]
    fn a_forbidden_sibling_dependency_fails_with_a_clear_message() {
        let rules = parse_table(DOC).unwrap();
        let members = vec![
            pkg("core", &["svc", "serde"]),
            pkg("svc", &["core"]),
            pkg("cli", &["svc"]),
        ];
        let problems = violations(&rules, &members, &BTreeMap::new());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("crate `core` depends on sibling `svc`"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn an_unlisted_crate_fails() {
        let rules = parse_table(DOC).unwrap();
        let problems = violations(&rules, &[pkg("stray", &[])], &BTreeMap::new());
        assert!(problems[0].contains("not in the layering table"));
    }

    #[test]
    fn a_forbidden_transitive_dependency_is_found_with_its_path() {
        let rules = parse_table(DOC).unwrap();
        let mut resolved = BTreeMap::new();
        resolved.insert(
            "conc-id".to_owned(),
            ("conc".to_owned(), vec!["util-id".to_owned()]),
        );
        resolved.insert(
            "util-id".to_owned(),
            ("tokio-util".to_owned(), vec!["tokio-id".to_owned()]),
        );
        resolved.insert("tokio-id".to_owned(), ("tokio".to_owned(), vec![]));
        let problems = violations(&rules, &[pkg("conc", &["tokio-util"])], &resolved);
        assert_eq!(problems, vec!["crate `conc` must not depend on `tokio`, but does through conc -> tokio-util -> tokio".to_owned()]);
    }
}
