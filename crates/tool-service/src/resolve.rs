//! Name repair: case, `-` vs `_`, a missing or an extra namespace.

use tool_core::fold_tool_name as fold;

/// Repair a name the model got slightly wrong, against the dispatchable
/// names. Stages, first with any hit wins: same name after folding case
/// and `-`/`_`; a candidate that is the name with a namespace prefix
/// (`create_issue` → `github__create_issue`); the name with an extra
/// namespace prefix (`functions.read_file` → `read_file`). One hit is the
/// repair; several are an ambiguity (`Err` with the candidates); none is
/// `Err` with nothing.
///
/// ```
/// use tool_service::repair_name;
/// let names = ["read_file", "github__create_issue", "gitlab__create_issue"];
/// assert_eq!(repair_name("Read-File", names), Ok("read_file".to_owned()));
/// assert_eq!(repair_name("functions_read_file", names), Ok("read_file".to_owned()));
/// assert_eq!(repair_name("create_issue", names).unwrap_err().len(), 2);
/// ```
pub fn repair_name<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Result<String, Vec<String>> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let want = fold(name);
    let stages: [&dyn Fn(&str) -> bool; 3] = [
        &|c: &str| fold(c) == want,
        &|c: &str| {
            let c = fold(c);
            c.len() > want.len() + 1
                && c.ends_with(&want)
                && matches!(c.as_bytes()[c.len() - want.len() - 1], b'_' | b'.')
        },
        &|c: &str| {
            let c = fold(c);
            want.len() > c.len() + 1
                && want.ends_with(&c)
                && matches!(
                    want.as_bytes()[want.len() - c.len() - 1],
                    b'_' | b'.' | b':' | b'/'
                )
        },
    ];
    for stage in stages {
        let mut hits: Vec<String> = candidates
            .iter()
            .filter(|c| stage(c))
            .map(|c| (*c).to_owned())
            .collect();
        hits.sort();
        hits.dedup();
        match hits.len() {
            0 => {}
            1 => return Ok(hits.remove(0)),
            _ => return Err(hits),
        }
    }
    Err(Vec::new())
}
