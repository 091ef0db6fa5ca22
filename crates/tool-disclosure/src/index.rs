//! [`SearchIndex`]: BM25F over tool definitions, incremental and
//! deterministic.
//!
//! Written by hand rather than with the `bm25` crate's search engine: that
//! engine scores one field (we weight name, description, parameter names
//! and parameter descriptions separately), hashes tokens to ids (collisions
//! merge terms), and returns equal scores in an unspecified order (we
//! tie-break by name). Its tokenizer is used (see [`crate::Analyzer`]).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::ToolDefinition;

use crate::tokenize::{plain_tokens, Analyzer};

const FIELDS: usize = 4;

/// Weight and length normalisation of one field.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FieldParams {
    /// How much a match in this field counts.
    pub weight: f32,
    /// Length normalisation, 0 (none) to 1 (full).
    pub b: f32,
}

/// BM25F parameters (tuned on the shared BFCL-derived dev queries).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SearchConfig {
    /// Term-frequency saturation.
    pub k1: f32,
    /// The tool name, split into words.
    pub name: FieldParams,
    /// The description.
    pub description: FieldParams,
    /// Parameter names, split into words.
    pub param_names: FieldParams,
    /// Parameter descriptions (and enum values).
    pub param_descriptions: FieldParams,
}

impl Default for SearchConfig {
    fn default() -> Self {
        Self {
            k1: 1.2,
            name: FieldParams {
                weight: 2.0,
                b: 0.5,
            },
            description: FieldParams {
                weight: 1.0,
                b: 0.5,
            },
            param_names: FieldParams {
                weight: 1.0,
                b: 0.5,
            },
            param_descriptions: FieldParams {
                weight: 0.4,
                b: 0.75,
            },
        }
    }
}

impl SearchConfig {
    fn fields(&self) -> [FieldParams; FIELDS] {
        [
            self.name,
            self.description,
            self.param_names,
            self.param_descriptions,
        ]
    }
}

/// How documents and queries are tokenised.
#[derive(Debug)]
enum Mode {
    /// Tool-aware: identifiers split, stemming, stop words, four fields.
    ToolAware(Analyzer),
    /// The plain baseline: lower-cased word tokens of name + description in
    /// one field, no weights.
    Plain,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The tool's name.
    pub name: String,
    /// Its BM25F score.
    pub score: f32,
}

#[derive(Debug, Clone)]
struct Doc {
    name: String,
    lens: [u32; FIELDS],
    /// (term, frequency per field), sorted by term.
    terms: Vec<(u32, [u16; FIELDS])>,
}

/// A BM25F index over tool definitions. Adding or removing a tool updates
/// postings, document frequencies and field lengths in place; results are
/// identical to a rebuilt index. Equal scores tie-break by name.
///
/// ```
/// use tool_core::ToolDefinition;
/// use tool_disclosure::SearchIndex;
/// let mut index = SearchIndex::new();
/// index.add(&ToolDefinition::builder("github__create_issue", "Open a new issue in a repository.").build().unwrap());
/// index.add(&ToolDefinition::builder("send_email", "Send an email message.").build().unwrap());
/// let hits = index.search("create an issue on GitHub", 5, |_| true);
/// assert_eq!(hits[0].name, "github__create_issue");
/// index.remove("github__create_issue");
/// assert!(index.search("issue", 5, |_| true).is_empty());
/// ```
#[derive(Debug)]
pub struct SearchIndex {
    config: SearchConfig,
    mode: Mode,
    docs: Vec<Option<Doc>>,
    /// Field lengths by slot, dense, for the scoring loop.
    lens: Vec<[u32; FIELDS]>,
    free: Vec<u32>,
    by_name: HashMap<String, u32>,
    term_ids: HashMap<String, u32>,
    postings: Vec<Vec<(u32, [u16; FIELDS])>>,
    total_len: [u64; FIELDS],
    live: u32,
}

impl Default for SearchIndex {
    fn default() -> Self {
        Self::new()
    }
}

/// Parameter names and descriptions of a schema (nested objects and array
/// items included, to a bounded depth).
fn collect_params(schema: &Value, depth: usize, names: &mut String, descriptions: &mut String) {
    if depth > 4 {
        return;
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        if let Some(items) = schema.get("items") {
            collect_params(items, depth + 1, names, descriptions);
        }
        return;
    };
    for (name, prop) in props {
        names.push_str(name);
        names.push(' ');
        if let Some(d) = prop.get("description").and_then(Value::as_str) {
            descriptions.push_str(d);
            descriptions.push(' ');
        }
        if let Some(values) = prop.get("enum").and_then(Value::as_array) {
            for v in values.iter().filter_map(Value::as_str) {
                descriptions.push_str(v);
                descriptions.push(' ');
            }
        }
        collect_params(prop, depth + 1, names, descriptions);
    }
}

