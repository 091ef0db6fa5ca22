//! # tool-disclosure
//!
//! An agent with a few hundred tools spends most of its context on their
//! schemas, and models pick worse from long lists. This crate shows a small
//! core set in full and lets the model search the rest.
//!
//! - [`ProgressiveDisclosureRewriter`]: per request, core tools (names or
//!   globs) stay in full; every other tool is deferred, shown `collapsed`,
//!   `compact` or `hidden` ([`DeferredStyle`]). An empty core set (without
//!   `defer_mcp_tools`) or one containing `*` detaches it: output is the
//!   input, byte for byte.
//! - [`DisclosureSession`]: the deferred snapshot of the request, the
//!   `get_tool_schema` and `tool_search` meta tools, and append-only
//!   promotion of found tools.
//! - [`SearchIndex`]: BM25F over name, description, parameter names and
//!   parameter descriptions with tool-aware tokenisation ([`Analyzer`]);
//!   incremental; deterministic (ties by name).
//! - The evaluation harness ([`compare_with_baseline`], [`Metrics`]).
//!
//! ```
//! use tool_core::ToolDefinition;
//! use tool_disclosure::SearchIndex;
//!
//! let tools = vec![
//!     ToolDefinition::builder("calculate_triangle_area", "Calculate the area of a triangle given its base and height.").build().unwrap(),
//!     ToolDefinition::builder("get_stock_price", "Get the latest price of a stock by its ticker.").build().unwrap(),
//! ];
//! let index = SearchIndex::build(&tools);
//! let hits = index.search("What's the area of a triangle with base 10 and height 5?", 5, |_| true);
//! assert_eq!(hits[0].name, "calculate_triangle_area");
//! ```

mod error;
mod eval;
mod index;
mod rewriter;
mod session;
mod tokenize;

pub use error::{DisclosureError, DisclosureErrorKind};
pub use eval::{
    compare_with_baseline, evaluate, evaluate_index, load_catalog, load_queries, Comparison,
    LabelledQuery, Metrics,
};
pub use index::{FieldParams, Hit, SearchConfig, SearchIndex};
pub use rewriter::{
    first_sentence, get_tool_schema_definition, tool_search_definition, DeferredStyle, Disclosed,
    DisclosureConfig, ProgressiveDisclosureRewriter, GET_TOOL_SCHEMA, TOOL_SEARCH,
};
pub use session::{DisclosureSession, SharedIndex};
pub use tokenize::{plain_tokens, split_identifiers, Analyzer};
