//! Activation mode: the model is offered only the `shed` meta tool; every
//! tool it finds becomes active and is declared on every later request.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Value};
use tool_core::{
    CallContext, DynTool, SharedTool, ToolArgs, ToolCategory, ToolDefinition, ToolError, ToolFacts,
    ToolOutput,
};

use crate::{RegistryError, RESERVED_NAMES};

/// A search over a session's tools: names, best first. tool-disclosure's
/// BM25 search implements it; [`WordMatchSearcher`] is the fallback.
pub trait ToolSearcher: Send + Sync + 'static {
    /// Up to `limit` names of `tools` that fit `query`, best first.
    fn search(&self, query: &str, tools: &[ToolDefinition], limit: usize) -> Vec<String>;
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .map(str::to_lowercase)
}

/// Word match: a tool scores one point per distinct query word found in
/// its name or description (name words count double); ties by name.
///
/// ```
/// use tool_core::ToolDefinition;
/// use tool_registry::{ToolSearcher, WordMatchSearcher};
/// let tools = vec![
///     ToolDefinition::builder("read_file", "Read a file.").build().unwrap(),
///     ToolDefinition::builder("send_email", "Send an email.").build().unwrap(),
/// ];
/// assert_eq!(WordMatchSearcher.search("email someone", &tools, 5), vec!["send_email"]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct WordMatchSearcher;

impl ToolSearcher for WordMatchSearcher {
    fn search(&self, query: &str, tools: &[ToolDefinition], limit: usize) -> Vec<String> {
        let query: HashSet<String> = words(query).collect();
        let mut scored: Vec<(usize, &str)> = tools
            .iter()
            .filter_map(|t| {
                let name: HashSet<String> = words(t.name()).collect();
                let desc: HashSet<String> = words(t.description()).collect();
                let score: usize = query
                    .iter()
                    .map(|w| 2 * usize::from(name.contains(w)) + usize::from(desc.contains(w)))
                    .sum();
                (score > 0).then_some((score, t.name()))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, n)| n.to_owned())
            .collect()
    }
}

struct State {
    tools: Vec<SharedTool>,
    index: HashMap<String, usize>,
    active: Vec<usize>,
}

/// The activation state of one session.
///
/// ```
/// use tool_core::{FnTool, ToolOutput};
/// use tool_registry::Activation;
/// let tool = |n: &str, d: &str| FnTool::builder(n, d).handler(|_, _| async { Ok(ToolOutput::text("ok")) }).unwrap();
/// let session = Activation::new(vec![tool("read_file", "Read a file."), tool("send_email", "Send an email.")]).unwrap();
/// assert_eq!(session.offered().iter().map(|d| d.name().to_owned()).collect::<Vec<_>>(), vec!["shed"]);
/// let found = session.search("send an email", 5);
/// assert_eq!(found[0].name(), "send_email");
/// let offered: Vec<String> = session.offered().iter().map(|d| d.name().to_owned()).collect();
/// assert_eq!(offered, vec!["shed", "send_email"]);
/// assert_eq!(session.resolve_call("read_file").unwrap_err().kind(), tool_core::ErrorKind::NotActive);
/// ```
#[derive(Clone)]
pub struct Activation {
    state: Arc<Mutex<State>>,
    searcher: Arc<dyn ToolSearcher>,
    shed: Arc<ToolDefinition>,
}

impl std::fmt::Debug for Activation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Activation")
            .field("active", &self.active_names())
            .finish_non_exhaustive()
    }
}

fn shed_definition() -> ToolDefinition {
    ToolDefinition::builder(
        "shed",
        "Find tools for a task. Describe what you want to do; every tool found becomes available to call from now on.",
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you want to do, in a few words."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many tools at most (default 5)."}
        },
        "required": ["query"]
    }))
    .category(ToolCategory::Meta)
    .facts(ToolFacts::read_only_tool())
    .build()
    .expect("the shed definition is valid")
}

