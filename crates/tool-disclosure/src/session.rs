//! [`DisclosureSession`]: one session's disclosure state: the deferred
//! snapshot of the current request, the tools found by `tool_search`
//! (promoted, append-only), and the two meta tools.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use serde_json::{json, Value};
use tool_core::{
    CallContext, DynTool, SharedTool, ToolArgs, ToolDefinition, ToolError, ToolOutput,
};

use crate::rewriter::{
    get_tool_schema_definition, tool_search_definition, DeferredStyle, GET_TOOL_SCHEMA, TOOL_SEARCH,
};
use crate::{Hit, ProgressiveDisclosureRewriter, SearchIndex};

/// A search index shared by every session over one catalog.
pub type SharedIndex = Arc<RwLock<SearchIndex>>;

#[derive(Default)]
struct State {
    /// What this request may see, by name, pre-collapse.
    visible: Vec<ToolDefinition>,
    visible_names: HashSet<String>,
    deferred_names: HashSet<String>,
    /// Promoted tools, in promotion order.
    promoted: Vec<String>,
}

/// One session's disclosure.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::{Arc, RwLock};
/// use serde_json::json;
/// use tool_core::{CallContext, ToolDefinition};
/// use tool_disclosure::{DeferredStyle, DisclosureConfig, DisclosureSession, ProgressiveDisclosureRewriter, SearchIndex};
///
/// let tools = vec![
///     ToolDefinition::builder("read_file", "Read a file.").build().unwrap(),
///     ToolDefinition::builder("send_email", "Send an email to someone.").build().unwrap(),
/// ];
/// let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig {
///     core: vec!["read_file".into()], style: DeferredStyle::Hidden, ..DisclosureConfig::default()
/// }).unwrap();
/// let session = DisclosureSession::new(rewriter, Arc::new(RwLock::new(SearchIndex::new())));
/// let first = session.prepare(&tools);
/// assert_eq!(first.iter().map(|t| t.name()).collect::<Vec<_>>(), ["read_file", "get_tool_schema", "tool_search"]);
/// let search = session.tool_search();
/// let out = search.call(json!({"query": "email a colleague"}), &CallContext::new("c1")).await.unwrap();
/// assert!(out.to_text().contains("send_email"));
/// let second = session.prepare(&tools);
/// assert_eq!(&second[..first.len()], &first[..], "promotion only appends");
/// assert_eq!(second.last().unwrap(), &tools[1]);
/// # });
/// ```
#[derive(Clone)]
pub struct DisclosureSession {
    rewriter: Arc<ProgressiveDisclosureRewriter>,
    index: SharedIndex,
    state: Arc<Mutex<State>>,
    search_def: Arc<ToolDefinition>,
    schema_def: Arc<ToolDefinition>,
}

impl std::fmt::Debug for DisclosureSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisclosureSession")
            .field("promoted", &self.promoted())
            .finish_non_exhaustive()
    }
}

