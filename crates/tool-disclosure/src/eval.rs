//! The evaluation harness: recall@k, MRR@10 and nDCG@10 of a search over
//! labelled queries.

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tool_core::ToolDefinition;

use crate::{DisclosureError, SearchIndex};

/// One labelled request: `{"query": ..., "relevant": [tool names]}` (other
/// fields, like `id` and `category`, are kept when present).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelledQuery {
    /// An id, if the file gives one.
    #[serde(default)]
    pub id: Option<String>,
    /// A category, if the file gives one.
    #[serde(default)]
    pub category: Option<String>,
    /// The user's request.
    pub query: String,
    /// The tools a right answer calls.
    pub relevant: Vec<String>,
}

/// Quality figures of one search over one query set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Share of relevant tools in the top 1, averaged over queries.
    pub recall_at_1: f64,
    /// ... in the top 5.
    pub recall_at_5: f64,
    /// ... in the top 10.
    pub recall_at_10: f64,
    /// Mean reciprocal rank of the first relevant tool within the top 10.
    pub mrr_at_10: f64,
    /// Normalised discounted cumulative gain at 10 (binary relevance).
    pub ndcg_at_10: f64,
    /// Number of queries.
    pub queries: usize,
}

/// Read a JSON-lines query file; errors name the line.
pub fn load_queries(path: &Path) -> Result<Vec<LabelledQuery>, DisclosureError> {
    let text = std::fs::read_to_string(path).map_err(|e| DisclosureError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| DisclosureError::BadQueryLine {
                path: path.display().to_string(),
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

/// Read a catalog file (a JSON array in any supported tool format).
pub fn load_catalog(path: &Path) -> Result<Vec<ToolDefinition>, DisclosureError> {
    let text = std::fs::read_to_string(path).map_err(|e| DisclosureError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| DisclosureError::BadCatalog {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    tool_core::parse_tool_definitions(&value).map_err(|e| DisclosureError::BadCatalog {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}

/// Evaluate `ranked` (the names a search returns for a query, best first)
/// against the labels.
///
/// ```
/// use tool_disclosure::{evaluate, LabelledQuery};
/// let queries = vec![LabelledQuery { id: None, category: None, query: "q".into(), relevant: vec!["b".into()] }];
/// let m = evaluate(&queries, |_| vec!["a".into(), "b".into()]);
/// assert_eq!(m.recall_at_1, 0.0);
/// assert_eq!(m.recall_at_5, 1.0);
/// assert_eq!(m.mrr_at_10, 0.5);
/// ```
pub fn evaluate(queries: &[LabelledQuery], mut ranked: impl FnMut(&str) -> Vec<String>) -> Metrics {
    let mut m = Metrics::default();
    for q in queries {
        let relevant: HashSet<&str> = q.relevant.iter().map(String::as_str).collect();
        if relevant.is_empty() {
            continue;
        }
        let hits = ranked(&q.query);
        let found_in = |k: usize| {
            hits.iter()
                .take(k)
                .filter(|h| relevant.contains(h.as_str()))
                .count() as f64
                / relevant.len() as f64
        };
        m.recall_at_1 += found_in(1);
        m.recall_at_5 += found_in(5);
        m.recall_at_10 += found_in(10);
        if let Some(rank) = hits
            .iter()
            .take(10)
            .position(|h| relevant.contains(h.as_str()))
        {
            m.mrr_at_10 += 1.0 / (rank as f64 + 1.0);
        }
        let dcg: f64 = hits
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, h)| relevant.contains(h.as_str()))
            .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        let ideal: f64 = (0..relevant.len().min(10))
            .map(|i| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        m.ndcg_at_10 += dcg / ideal;
        m.queries += 1;
    }
    if m.queries > 0 {
        let n = m.queries as f64;
        m.recall_at_1 /= n;
        m.recall_at_5 /= n;
        m.recall_at_10 /= n;
        m.mrr_at_10 /= n;
        m.ndcg_at_10 /= n;
    }
    m
}

/// Evaluate a [`SearchIndex`] (top 10 per query, every tool visible).
pub fn evaluate_index(index: &SearchIndex, queries: &[LabelledQuery]) -> Metrics {
    evaluate(queries, |q| {
        index
            .search(q, 10, |_| true)
            .into_iter()
            .map(|h| h.name)
            .collect()
    })
}

/// toolstack's search and the plain BM25 baseline over one catalog and
/// query set, in one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// toolstack's BM25F.
    pub toolstack: Metrics,
    /// Plain BM25 (name + description, lower-cased word tokens).
    pub baseline: Metrics,
}

/// Build both indexes over `catalog` and evaluate them on `queries`.
pub fn compare_with_baseline(catalog: &[ToolDefinition], queries: &[LabelledQuery]) -> Comparison {
    let ours = SearchIndex::build(catalog);
    let mut baseline = SearchIndex::plain_bm25();
    for t in catalog {
        baseline.add(t);
    }
    Comparison {
        toolstack: evaluate_index(&ours, queries),
        baseline: evaluate_index(&baseline, queries),
    }
}
