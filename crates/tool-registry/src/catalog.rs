//! [`ToolCatalog`]: every source's tools, resolved to one tool per name, and
//! published as immutable [`CatalogSnapshot`]s.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};

use arc_swap::ArcSwap;
use async_trait::async_trait;
use globset::GlobBuilder;
use serde::Serialize;
use tool_core::{SharedTool, ToolCategory, ToolDefinition, ToolError, ToolSource};

use crate::changes::{ChangeSubscription, Listeners};
use crate::{flatten_name, BuiltinSpec, RegistryError};

/// Whether a source can serve calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Health {
    /// Serving.
    Healthy,
    /// Not serving; its tools leave the visible list.
    Unhealthy {
        /// Why (shown in transport errors).
        reason: String,
    },
}

/// A health check the catalog runs when the host asks
/// ([`ToolCatalog::probe_sources`]).
#[async_trait]
pub trait SourceProbe: Send + Sync + 'static {
    /// Check the source now.
    async fn probe(&self) -> Health;
}

/// How a source is added.
///
/// ```
/// use tool_core::ToolSource;
/// use tool_registry::SourceConfig;
/// let github = SourceConfig::new("github", ToolSource::mcp("github")).namespace("github").separator("__");
/// assert_eq!(github.id(), "github");
/// ```
#[derive(Clone)]
pub struct SourceConfig {
    id: String,
    source: ToolSource,
    namespace: Option<String>,
    separator: String,
    probe: Option<Arc<dyn SourceProbe>>,
}

impl std::fmt::Debug for SourceConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceConfig")
            .field("id", &self.id)
            .field("source", &self.source)
            .field("namespace", &self.namespace)
            .field("separator", &self.separator)
            .finish_non_exhaustive()
    }
}

impl SourceConfig {
    /// A source with an id (also its placement) and a kind.
    pub fn new(id: impl Into<String>, source: ToolSource) -> Self {
        Self {
            id: id.into(),
            source,
            namespace: None,
            separator: "_".into(),
            probe: None,
        }
    }
    /// Flatten its tools to `<namespace><separator><tool>`.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }
    /// The separator (default `_`).
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }
    /// A health probe.
    pub fn probe(mut self, probe: Arc<dyn SourceProbe>) -> Self {
        self.probe = Some(probe);
        self
    }
    /// The id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// The original (namespace, name) of a catalog entry, for calling its source.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct OriginalName {
    /// The source's namespace, if it has one.
    pub namespace: Option<String>,
    /// The name the source uses.
    pub name: String,
}

/// One resolved tool.
#[derive(Clone)]
pub struct CatalogEntry {
    /// Its definition, under the flattened name, with its source set.
    pub definition: ToolDefinition,
    /// The tool to call.
    pub tool: SharedTool,
    /// The source id (placement) it came from.
    pub source_id: String,
    /// Its original name.
    pub original: OriginalName,
}

impl std::fmt::Debug for CatalogEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogEntry")
            .field("name", &self.definition.name())
            .field("source_id", &self.source_id)
            .field("original", &self.original)
            .finish_non_exhaustive()
    }
}

impl CatalogEntry {
    /// The flattened name.
    pub fn name(&self) -> &str {
        self.definition.name()
    }
}

/// Something a change to the catalog reports rather than drops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CatalogWarning {
    /// Two sources offer one name; the loser is hidden.
    Shadowed {
        /// The name.
        name: String,
        /// The source that won.
        winner: String,
        /// The source that lost.
        loser: String,
    },
}

const BUILTIN_ID: &str = "built_in";
const GATED_ID: &str = "capabilities";

#[derive(Clone)]
struct Registration {
    id: u64,
    tool: SharedTool,
    original: String,
    base: bool,
}

struct Placement {
    rank: u32,
    config: SourceConfig,
    health: Health,
    capabilities: BTreeSet<String>,
    /// Flattened name → registrations, oldest first (base first).
    stacks: HashMap<String, Vec<Registration>>,
    /// Flattened name → its order key, kept while any registration exists.
    order: HashMap<String, u64>,
}

type OrderKey = (u32, u64);

