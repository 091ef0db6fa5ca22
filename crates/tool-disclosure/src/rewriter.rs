//! [`ProgressiveDisclosureRewriter`]: core tools in full, every other tool
//! deferred behind `get_tool_schema` and `tool_search`.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_core::{ToolCategory, ToolDefinition, ToolFacts};

use crate::DisclosureError;

/// Name of the search meta tool.
pub const TOOL_SEARCH: &str = "tool_search";
/// Name of the schema meta tool.
pub const GET_TOOL_SCHEMA: &str = "get_tool_schema";

/// How deferred tools are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeferredStyle {
    /// Name and full description; schema collapsed to an open object, with
    /// a hint to call `get_tool_schema`.
    #[default]
    Collapsed,
    /// Not listed as tools; instead one line per tool (name and the
    /// description's first sentence, cut at `compact_max_chars`) in the
    /// `tool_search` description. Found tools are appended in full.
    Compact,
    /// Not listed; reachable only through `tool_search`.
    Hidden,
}

fn default_compact_max_chars() -> usize {
    60
}

/// Disclosure settings (serde; `[tools]` in a gateway file).
///
/// ```
/// use tool_disclosure::{DeferredStyle, DisclosureConfig};
/// let config: DisclosureConfig = serde_json::from_value(serde_json::json!({
///     "core": ["read_file", "bash"], "style": "compact", "defer_mcp_tools": true
/// })).unwrap();
/// assert_eq!(config.style, DeferredStyle::Compact);
/// assert_eq!(config.compact_max_chars, 60);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DisclosureConfig {
    /// Tools always shown in full: names or globs. Empty, or containing
    /// `*`, shows everything (the rewriter is detached) unless
    /// `defer_mcp_tools` asks for MCP tools to be deferred.
    #[serde(default)]
    pub core: Vec<String>,
    /// How deferred tools are shown.
    #[serde(default)]
    pub style: DeferredStyle,
    /// Longest compact description, in characters.
    #[serde(default = "default_compact_max_chars")]
    pub compact_max_chars: usize,
    /// Defer every MCP tool (unless always-loaded).
    #[serde(default)]
    pub defer_mcp_tools: bool,
    /// Defer every tool that is not always-loaded (an empty core that does
    /// not detach).
    #[serde(default)]
    pub defer_all: bool,
    /// Tools never deferred: names or globs.
    #[serde(default)]
    pub always_loaded: Vec<String>,
    /// Sources whose tools are never deferred, by label (`built_in`,
    /// `mcp:github`, `plugin:x`).
    #[serde(default)]
    pub always_loaded_sources: Vec<String>,
}

impl Default for DisclosureConfig {
    fn default() -> Self {
        Self {
            core: Vec::new(),
            style: DeferredStyle::default(),
            compact_max_chars: default_compact_max_chars(),
            defer_mcp_tools: false,
            defer_all: false,
            always_loaded: Vec::new(),
            always_loaded_sources: Vec::new(),
        }
    }
}

/// The rewritten tool list of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Disclosed {
    /// What the model is shown, in order (meta tools last).
    pub tools: Vec<ToolDefinition>,
    /// The pre-collapse definition of every deferred tool, in order.
    pub deferred: Vec<ToolDefinition>,
}

impl Disclosed {
    /// The pre-collapse definition of a deferred tool.
    pub fn deferred(&self, name: &str) -> Option<&ToolDefinition> {
        self.deferred.iter().find(|d| d.name() == name)
    }
}

fn globs(place: &str, patterns: &[String]) -> Result<GlobSet, DisclosureError> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob = GlobBuilder::new(p)
            .literal_separator(false)
            .build()
            .map_err(|e| DisclosureError::InvalidPattern {
                place: place.to_owned(),
                pattern: p.clone(),
                message: e.kind().to_string(),
            })?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| DisclosureError::InvalidPattern {
            place: place.to_owned(),
            pattern: String::new(),
            message: e.to_string(),
        })
}

/// Applied per request to the tools the model may see (after policy
/// filtering). Deferral depends only on the settings and each definition,
/// so every session mode over the same tools defers the same set.
///
/// ```
/// use tool_core::ToolDefinition;
/// use tool_disclosure::{DisclosureConfig, ProgressiveDisclosureRewriter};
/// let tools = vec![
///     ToolDefinition::builder("read_file", "Read a file.").build().unwrap(),
///     ToolDefinition::builder("send_email", "Send an email. Supports attachments.").build().unwrap(),
/// ];
/// let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig {
///     core: vec!["read_file".into()],
///     ..DisclosureConfig::default()
/// }).unwrap();
/// let out = rewriter.rewrite(&tools);
/// let names: Vec<&str> = out.tools.iter().map(|t| t.name()).collect();
/// assert_eq!(names, vec!["read_file", "send_email", "get_tool_schema", "tool_search"]);
/// assert_eq!(out.tools[0], tools[0]);
/// assert_eq!(out.deferred("send_email").unwrap(), &tools[1]);
/// ```
#[derive(Debug, Clone)]
pub struct ProgressiveDisclosureRewriter {
    config: DisclosureConfig,
    core: GlobSet,
    always: GlobSet,
    detached: bool,
}

