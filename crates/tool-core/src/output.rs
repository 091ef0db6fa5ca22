//! [`ToolOutput`]: what a tool gives back.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One piece of content for the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A JSON value.
    Json {
        /// The value.
        value: Value,
    },
    /// A reference to binary data (an image, a file) kept out of band.
    Binary {
        /// Its MIME type, e.g. `image/png`.
        mime_type: String,
        /// Where it lives (a URI, a file path, a blob id).
        uri: String,
        /// Its size in bytes, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        size_bytes: Option<u64>,
    },
}

impl Content {
    /// Bytes this part costs in a text rendering (binary counts its reference).
    pub fn text_len(&self) -> usize {
        match self {
            Self::Text { text } => text.len(),
            Self::Json { value } => value.to_string().len(),
            Self::Binary { uri, mime_type, .. } => uri.len() + mime_type.len(),
        }
    }
}

/// The result of one tool call.
///
/// ```
/// use serde_json::json;
/// use tool_core::ToolOutput;
/// let out = ToolOutput::text("3 files").with_structured(json!({"count": 3}));
/// assert_eq!(out.to_text(), "3 files");
/// assert!(!out.is_error);
/// let failed = ToolOutput::error("file not found");
/// assert!(failed.is_error);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOutput {
    /// Content shown to the model, in order.
    pub content: Vec<Content>,
    /// Structured output (checked against the output schema if declared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Host-side metadata, not shown to the model.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// The model should read this result as a failure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl ToolOutput {
    /// A text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Text { text: text.into() }],
            ..Self::default()
        }
    }
    /// A JSON result, also given as structured output.
    pub fn json(value: Value) -> Self {
        Self {
            content: vec![Content::Json {
                value: value.clone(),
            }],
            structured: Some(value),
            ..Self::default()
        }
    }
    /// A result the model should see as a failure.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }
    /// Set the structured output.
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }
    /// Add a metadata entry.
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata.insert(key.into(), value);
        self
    }
    /// All content rendered as text, parts joined by newlines.
    pub fn to_text(&self) -> String {
        self.content
            .iter()
            .map(|c| match c {
                Content::Text { text } => text.clone(),
                Content::Json { value } => value.to_string(),
                Content::Binary { mime_type, uri, .. } => format!("[{mime_type}: {uri}]"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
    /// Bytes of the content as the model sees it.
    pub fn content_len(&self) -> usize {
        self.content.iter().map(Content::text_len).sum()
    }
}