/// An immutable view of the catalog for one request: changes after it was
/// taken affect only later snapshots. Cheap to take (one `Arc` load) and to
/// keep.
#[derive(Clone, Default)]
pub struct CatalogSnapshot {
    order: imbl::OrdMap<OrderKey, Arc<CatalogEntry>>,
    // Keys are `Arc<str>`: persistent maps copy whole nodes on write, and
    // copying a node of `String`s would allocate for every key in it.
    by_name: imbl::HashMap<Arc<str>, (OrderKey, Arc<CatalogEntry>)>,
    unavailable: imbl::HashMap<Arc<str>, (Arc<CatalogEntry>, String)>,
    warnings: imbl::OrdMap<Arc<str>, Vec<CatalogWarning>>,
    version: u64,
}

impl std::fmt::Debug for CatalogSnapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogSnapshot")
            .field("tools", &self.order.len())
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl CatalogSnapshot {
    /// The visible tool of this name.
    pub fn get(&self, name: &str) -> Option<&Arc<CatalogEntry>> {
        self.by_name.get(name).map(|(_, e)| e)
    }

    /// The tool to call for this name, or why not: a transport error naming
    /// the source when it is unhealthy, not-found with close names
    /// otherwise.
    pub fn lookup(&self, name: &str) -> Result<&Arc<CatalogEntry>, ToolError> {
        if let Some(entry) = self.get(name) {
            return Ok(entry);
        }
        if let Some((entry, reason)) = self.unavailable.get(name) {
            return Err(ToolError::Transport {
                tool: name.to_owned(),
                origin: entry.source_id.clone(),
                message: format!("source is unavailable: {reason}"),
            });
        }
        Err(ToolError::not_found(
            name,
            tool_core::closest_names(name, self.names(), 3),
        ))
    }

    /// Every visible tool, in a stable order: built-ins first (static list
    /// order), then sources in the order they were added, each in the order
    /// its tools first appeared.
    pub fn all(&self) -> impl Iterator<Item = &Arc<CatalogEntry>> {
        self.order.values()
    }
    /// Visible names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.values().map(|e| e.name())
    }
    /// Number of visible tools.
    pub fn len(&self) -> usize {
        self.order.len()
    }
    /// True when no tool is visible.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
    /// Visible tools whose name matches a glob.
    pub fn by_glob(&self, pattern: &str) -> Result<Vec<&Arc<CatalogEntry>>, RegistryError> {
        let matcher = GlobBuilder::new(pattern)
            .literal_separator(false)
            .build()
            .map_err(|e| RegistryError::InvalidGlob {
                pattern: pattern.to_owned(),
                reason: e.kind().to_string(),
            })?
            .compile_matcher();
        Ok(self.all().filter(|e| matcher.is_match(e.name())).collect())
    }
    /// Visible tools of a category.
    pub fn by_category(&self, category: &ToolCategory) -> Vec<&Arc<CatalogEntry>> {
        self.all()
            .filter(|e| e.definition.category() == Some(category))
            .collect()
    }
    /// Visible tools of a source id.
    pub fn by_source(&self, source_id: &str) -> Vec<&Arc<CatalogEntry>> {
        self.all().filter(|e| e.source_id == source_id).collect()
    }
    /// Visible definitions, in order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.all().map(|e| e.definition.clone()).collect()
    }
    /// Current collision warnings.
    pub fn warnings(&self) -> Vec<CatalogWarning> {
        self.warnings.values().flatten().cloned().collect()
    }
    /// A number that changes whenever the catalog changes.
    pub fn version(&self) -> u64 {
        self.version
    }
}

struct State {
    placements: Vec<Placement>,
    next_rank: u32,
    next_id: u64,
    gated: Vec<(String, SharedTool)>,
    view: CatalogSnapshot,
}

struct Inner {
    state: Mutex<State>,
    current: ArcSwap<CatalogSnapshot>,
    listeners: Arc<Listeners>,
}

/// The catalog of every tool source.
///
/// ```
/// use serde_json::json;
/// use tool_core::{FnTool, ToolOutput, ToolSource};
/// use tool_registry::{SourceConfig, ToolCatalog};
///
/// let echo = |name: &str| FnTool::builder(name, "Echo.")
///     .handler(|_, _| async { Ok(ToolOutput::text("hi")) }).unwrap();
/// let catalog = ToolCatalog::new();
/// catalog.add_source(SourceConfig::new("gh", ToolSource::mcp("github")).namespace("github").separator("__")).unwrap();
/// catalog.set_source_tools("gh", vec![echo("create_issue")]).unwrap();
/// let snapshot = catalog.snapshot();
/// let entry = snapshot.lookup("github__create_issue").unwrap();
/// assert_eq!(entry.original.name, "create_issue");
/// assert!(snapshot.lookup("github_create_issue").unwrap_err().to_string().contains("github__create_issue"));
/// ```
#[derive(Clone)]
pub struct ToolCatalog {
    inner: Arc<Inner>,
}