impl SearchIndex {
    /// An empty tool-aware index with the default parameters.
    pub fn new() -> Self {
        Self::with_config(SearchConfig::default())
    }

    /// An empty tool-aware index with these parameters.
    pub fn with_config(config: SearchConfig) -> Self {
        Self::empty(config, Mode::ToolAware(Analyzer::default()))
    }

    /// The plain BM25 baseline: name + description, lower-cased word
    /// tokens, one field, k1 = 1.5, b = 0.75, no field weights.
    pub fn plain_bm25() -> Self {
        let one = FieldParams {
            weight: 1.0,
            b: 0.75,
        };
        let none = FieldParams {
            weight: 0.0,
            b: 0.0,
        };
        let config = SearchConfig {
            k1: 1.5,
            name: one,
            description: none,
            param_names: none,
            param_descriptions: none,
        };
        Self::empty(config, Mode::Plain)
    }

    fn empty(config: SearchConfig, mode: Mode) -> Self {
        Self {
            config,
            mode,
            docs: Vec::new(),
            lens: Vec::new(),
            free: Vec::new(),
            by_name: HashMap::new(),
            term_ids: HashMap::new(),
            postings: Vec::new(),
            total_len: [0; FIELDS],
            live: 0,
        }
    }

    /// Build an index over many tools.
    pub fn build<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Self {
        let mut index = Self::new();
        for t in tools {
            index.add(t);
        }
        index
    }

    /// The parameters in use.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Number of indexed tools.
    pub fn len(&self) -> usize {
        self.live as usize
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// True when a tool of this name is indexed.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    fn field_tokens(&self, def: &ToolDefinition) -> [Vec<String>; FIELDS] {
        match &self.mode {
            Mode::Plain => {
                let text = format!("{} {}", def.name(), def.description());
                [plain_tokens(&text), Vec::new(), Vec::new(), Vec::new()]
            }
            Mode::ToolAware(analyzer) => {
                let (mut names, mut descriptions) = (String::new(), String::new());
                collect_params(def.input_schema(), 0, &mut names, &mut descriptions);
                [
                    analyzer.tokens(def.name()),
                    analyzer.tokens(def.description()),
                    analyzer.tokens(&names),
                    analyzer.tokens(&descriptions),
                ]
            }
        }
    }

    fn query_tokens(&self, query: &str) -> Vec<String> {
        match &self.mode {
            Mode::Plain => plain_tokens(query),
            Mode::ToolAware(analyzer) => analyzer.tokens(query),
        }
    }

    /// Add a tool (replacing one of the same name).
    pub fn add(&mut self, def: &ToolDefinition) {
        self.remove(def.name());
        let fields = self.field_tokens(def);
        let mut counts: BTreeMap<u32, [u16; FIELDS]> = BTreeMap::new();
        let mut lens = [0u32; FIELDS];
        for (f, tokens) in fields.iter().enumerate() {
            lens[f] = tokens.len() as u32;
            for token in tokens {
                let next = self.term_ids.len() as u32;
                let id = *self.term_ids.entry(token.clone()).or_insert(next);
                if id as usize == self.postings.len() {
                    self.postings.push(Vec::new());
                }
                let c = counts.entry(id).or_insert([0; FIELDS]);
                c[f] = c[f].saturating_add(1);
            }
        }
        let slot = self.free.pop().unwrap_or_else(|| {
            self.docs.push(None);
            self.lens.push([0; FIELDS]);
            (self.docs.len() - 1) as u32
        });
        self.lens[slot as usize] = lens;
        for (&term, tf) in &counts {
            self.postings[term as usize].push((slot, *tf));
        }
        for (f, len) in lens.iter().enumerate() {
            self.total_len[f] += u64::from(*len);
        }
        self.docs[slot as usize] = Some(Doc {
            name: def.name().to_owned(),
            lens,
            terms: counts.into_iter().collect(),
        });
        self.by_name.insert(def.name().to_owned(), slot);
        self.live += 1;
    }

