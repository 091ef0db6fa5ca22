//! # tool-disclosure
//!
//! Show a small core set of tools in full and let the model search the
//! rest.

mod error;
mod eval;
mod index;
mod tokenize;

pub use error::{DisclosureError, DisclosureErrorKind};
pub use eval::{compare_with_baseline, evaluate, evaluate_index, load_catalog, load_queries, Comparison, LabelledQuery, Metrics};
pub use index::{FieldParams, Hit, SearchConfig, SearchIndex};
pub use tokenize::{plain_tokens, split_identifiers, Analyzer};