impl ProgressiveDisclosureRewriter {
    /// Compile the settings.
    pub fn new(config: DisclosureConfig) -> Result<Self, DisclosureError> {
        let core = globs("core", &config.core)?;
        let always = globs("always_loaded", &config.always_loaded)?;
        let everything = config.core.is_empty() || config.core.iter().any(|c| c == "*");
        let detached = config.core.iter().any(|c| c == "*")
            || (everything && !config.defer_mcp_tools && !config.defer_all);
        Ok(Self {
            config,
            core,
            always,
            detached,
        })
    }

    /// The settings.
    pub fn config(&self) -> &DisclosureConfig {
        &self.config
    }

    /// True when the rewriter changes nothing.
    pub fn is_detached(&self) -> bool {
        self.detached
    }

    /// True when this tool would be deferred.
    pub fn is_deferred(&self, def: &ToolDefinition) -> bool {
        if self.detached || matches!(def.name(), TOOL_SEARCH | GET_TOOL_SCHEMA) {
            return false;
        }
        if self.always.is_match(def.name())
            || self
                .config
                .always_loaded_sources
                .contains(&def.source().label())
        {
            return false;
        }
        if self.config.defer_all {
            return !self.core.is_match(def.name());
        }
        if self.config.core.is_empty() {
            return self.config.defer_mcp_tools && def.source().is_mcp();
        }
        !self.core.is_match(def.name())
    }

    /// Rewrite one request's tools.
    pub fn rewrite(&self, tools: &[ToolDefinition]) -> Disclosed {
        if self.detached {
            return Disclosed {
                tools: tools.to_vec(),
                deferred: Vec::new(),
            };
        }
        let mut shown = Vec::with_capacity(tools.len() + 2);
        let mut deferred = Vec::new();
        for def in tools {
            if matches!(def.name(), TOOL_SEARCH | GET_TOOL_SCHEMA) {
                // The meta tools are ours; a same-named input tool would
                // collide with them, so it is left out.
                continue;
            }
            if !self.is_deferred(def) {
                shown.push(def.clone());
                continue;
            }
            deferred.push(def.clone());
            if let Some(stub) = self.stub(def) {
                shown.push(stub);
            }
        }
        shown.push(get_tool_schema_definition());
        if !deferred.is_empty() {
            let search = tool_search_definition();
            shown.push(match self.config.style {
                DeferredStyle::Compact => {
                    let listing: Vec<String> = deferred
                        .iter()
                        .map(|d| {
                            format!(
                                "{}: {}",
                                d.name(),
                                first_sentence(d.description(), self.config.compact_max_chars)
                            )
                        })
                        .collect();
                    let text = format!(
                        "{}\nTools you can find:\n{}",
                        search.description(),
                        listing.join("\n")
                    );
                    search.with_description(text)
                }
                _ => search,
            });
        }
        Disclosed {
            tools: shown,
            deferred,
        }
    }

    fn stub(&self, def: &ToolDefinition) -> Option<ToolDefinition> {
        let description = match self.config.style {
            DeferredStyle::Hidden | DeferredStyle::Compact => return None,
            DeferredStyle::Collapsed => format!(
                "{}\n(Parameters not shown: call {GET_TOOL_SCHEMA} with this tool's name to see them before calling it.)",
                def.description()
            ),
        };
        def.with_input_schema(json!({"type": "object", "additionalProperties": true}))
            .ok()
            .map(|d| d.with_description(description))
    }
}

/// The first sentence of `text`, cut at `max` characters (with `…`).
///
/// ```
/// assert_eq!(tool_disclosure::first_sentence("Read a file. Then more.", 80), "Read a file.");
/// assert_eq!(tool_disclosure::first_sentence("abcdef", 4), "abc…");
/// ```
pub fn first_sentence(text: &str, max: usize) -> String {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && text[i + c.len_utf8()..].starts_with(char::is_whitespace)
        })
        .map_or(text.len(), |(i, c)| i + c.len_utf8());
    let sentence = text[..end].lines().next().unwrap_or_default().trim();
    if sentence.chars().count() <= max {
        return sentence.to_owned();
    }
    let cut: String = sentence.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// The `get_tool_schema` meta tool's definition.
pub fn get_tool_schema_definition() -> ToolDefinition {
    ToolDefinition::builder(
        GET_TOOL_SCHEMA,
        "Get the full definitions (parameters included) of tools whose parameters are not shown.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {"names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "Tool names."}},
        "required": ["names"]
    }))
    .category(ToolCategory::Meta)
    .facts(ToolFacts::read_only_tool())
    .build()
    .expect("valid meta definition")
}

/// The `tool_search` meta tool's definition.
pub fn tool_search_definition() -> ToolDefinition {
    ToolDefinition::builder(
        TOOL_SEARCH,
        "Search for tools by what you want to do. Returns matching tools with their full definitions and makes them available. Use `select:name1,name2` to fetch tools by exact name.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you want to do, or select:name1,name2."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many tools at most (default 5)."}
        },
        "required": ["query"]
    }))
    .category(ToolCategory::Meta)
    .facts(ToolFacts::read_only_tool())
    .build()
    .expect("valid meta definition")
}