    /// Remove a tool; true when it was indexed.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(slot) = self.by_name.remove(name) else {
            return false;
        };
        let Some(doc) = self.docs[slot as usize].take() else {
            return false;
        };
        for (term, _) in &doc.terms {
            self.postings[*term as usize].retain(|(s, _)| *s != slot);
        }
        for (f, len) in doc.lens.iter().enumerate() {
            self.total_len[f] -= u64::from(*len);
        }
        self.free.push(slot);
        self.live -= 1;
        true
    }

    /// Query terms with their counts, sorted by the token text (not the
    /// term id, which depends on insertion order): scores are then summed
    /// in the same order in every index, rebuilt or updated.
    fn weighted_terms(&self, query: &str) -> Vec<(u32, f32)> {
        let mut tokens = self.query_tokens(query);
        tokens.sort_unstable();
        let mut weighted: Vec<(u32, f32)> = Vec::new();
        let mut last: Option<&str> = None;
        for token in &tokens {
            let Some(&id) = self.term_ids.get(token) else {
                continue;
            };
            match (last, weighted.last_mut()) {
                (Some(prev), Some((_, q))) if prev == token => *q += 1.0,
                _ => weighted.push((id, 1.0)),
            }
            last = Some(token);
        }
        weighted
    }

    /// Statistics of the current collection.
    fn stats(&self) -> Stats {
        let n = self.live as f32;
        let mut avg = [0f32; FIELDS];
        for (f, a) in avg.iter_mut().enumerate() {
            *a = (self.total_len[f] as f32 / n).max(1.0);
        }
        Stats {
            n,
            avg,
            params: self.config.fields(),
            k1: self.config.k1,
        }
    }

    /// The best `limit` tools for `query` among those `visible` accepts,
    /// best first; equal scores in name order. Tools with no matching term
    /// are not returned.
    pub fn search(&self, query: &str, limit: usize, visible: impl Fn(&str) -> bool) -> Vec<Hit> {
        if self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let stats = self.stats();
        let mut scores = vec![0f32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (term, qtf) in self.weighted_terms(query) {
            let postings = &self.postings[term as usize];
            let idf = stats.idf(postings.len());
            for (slot, tfs) in postings {
                let contribution = stats.term_score(&self.lens[*slot as usize], *tfs, qtf, idf);
                if contribution == 0.0 {
                    continue;
                }
                let s = &mut scores[*slot as usize];
                if *s == 0.0 {
                    touched.push(*slot);
                }
                *s += contribution;
            }
        }
        let hits: Vec<(f32, &str)> = touched
            .into_iter()
            .filter_map(|slot| {
                let doc = self.docs[slot as usize].as_ref()?;
                visible(&doc.name).then(|| (scores[slot as usize], doc.name.as_str()))
            })
            .collect();
        top_k(hits, limit)
    }

    /// Score every tool for every query term by scanning each tool's own
    /// term list, without postings: the naive baseline of the benchmark
    /// (same ranking as [`Self::search`]).
    #[doc(hidden)]
    pub fn search_naive(&self, query: &str, limit: usize) -> Vec<Hit> {
        if self.live == 0 || limit == 0 {
            return Vec::new();
        }
        let stats = self.stats();
        let weighted = self.weighted_terms(query);
        let idfs: Vec<f32> = weighted
            .iter()
            .map(|(t, _)| stats.idf(self.postings[*t as usize].len()))
            .collect();
        let hits: Vec<(f32, &str)> = self
            .docs
            .iter()
            .flatten()
            .filter_map(|doc| {
                let mut score = 0f32;
                for ((term, qtf), idf) in weighted.iter().zip(&idfs) {
                    if let Some((_, tfs)) = doc.terms.iter().find(|(t, _)| t == term) {
                        score += stats.term_score(&doc.lens, *tfs, *qtf, *idf);
                    }
                }
                (score > 0.0).then_some((score, doc.name.as_str()))
            })
            .collect();
        top_k(hits, limit)
    }
}

struct Stats {
    n: f32,
    avg: [f32; FIELDS],
    params: [FieldParams; FIELDS],
    k1: f32,
}

impl Stats {
    fn idf(&self, df: usize) -> f32 {
        let df = df as f32;
        (1.0 + (self.n - df + 0.5) / (df + 0.5)).ln()
    }

    /// BM25F: field frequencies, weighted and length-normalised, summed,
    /// then saturated once.
    fn term_score(&self, lens: &[u32; FIELDS], tfs: [u16; FIELDS], qtf: f32, idf: f32) -> f32 {
        let mut tf = 0f32;
        for f in 0..FIELDS {
            let p = self.params[f];
            if tfs[f] > 0 && p.weight > 0.0 {
                let norm = 1.0 - p.b + p.b * lens[f] as f32 / self.avg[f];
                tf += p.weight * f32::from(tfs[f]) / norm;
            }
        }
        if tf == 0.0 {
            return 0.0;
        }
        qtf * idf * tf * (self.k1 + 1.0) / (self.k1 + tf)
    }
}

/// The best `limit`, best first, equal scores by name.
fn top_k(mut hits: Vec<(f32, &str)>, limit: usize) -> Vec<Hit> {
    let order = |a: &(f32, &str), b: &(f32, &str)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1));
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    hits.into_iter()
        .map(|(score, name)| Hit {
            name: name.to_owned(),
            score,
        })
        .collect()
}
