//! # tool-disclosure
//!
//! Planned (issue: tool-disclosure): the progressive-disclosure rewriter,
//! `get_tool_schema` and the BM25 `tool_search`.
