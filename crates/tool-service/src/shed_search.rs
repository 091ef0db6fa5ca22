//! tool-disclosure's BM25F search behind tool-registry's shed-style
//! activation (the registry cannot depend on disclosure; the service joins
//! them).

use tool_core::ToolDefinition;
use tool_disclosure::SearchIndex;
use tool_registry::ToolSearcher;

/// A [`ToolSearcher`] for `Activation` that ranks with BM25F.
///
/// ```
/// use std::sync::Arc;
/// use tool_core::{FnTool, ToolOutput};
/// use tool_registry::Activation;
/// use tool_service::Bm25ShedSearcher;
/// let tool = |n: &str, d: &str| FnTool::builder(n, d).handler(|_, _| async { Ok(ToolOutput::text("ok")) }).unwrap();
/// let session = Activation::new(vec![tool("send_email", "Send an email message."), tool("read_file", "Read a file.")])
///     .unwrap()
///     .with_searcher(Arc::new(Bm25ShedSearcher));
/// assert_eq!(session.search("email my colleague", 5)[0].name(), "send_email");
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Bm25ShedSearcher;

impl ToolSearcher for Bm25ShedSearcher {
    fn search(&self, query: &str, tools: &[ToolDefinition], limit: usize) -> Vec<String> {
        SearchIndex::build(tools)
            .search(query, limit, |_| true)
            .into_iter()
            .map(|h| h.name)
            .collect()
    }
}
