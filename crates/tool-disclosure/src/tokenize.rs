//! Tool-aware tokenisation: identifiers split into words, Unicode folded
//! (`deunicode`), lower-cased, English stop words dropped (the NLTK list of
//! `stop-words`) and words stemmed (Snowball English, `rust-stemmers`).
//!
//! These are the components the `bm25` crate's `DefaultTokenizer` uses; we
//! call them directly because that tokenizer cannot split identifiers and
//! spent about 13 µs per query, most of our 20 µs budget. Almost all of it
//! was Snowball stemming (about 0.7 µs a word), so stems are memoised: the
//! vocabulary of tool catalogs and requests is small and repetitive.

use std::collections::{HashMap, HashSet};
use std::sync::RwLock;

use rust_stemmers::{Algorithm, Stemmer};

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
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
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
    stopwords: HashSet<&'static str>,
    stemmer: Stemmer,
    stems: RwLock<HashMap<String, String>>,
}

/// Memoised stems at most; past this, words are stemmed each time.
const MAX_CACHED_STEMS: usize = 200_000;

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english, stemmed, stop words removed)")
    }
}

impl Default for Analyzer {
    fn default() -> Self {
        Self {
            stopwords: stop_words::get(stop_words::LANGUAGE::English)
                .iter()
                .copied()
                .collect(),
            stemmer: Stemmer::create(Algorithm::English),
            stems: RwLock::new(HashMap::new()),
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
    /// assert_eq!(a.tokens("Café résumé"), vec!["cafe", "resum"]);
    /// ```
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let split = split_identifiers(text);
        let folded = deunicode::deunicode_with_tofu_cow(&split, " ");
        let lower = folded.to_lowercase();
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !self.stopwords.contains(w))
            .map(|w| self.stem(w))
            .collect()
    }

    fn stem(&self, word: &str) -> String {
        if let Some(stem) = self
            .stems
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(word)
        {
            return stem.clone();
        }
        let stem = self.stemmer.stem(word).into_owned();
        let mut cache = self
            .stems
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cache.len() < MAX_CACHED_STEMS {
            cache.insert(word.to_owned(), stem.clone());
        }
        stem
    }
}

/// The baseline's tokens: lower-cased words (`\w+`), nothing else.
pub fn plain_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}