impl Default for ToolCatalog {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ToolCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCatalog")
            .field("snapshot", &self.snapshot())
            .finish()
    }
}

/// A handle on one scoped registration: closing or dropping it removes that
/// registration only, revealing the next active one.
#[must_use = "dropping the handle removes the registration"]
pub struct RegistrationHandle {
    catalog: Weak<Inner>,
    placement: String,
    name: String,
    id: u64,
    open: bool,
}

impl std::fmt::Debug for RegistrationHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistrationHandle")
            .field("placement", &self.placement)
            .field("name", &self.name)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl RegistrationHandle {
    /// The flattened name registered.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Remove the registration now.
    pub fn close(mut self) {
        self.release();
    }
    /// Keep the registration for the catalog's lifetime.
    pub fn leak(mut self) {
        self.open = false;
    }
    fn release(&mut self) {
        if !std::mem::take(&mut self.open) {
            return;
        }
        if let Some(inner) = self.catalog.upgrade() {
            ToolCatalog { inner }.unregister(&self.placement, &self.name, self.id);
        }
    }
}

impl Drop for RegistrationHandle {
    fn drop(&mut self) {
        self.release();
    }
}

fn is_builtin(p: &Placement) -> bool {
    matches!(p.config.source, ToolSource::BuiltIn)
}

