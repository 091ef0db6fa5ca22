//! Tool-aware tokenisation: identifiers split into words, then the `bm25`
//! crate's tokenizer folds Unicode, lower-cases, drops English stop words
//! and stems.

use bm25::{DefaultTokenizer, Language, Tokenizer};

/// Split identifiers into words: snake_case, kebab-case, dotted and
/// namespaced names (`github__create_issue`), camelCase and PascalCase
/// (`HTTPServer` → `HTTP Server`), and letter/digit boundaries.
///
/// ```
/// use tool_disclosure::split_identifiers;
/// assert_eq!(split_identifiers("github__createIssue"), "github create Issue");
/// assert_eq!(split_identifiers("parseHTTPResponse.v2"), "parse HTTP Response v 2");
/// ```
pub fn split_identifiers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, '_' | '-' | '.' | '/' | ':' | '\\') {
            if !out.ends_with(' ') {
                out.push(' ');
            }
            continue;
        }
        if i > 0 && !out.ends_with(' ') {
            let prev = chars[i - 1];
            let next = chars.get(i + 1).copied();
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() && c.is_ascii_digit())
                || (prev.is_ascii_digit() && c.is_alphabetic());
            if boundary {
                out.push(' ');
            }
        }
        out.push(c);
    }
    out.trim_end().to_owned()
}

/// The analyser used for both documents and queries.
pub struct Analyzer {
    inner: DefaultTokenizer,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english, stemmed, stop words removed)")
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            inner: DefaultTokenizer::builder()
                .language_mode(Language::English)
                .normalization(true)
                .stemming(true)
                .stopwords(true)
                .build(),
        }
    }
}

impl Analyzer {
    /// Tokens of `text`, identifiers split first.
    ///
    /// ```
    /// let a = tool_disclosure::Analyzer::default();
    /// assert_eq!(a.tokens("Find the nearest nurseries"), vec!["find", "nearest", "nurseri"]);
    /// assert_eq!(a.tokens("local_nursery_find"), vec!["local", "nurseri", "find"]);
    /// ```
    pub fn tokens(&self, text: &str) -> Vec<String> {
        self.inner.tokenize(&split_identifiers(text))
    }
}

/// The baseline's tokens: lower-cased words (`\w+`), nothing else.
pub fn plain_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}