impl DisclosureSession {
    /// A session over a shared index.
    pub fn new(rewriter: ProgressiveDisclosureRewriter, index: SharedIndex) -> Self {
        Self {
            rewriter: Arc::new(rewriter),
            index,
            state: Arc::new(Mutex::new(State::default())),
            search_def: Arc::new(tool_search_definition()),
            schema_def: Arc::new(get_tool_schema_definition()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The rewriter.
    pub fn rewriter(&self) -> &ProgressiveDisclosureRewriter {
        &self.rewriter
    }

    /// Rewrite this request's visible tools (after policy filtering) and
    /// remember them for the meta tools. In the `hidden` and `compact`
    /// styles, promoted tools are appended in full after the meta tools, in
    /// promotion order, so what was sent before stays a byte-identical
    /// prefix; in the `collapsed` style a promoted tool's stub is already
    /// listed and stays as it is (its full definition went back in the
    /// `tool_search` result, and calls are validated against it).
    pub fn prepare(&self, visible: &[ToolDefinition]) -> Vec<ToolDefinition> {
        let disclosed = self.rewriter.rewrite(visible);
        {
            let missing: Vec<&ToolDefinition> = {
                let index = self
                    .index
                    .read()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                visible
                    .iter()
                    .filter(|d| !index.contains(d.name()))
                    .collect()
            };
            if !missing.is_empty() {
                let mut index = self
                    .index
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                for d in missing {
                    index.add(d);
                }
            }
        }
        let mut state = self.lock();
        state.visible = visible.to_vec();
        state.visible_names = visible.iter().map(|d| d.name().to_owned()).collect();
        state.deferred_names = disclosed
            .deferred
            .iter()
            .map(|d| d.name().to_owned())
            .collect();
        let mut tools = disclosed.tools;
        if self.rewriter.config().style != DeferredStyle::Collapsed && !self.rewriter.is_detached()
        {
            for name in &state.promoted {
                if state.deferred_names.contains(name) {
                    if let Some(def) = state.visible.iter().find(|d| d.name() == name) {
                        tools.push(def.clone());
                    }
                }
            }
        }
        tools
    }

    /// Tools promoted so far, in promotion order.
    pub fn promoted(&self) -> Vec<String> {
        self.lock().promoted.clone()
    }

    /// Promote tools (append-only; promoting twice changes nothing).
    pub fn promote<S: AsRef<str>>(&self, names: impl IntoIterator<Item = S>) {
        let mut state = self.lock();
        for n in names {
            let n = n.as_ref();
            if !state.promoted.iter().any(|p| p == n) {
                state.promoted.push(n.to_owned());
            }
        }
    }

    /// Search this request's visible tools only.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let visible = self.lock().visible_names.clone();
        let index = self
            .index
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        index.search(query, limit, |name| visible.contains(name))
    }

    /// The full (pre-collapse) definition of a visible tool.
    pub fn full_definition(&self, name: &str) -> Option<ToolDefinition> {
        self.lock()
            .visible
            .iter()
            .find(|d| d.name() == name)
            .cloned()
    }

    fn not_found(&self, name: &str) -> ToolError {
        let state = self.lock();
        let names = state.visible.iter().map(ToolDefinition::name);
        ToolError::not_found(name, tool_core::closest_names(name, names, 3))
    }

    /// The `tool_search` meta tool of this session.
    pub fn tool_search(&self) -> SharedTool {
        Arc::new(ToolSearchTool {
            session: self.clone(),
        })
    }

    /// The `get_tool_schema` meta tool of this session.
    pub fn get_tool_schema(&self) -> SharedTool {
        Arc::new(GetToolSchemaTool {
            session: self.clone(),
        })
    }

    /// The meta tool of this name, if disclosure offers it now.
    pub fn meta_tool(&self, name: &str) -> Option<SharedTool> {
        if self.rewriter.is_detached() {
            return None;
        }
        match name {
            TOOL_SEARCH if !self.lock().deferred_names.is_empty() => Some(self.tool_search()),
            GET_TOOL_SCHEMA => Some(self.get_tool_schema()),
            _ => None,
        }
    }
}

fn definition_json(def: &ToolDefinition) -> Value {
    json!({"name": def.name(), "description": def.description(), "input_schema": def.input_schema()})
}

struct ToolSearchTool {
    session: DisclosureSession,
}

#[async_trait]
impl DynTool for ToolSearchTool {
    fn definition(&self) -> &ToolDefinition {
        &self.session.search_def
    }
    async fn call(&self, args: Value, _ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let reader = ToolArgs::new(TOOL_SEARCH, &args);
        let query = reader.str("query")?;
        let limit = match reader.opt_i64("limit")? {
            None => 5,
            Some(l @ 1..=20) => l as usize,
            Some(l) => {
                return Err(ToolError::invalid_argument(
                    TOOL_SEARCH,
                    "/limit",
                    format!("{l} is outside 1 to 20"),
                ))
            }
        };
        let hits: Vec<Hit> = if let Some(list) = query.trim().strip_prefix("select:") {
            let mut hits = Vec::new();
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                if self.session.full_definition(name).is_none() {
                    return Err(self.session.not_found(name));
                }
                if !hits.iter().any(|h: &Hit| h.name == name) {
                    hits.push(Hit {
                        name: name.to_owned(),
                        score: 1.0,
                    });
                }
            }
            hits
        } else {
            self.session.search(query, limit)
        };
        self.session.promote(hits.iter().map(|h| h.name.as_str()));
        let tools: Vec<Value> = hits
            .iter()
            .filter_map(|h| {
                let def = self.session.full_definition(&h.name)?;
                let mut v = definition_json(&def);
                v["score"] = json!(h.score);
                Some(v)
            })
            .collect();
        let text = if tools.is_empty() {
            "No tools matched. Try other words, or select:name for an exact name.".to_owned()
        } else {
            format!(
                "Found {} tool(s); they can be called now:\n{}",
                tools.len(),
                serde_json::to_string_pretty(&tools).unwrap_or_default()
            )
        };
        Ok(ToolOutput::text(text).with_structured(json!({ "tools": tools })))
    }
}

struct GetToolSchemaTool {
    session: DisclosureSession,
}

#[async_trait]
impl DynTool for GetToolSchemaTool {
    fn definition(&self) -> &ToolDefinition {
        &self.session.schema_def
    }
    async fn call(&self, args: Value, _ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let reader = ToolArgs::new(GET_TOOL_SCHEMA, &args);
        let names: Vec<String> = match reader.get("names") {
            Some(_) => reader.field("names")?,
            None => vec![reader.str("name")?.to_owned()],
        };
        if names.is_empty() {
            return Err(ToolError::invalid_argument(
                GET_TOOL_SCHEMA,
                "/names",
                "give at least one tool name",
            ));
        }
        let mut defs = Vec::with_capacity(names.len());
        for name in &names {
            let def = self
                .session
                .full_definition(name)
                .ok_or_else(|| self.session.not_found(name))?;
            defs.push(definition_json(&def));
        }
        let text = serde_json::to_string_pretty(&defs).unwrap_or_default();
        Ok(ToolOutput::text(text).with_structured(json!({ "tools": defs })))
    }
}
