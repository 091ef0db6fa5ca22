//! Close-name suggestions for not-found errors.

/// A tool name folded for loose comparison: ASCII lower case, `-` read as
/// `_`.
///
/// ```
/// assert_eq!(tool_core::fold_tool_name("Read-File"), "read_file");
/// ```
pub fn fold_tool_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Levenshtein distance over characters, after folding case and treating
/// `-` and `_` as one.
fn distance(a: &str, b: &str) -> usize {
    let fold = |s: &str| -> Vec<char> { fold_tool_name(s).chars().collect() };
    let (a, b) = (fold(a), fold(b));
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Up to `limit` candidate names close to `name`, best first (ties by
/// name): within an edit distance of a third of the name's length (at
/// least 2), or containing it, or contained in it.
///
/// ```
/// let names = ["read_file", "write_file", "list_dir"];
/// assert_eq!(tool_core::closest_names("Read-File", names, 3), vec!["read_file"]);
/// assert_eq!(tool_core::closest_names("file", names, 3), vec!["read_file", "write_file"]);
/// ```
pub fn closest_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<String> {
    let lower = fold_tool_name(name);
    let budget = (name.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|c| {
            let d = distance(name, c);
            let folded = fold_tool_name(c);
            let related = lower.len() >= 3 && (folded.contains(&lower) || lower.contains(&folded));
            (d <= budget || related).then_some((d, c))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup();
    scored
        .into_iter()
        .take(limit)
        .map(|(_, c)| c.to_owned())
        .collect()
}