impl ToolCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        let state = State {
            placements: Vec::new(),
            next_rank: 1,
            next_id: 1,
            gated: Vec::new(),
            view: CatalogSnapshot::default(),
        };
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                current: ArcSwap::from_pointee(CatalogSnapshot::default()),
                listeners: Arc::default(),
            }),
        }
    }

    /// A catalog whose built-in tools come from one static list, the single
    /// source of their names and descriptions.
    pub fn with_builtins(builtins: &'static [BuiltinSpec]) -> Result<Self, RegistryError> {
        let catalog = Self::new();
        let tools = crate::builtin::build_all(builtins)?;
        let mut state = catalog.lock();
        state.placements.push(Placement {
            rank: 0,
            config: SourceConfig::new(BUILTIN_ID, ToolSource::BuiltIn),
            health: Health::Healthy,
            capabilities: BTreeSet::new(),
            stacks: HashMap::new(),
            order: HashMap::new(),
        });
        drop(state);
        catalog.set_source_tools(BUILTIN_ID, tools)?;
        Ok(catalog)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The current snapshot: O(1), one `Arc` load.
    pub fn snapshot(&self) -> Arc<CatalogSnapshot> {
        self.inner.current.load_full()
    }

    /// Call `listener` with the new snapshot version each time the catalog
    /// publishes one, until the returned subscription is dropped.
    ///
    /// The call happens inside the update, while the catalog is locked: a
    /// listener must be quick and must not change the catalog (reading
    /// [`ToolCatalog::snapshot`] is fine). Hand the version to a channel
    /// and do the work elsewhere.
    ///
    /// ```
    /// use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
    /// use tool_core::{FnTool, ToolOutput, ToolSource};
    /// use tool_registry::{SourceConfig, ToolCatalog};
    ///
    /// let catalog = ToolCatalog::new();
    /// let seen = Arc::new(AtomicU64::new(0));
    /// let last = Arc::clone(&seen);
    /// let subscription = catalog.on_change(move |version| last.store(version, Ordering::SeqCst));
    /// let echo = FnTool::builder("echo", "Echo.")
    ///     .handler(|_, _| async { Ok(ToolOutput::text("hi")) }).unwrap();
    /// catalog.add_source(SourceConfig::new("gh", ToolSource::mcp("github"))).unwrap();
    /// catalog.set_source_tools("gh", vec![echo]).unwrap();
    /// assert_eq!(seen.load(Ordering::SeqCst), catalog.snapshot().version());
    /// drop(subscription);
    /// ```
    pub fn on_change(&self, listener: impl Fn(u64) + Send + Sync + 'static) -> ChangeSubscription {
        self.inner.listeners.add(Arc::new(listener))
    }

    /// How many change subscriptions are alive.
    pub fn change_subscribers(&self) -> usize {
        self.inner.listeners.len()
    }

    /// Add a source (empty until its tools are set).
    pub fn add_source(&self, config: SourceConfig) -> Result<(), RegistryError> {
        if let Some(ns) = &config.namespace {
            if ns.is_empty() || config.separator.is_empty() {
                return Err(RegistryError::InvalidNamespace {
                    namespace: ns.clone(),
                    separator: config.separator.clone(),
                    reason: "namespace and separator must not be empty".into(),
                });
            }
        }
        let mut state = self.lock();
        if state.placements.iter().any(|p| p.config.id == config.id) || config.id == GATED_ID {
            return Err(RegistryError::SourceExists { id: config.id });
        }
        let rank = state.next_rank;
        state.next_rank += 1;
        state.placements.push(Placement {
            rank,
            config,
            health: Health::Healthy,
            capabilities: BTreeSet::new(),
            stacks: HashMap::new(),
            order: HashMap::new(),
        });
        Ok(())
    }

    /// Remove a source with all its tools and capabilities.
    pub fn remove_source(&self, id: &str) -> Result<Vec<CatalogWarning>, RegistryError> {
        let mut state = self.lock();
        let pos = position(&state, id)?;
        let placement = state.placements.remove(pos);
        let names: Vec<String> = placement.stacks.keys().cloned().collect();
        Ok(self.publish(&mut state, &names, true))
    }

    /// Replace a source's listed tools (for example after an MCP
    /// tools-list-changed notification). Two tools of one name in the list
    /// are a duplicate-name error and change nothing. Scoped registrations
    /// stay on top.
    pub fn set_source_tools(
        &self,
        id: &str,
        tools: Vec<SharedTool>,
    ) -> Result<Vec<CatalogWarning>, RegistryError> {
        let mut state = self.lock();
        let pos = position(&state, id)?;
        let config = state.placements[pos].config.clone();
        let mut flattened: HashMap<String, String> = HashMap::new();
        let mut new_base = Vec::with_capacity(tools.len());
        for tool in tools {
            let original = tool.definition().name().to_owned();
            let flat = flatten_name(config.namespace.as_deref(), &original, &config.separator);
            if let Some(previous) = flattened.insert(flat.clone(), original.clone()) {
                return Err(if previous == original {
                    RegistryError::DuplicateName {
                        name: original,
                        place: format!("source `{id}`"),
                    }
                } else {
                    RegistryError::FlattenCollision {
                        name: flat,
                        first: previous,
                        second: original,
                    }
                });
            }
            new_base.push((flat, original, tool));
        }
        let next_id = &mut state.next_id;
        let mut ids = Vec::with_capacity(new_base.len());
        for _ in 0..new_base.len() {
            ids.push(*next_id);
            *next_id += 1;
        }
        let placement = &mut state.placements[pos];
        let mut touched: Vec<String> = Vec::new();
        for (name, stack) in &mut placement.stacks {
            if stack.iter().any(|r| r.base) {
                stack.retain(|r| !r.base);
                touched.push(name.clone());
            }
        }
        for ((flat, original, tool), id) in new_base.into_iter().zip(ids) {
            placement.stacks.entry(flat.clone()).or_default().insert(
                0,
                Registration {
                    id,
                    tool,
                    original,
                    base: true,
                },
            );
            placement.order.entry(flat.clone()).or_insert(id);
            touched.push(flat);
        }
        placement.stacks.retain(|_, s| !s.is_empty());
        let live: BTreeSet<String> = placement.stacks.keys().cloned().collect();
        placement.order.retain(|k, _| live.contains(k));
        touched.sort();
        touched.dedup();
        Ok(self.publish(&mut state, &touched, false))
    }

    /// Register one tool in a placement (a source id) on top of what is
    /// there: among active registrations of one name in one placement the
    /// latest wins; closing the handle reveals the next.
    pub fn register(
        &self,
        placement: &str,
        tool: SharedTool,
    ) -> Result<RegistrationHandle, RegistryError> {
        let mut state = self.lock();
        let pos = position(&state, placement)?;
        let id = state.next_id;
        state.next_id += 1;
        let p = &mut state.placements[pos];
        let original = tool.definition().name().to_owned();
        let flat = flatten_name(
            p.config.namespace.as_deref(),
            &original,
            &p.config.separator,
        );
        p.stacks
            .entry(flat.clone())
            .or_default()
            .push(Registration {
                id,
                tool,
                original,
                base: false,
            });
        p.order.entry(flat.clone()).or_insert(id);
        self.publish(&mut state, std::slice::from_ref(&flat), false);
        Ok(RegistrationHandle {
            catalog: Arc::downgrade(&self.inner),
            placement: placement.to_owned(),
            name: flat,
            id,
            open: true,
        })
    }

    fn unregister(&self, placement: &str, name: &str, id: u64) {
        let mut state = self.lock();
        let Ok(pos) = position(&state, placement) else {
            return;
        };
        let p = &mut state.placements[pos];
        if let Some(stack) = p.stacks.get_mut(name) {
            stack.retain(|r| r.id != id);
            if stack.is_empty() {
                p.stacks.remove(name);
                p.order.remove(name);
            }
        }
        self.publish(&mut state, &[name.to_owned()], false);
    }

    /// Mark a source healthy or unhealthy (a status the source pushes).
    pub fn set_health(&self, id: &str, health: Health) -> Result<(), RegistryError> {
        let mut state = self.lock();
        let pos = position(&state, id)?;
        if state.placements[pos].health == health {
            return Ok(());
        }
        state.placements[pos].health = health;
        let names: Vec<String> = state.placements[pos].stacks.keys().cloned().collect();
        self.publish(&mut state, &names, true);
        Ok(())
    }

    /// The health of a source.
    pub fn health(&self, id: &str) -> Result<Health, RegistryError> {
        let state = self.lock();
        let pos = position(&state, id)?;
        Ok(state.placements[pos].health.clone())
    }

    /// Run every source's probe and apply the results (the host decides
    /// when: on a timer, before a turn).
    pub async fn probe_sources(&self) -> Vec<(String, Health)> {
        let probes: Vec<(String, Arc<dyn SourceProbe>)> = {
            let state = self.lock();
            state
                .placements
                .iter()
                .filter_map(|p| {
                    p.config
                        .probe
                        .clone()
                        .map(|probe| (p.config.id.clone(), probe))
                })
                .collect()
        };
        let mut results = Vec::with_capacity(probes.len());
        for (id, probe) in probes {
            let health = probe.probe().await;
            if self.set_health(&id, health.clone()).is_ok() {
                results.push((id, health));
            }
        }
        results
    }

    /// Declare the capabilities a source advertises (e.g. `resources`).
    pub fn set_capabilities<S: Into<String>>(
        &self,
        id: &str,
        capabilities: impl IntoIterator<Item = S>,
    ) -> Result<(), RegistryError> {
        let mut state = self.lock();
        let pos = position(&state, id)?;
        state.placements[pos].capabilities = capabilities.into_iter().map(Into::into).collect();
        self.publish(&mut state, &[], true);
        Ok(())
    }

    /// Add a tool that exists only while at least one healthy source
    /// advertises `capability`.
    pub fn add_gated_tool(
        &self,
        capability: impl Into<String>,
        tool: SharedTool,
    ) -> Result<(), RegistryError> {
        let mut state = self.lock();
        let name = tool.definition().name().to_owned();
        if state
            .gated
            .iter()
            .any(|(_, t)| t.definition().name() == name)
        {
            return Err(RegistryError::DuplicateName {
                name,
                place: "capability-gated tools".into(),
            });
        }
        state.gated.push((capability.into(), tool));
        self.publish(&mut state, &[], true);
        Ok(())
    }

    /// Recompute the entries of `names` (or all, with `everything`) and
    /// publish a new snapshot; returns the warnings of the touched names.
    fn publish(
        &self,
        state: &mut State,
        names: &[String],
        everything: bool,
    ) -> Vec<CatalogWarning> {
        let mut view = state.view.clone();
        let names: Vec<String> = if everything {
            let mut all: BTreeSet<String> = view.by_name.keys().map(ToString::to_string).collect();
            all.extend(view.unavailable.keys().map(ToString::to_string));
            for p in &state.placements {
                all.extend(p.stacks.keys().cloned());
            }
            all.extend(
                state
                    .gated
                    .iter()
                    .map(|(_, t)| t.definition().name().to_owned()),
            );
            all.extend(names.iter().cloned());
            all.into_iter().collect()
        } else {
            names.to_vec()
        };
        let mut warnings = Vec::new();
        for name in &names {
            if let Some((key, _)) = view.by_name.remove(name.as_str()) {
                view.order.remove(&key);
            }
            view.unavailable.remove(name.as_str());
            view.warnings.remove(name.as_str());
            let resolved = resolve(state, name);
            if !resolved.warnings.is_empty() {
                warnings.extend(resolved.warnings.iter().cloned());
                view.warnings
                    .insert(Arc::from(name.as_str()), resolved.warnings);
            }
            match resolved.outcome {
                Outcome::Visible(key, entry) => {
                    view.by_name
                        .insert(Arc::from(name.as_str()), (key, Arc::clone(&entry)));
                    view.order.insert(key, entry);
                }
                Outcome::Unavailable(entry, reason) => {
                    view.unavailable
                        .insert(Arc::from(name.as_str()), (entry, reason));
                }
                Outcome::Absent => {}
            }
        }
        view.version += 1;
        let version = view.version;
        state.view = view.clone();
        self.inner.current.store(Arc::new(view));
        self.inner.listeners.notify(version);
        warnings
    }
}