impl Activation {
    /// Activation over a session's tools (duplicate or reserved names are
    /// errors).
    pub fn new(tools: Vec<SharedTool>) -> Result<Self, RegistryError> {
        let mut index = HashMap::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            let name = t.definition().name().to_owned();
            if RESERVED_NAMES.contains(&name.as_str()) {
                return Err(RegistryError::ReservedName { name });
            }
            if index.insert(name.clone(), i).is_some() {
                return Err(RegistryError::DuplicateName {
                    name,
                    place: "this session".into(),
                });
            }
        }
        Ok(Self {
            state: Arc::new(Mutex::new(State {
                tools,
                index,
                active: Vec::new(),
            })),
            searcher: Arc::new(WordMatchSearcher),
            shed: Arc::new(shed_definition()),
        })
    }

    /// Use another search (tool-disclosure's BM25, say).
    pub fn with_searcher(mut self, searcher: Arc<dyn ToolSearcher>) -> Self {
        self.searcher = searcher;
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Activate tools by name (appended in the order given; already active
    /// ones are skipped). Returns the newly active names.
    pub fn activate<S: AsRef<str>>(
        &self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<Vec<String>, RegistryError> {
        let mut state = self.lock();
        let mut indices = Vec::new();
        for n in names {
            let n = n.as_ref();
            let i = *state
                .index
                .get(n)
                .ok_or_else(|| RegistryError::UnknownTool { name: n.to_owned() })?;
            indices.push(i);
        }
        let mut newly = Vec::new();
        for i in indices {
            if !state.active.contains(&i) {
                state.active.push(i);
                newly.push(state.tools[i].definition().name().to_owned());
            }
        }
        Ok(newly)
    }

    /// Pre-activate tools before the first request.
    pub fn pre_activate<S: AsRef<str>>(
        &self,
        names: impl IntoIterator<Item = S>,
    ) -> Result<Vec<String>, RegistryError> {
        self.activate(names)
    }

    /// Search the session's tools, activate every hit, and return their
    /// definitions, best first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<ToolDefinition> {
        let all = self.declarations();
        let hits = self.searcher.search(query, &all, limit.clamp(1, 20));
        // Hits come from the session's own list, so activation cannot fail.
        let _ = self.activate(&hits);
        hits.iter()
            .filter_map(|h| all.iter().find(|d| d.name() == h).cloned())
            .collect()
    }

    /// Active names, in activation order.
    pub fn active_names(&self) -> Vec<String> {
        let state = self.lock();
        state
            .active
            .iter()
            .map(|&i| state.tools[i].definition().name().to_owned())
            .collect()
    }

    /// Active definitions, in activation order.
    pub fn active(&self) -> Vec<ToolDefinition> {
        let state = self.lock();
        state
            .active
            .iter()
            .map(|&i| state.tools[i].definition().clone())
            .collect()
    }

    /// What the model is offered: `shed` then the active tools in
    /// activation order; nothing at all for a session without tools.
    pub fn offered(&self) -> Vec<ToolDefinition> {
        if self.lock().tools.is_empty() {
            return Vec::new();
        }
        let mut out = vec![(*self.shed).clone()];
        out.extend(self.active());
        out
    }

    /// Every tool of the session, active or not.
    pub fn declarations(&self) -> Vec<ToolDefinition> {
        self.lock()
            .tools
            .iter()
            .map(|t| t.definition().clone())
            .collect()
    }

    /// The tool to run for a call: `shed` itself, an active tool, or a
    /// not-active error (the tool does not run) or not-found.
    pub fn resolve_call(&self, name: &str) -> Result<SharedTool, ToolError> {
        if name == "shed" && !self.lock().tools.is_empty() {
            return Ok(self.shed_tool());
        }
        let state = self.lock();
        match state.index.get(name) {
            Some(i) if state.active.contains(i) => Ok(Arc::clone(&state.tools[*i])),
            Some(_) => Err(ToolError::NotActive {
                tool: name.to_owned(),
            }),
            None => {
                let names: Vec<&str> = state.tools.iter().map(|t| t.definition().name()).collect();
                Err(ToolError::not_found(
                    name,
                    tool_core::closest_names(name, names, 3),
                ))
            }
        }
    }

    /// The `shed` meta tool bound to this session.
    pub fn shed_tool(&self) -> SharedTool {
        Arc::new(ShedTool {
            activation: self.clone(),
        })
    }
}

struct ShedTool {
    activation: Activation,
}

#[async_trait]
impl DynTool for ShedTool {
    fn definition(&self) -> &ToolDefinition {
        &self.activation.shed
    }
    async fn call(&self, args: Value, _ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let reader = ToolArgs::new("shed", &args);
        let query = reader.str("query")?;
        let limit = reader.opt_i64("limit")?.unwrap_or(5).clamp(1, 20) as usize;
        let found = self.activation.search(query, limit);
        let tools: Vec<Value> = found
            .iter()
            .map(|d| json!({"name": d.name(), "description": d.description(), "input_schema": d.input_schema()}))
            .collect();
        let text = if found.is_empty() {
            "No tools matched; try other words.".to_owned()
        } else {
            format!(
                "Activated: {}. You can call them now.",
                found
                    .iter()
                    .map(ToolDefinition::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Ok(ToolOutput::text(text).with_structured(json!({ "tools": tools })))
    }
}