fn position(state: &State, id: &str) -> Result<usize, RegistryError> {
    state
        .placements
        .iter()
        .position(|p| p.config.id == id)
        .ok_or_else(|| RegistryError::UnknownSource { id: id.to_owned() })
}

enum Outcome {
    Visible(OrderKey, Arc<CatalogEntry>),
    Unavailable(Arc<CatalogEntry>, String),
    Absent,
}

struct Resolved {
    outcome: Outcome,
    warnings: Vec<CatalogWarning>,
}

fn entry_of(p: &Placement, name: &str, reg: &Registration) -> Arc<CatalogEntry> {
    let def = reg.tool.definition();
    let definition = if def.name() == name {
        def.with_source(p.config.source.clone())
    } else {
        def.renamed(name)
            .unwrap_or_else(|_| def.clone())
            .with_source(p.config.source.clone())
    };
    Arc::new(CatalogEntry {
        definition,
        tool: Arc::clone(&reg.tool),
        source_id: p.config.id.clone(),
        original: OriginalName {
            namespace: p.config.namespace.clone(),
            name: reg.original.clone(),
        },
    })
}

/// The winner for one name: built-ins beat every other source; otherwise
/// the source added first wins. Unhealthy sources do not compete; if only
/// unhealthy ones offer the name, it is unavailable.
fn resolve(state: &State, name: &str) -> Resolved {
    let mut candidates: Vec<(&Placement, &Registration)> = state
        .placements
        .iter()
        .filter_map(|p| p.stacks.get(name).and_then(|s| s.last()).map(|r| (p, r)))
        .collect();
    candidates.sort_by_key(|(p, _)| (!is_builtin(p), p.rank));
    let healthy: Vec<&(&Placement, &Registration)> = candidates
        .iter()
        .filter(|(p, _)| p.health == Health::Healthy)
        .collect();
    if let Some((winner, reg)) = healthy.first() {
        let warnings = healthy[1..]
            .iter()
            .map(|(loser, _)| CatalogWarning::Shadowed {
                name: name.to_owned(),
                winner: winner.config.id.clone(),
                loser: loser.config.id.clone(),
            })
            .collect();
        let key = (
            winner.rank,
            winner.order.get(name).copied().unwrap_or(reg.id),
        );
        return Resolved {
            outcome: Outcome::Visible(key, entry_of(winner, name, reg)),
            warnings,
        };
    }
    if let Some((p, reg)) = candidates.first() {
        let reason = match &p.health {
            Health::Unhealthy { reason } => reason.clone(),
            Health::Healthy => String::new(),
        };
        return Resolved {
            outcome: Outcome::Unavailable(entry_of(p, name, reg), reason),
            warnings: Vec::new(),
        };
    }
    // Capability-gated tools.
    let gated = state
        .gated
        .iter()
        .enumerate()
        .find(|(_, (_, t))| t.definition().name() == name);
    if let Some((i, (capability, tool))) = gated {
        let advertised = state
            .placements
            .iter()
            .any(|p| p.health == Health::Healthy && p.capabilities.contains(capability));
        if advertised {
            let entry = Arc::new(CatalogEntry {
                definition: tool.definition().clone(),
                tool: Arc::clone(tool),
                source_id: GATED_ID.to_owned(),
                original: OriginalName {
                    namespace: None,
                    name: name.to_owned(),
                },
            });
            return Resolved {
                outcome: Outcome::Visible((u32::MAX, i as u64), entry),
                warnings: Vec::new(),
            };
        }
    }
    Resolved {
        outcome: Outcome::Absent,
        warnings: Vec::new(),
    }
}
