//! [`ToolService`] and [`ScopedToolService`]: every call passes here, in a
//! fixed order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use tool_core::{
    check_value_limits, coerce_to_schema, CallContext, Extensions, SharedTool, ToolDefinition,
    ToolError, ToolOutput,
};
use tool_disclosure::DisclosureSession;
use tool_policy::{Action, ApprovalGate, Decision, GateOutcome, Policy, ScopedPolicy};
use tool_registry::{Activation, CatalogSnapshot};
use tracing::Instrument;

use crate::limits::{apply_budget, BudgetPool};
use crate::{repair_name, CallEvent, CallHook, EventSink, HookVerdict, Limits};

/// The interface agent builders call: what the model sees, and the one
/// place every call runs through.
#[async_trait]
pub trait ToolService: Send + Sync + 'static {
    /// Run one call (a fresh call id is assigned).
    async fn execute(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError>;
    /// What the model is shown.
    fn list(&self) -> Vec<ToolDefinition>;
    /// Everything that may be dispatched, deferred tools included (used
    /// for name repair).
    fn dispatchable_list(&self) -> Vec<ToolDefinition>;
    /// The full definition of a tool (after name repair).
    fn describe(&self, name: &str) -> Option<ToolDefinition>;
    /// The cached list sent to the model, byte-stable while nothing
    /// changed.
    fn metadata_schema(&self) -> Arc<[ToolDefinition]>;
}

/// A resolved call target.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) def: ToolDefinition,
    pub(crate) tool: SharedTool,
}

pub(crate) struct Inner {
    pub(crate) snapshot: Arc<CatalogSnapshot>,
    pub(crate) policy: ScopedPolicy,
    pub(crate) disclosure: Option<DisclosureSession>,
    pub(crate) activation: Option<Activation>,
    pub(crate) gate: Option<Arc<ApprovalGate>>,
    pub(crate) limits: Limits,
    pub(crate) sink: Option<Arc<dyn EventSink>>,
    pub(crate) hooks: Vec<Arc<dyn CallHook>>,
    pub(crate) cwd: Option<String>,
    pub(crate) session_id: Option<String>,
    pub(crate) extensions: Extensions,
    pub(crate) redact_arguments: bool,
    cache: Mutex<Option<(String, Arc<[ToolDefinition]>)>>,
    counter: AtomicU64,
}

/// The service of one request: a registry snapshot, the merged policy for
/// this agent and channel, disclosure and activation state, an approval
/// gate, limits, an event sink and hooks. Cheap to clone.
///
/// A call goes, in order: resolve the name (exact, then repair) → decide
/// (permission, exec tier, command floor), even for tools never shown →
/// approval gate for `ask` → before-hooks → argument validation (limits,
/// lax coercion, cached validator) → run with deadline and cancellation,
/// panics caught → output validation → after-hooks → output budget; with
/// retries by error kind around the run, and one event per call.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use serde_json::json;
/// use tool_core::{FnTool, ToolFacts, ToolOutput, ToolSource};
/// use tool_registry::{SourceConfig, ToolCatalog};
/// use tool_service::{ScopedToolService, ToolService};
///
/// let catalog = ToolCatalog::new();
/// catalog.add_source(SourceConfig::new("host", ToolSource::Host)).unwrap();
/// let echo = FnTool::builder("echo", "Echo text.")
///     .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
///     .facts(ToolFacts::read_only_tool())
///     .handler(|args, _| async move { Ok(ToolOutput::text(args["text"].as_str().unwrap_or_default())) })
///     .unwrap();
/// catalog.set_source_tools("host", vec![echo]).unwrap();
/// let service = ScopedToolService::builder(catalog.snapshot()).build();
/// assert_eq!(service.execute("Echo", json!({"text": "hi"})).await.unwrap().to_text(), "hi");
/// let err = service.execute("echo", json!({})).await.unwrap_err();
/// assert!(err.to_string().contains("text"));
/// # });
/// ```
#[derive(Clone)]
pub struct ScopedToolService {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for ScopedToolService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopedToolService")
            .field("tools", &self.inner.snapshot.len())
            .field("agent", &self.inner.policy.agent())
            .field("channel", &self.inner.policy.channel())
            .finish_non_exhaustive()
    }
}

/// Builds a [`ScopedToolService`]; see [`ScopedToolService::builder`].
#[must_use]
pub struct ServiceBuilder {
    snapshot: Arc<CatalogSnapshot>,
    policy: Option<ScopedPolicy>,
    disclosure: Option<DisclosureSession>,
    activation: Option<Activation>,
    gate: Option<Arc<ApprovalGate>>,
    limits: Limits,
    sink: Option<Arc<dyn EventSink>>,
    hooks: Vec<Arc<dyn CallHook>>,
    cwd: Option<String>,
    session_id: Option<String>,
    extensions: Extensions,
    redact_arguments: bool,
}

impl ServiceBuilder {
    /// The merged policy (default: an empty policy, which asks for
    /// undescribed tools).
    pub fn policy(mut self, policy: ScopedPolicy) -> Self {
        self.policy = Some(policy);
        self
    }
    /// Progressive disclosure for this session.
    pub fn disclosure(mut self, session: DisclosureSession) -> Self {
        self.disclosure = Some(session);
        self
    }
    /// Shed-style activation: the session's tools come from it instead of
    /// the snapshot.
    pub fn activation(mut self, activation: Activation) -> Self {
        self.activation = Some(activation);
        self
    }
    /// The approval gate (without one, `ask` decisions fail with
    /// approval-required).
    pub fn approvals(mut self, gate: Arc<ApprovalGate>) -> Self {
        self.gate = Some(gate);
        self
    }
    /// Limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// Where call events go.
    pub fn events(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.sink = Some(sink);
        self
    }
    /// Add a hook (run in the order added).
    pub fn hook(mut self, hook: Arc<dyn CallHook>) -> Self {
        self.hooks.push(hook);
        self
    }
    /// Working directory for relative paths in concurrency claims.
    pub fn cwd(mut self, cwd: impl Into<String>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
    /// Session id given to every call context.
    pub fn session(mut self, id: impl Into<String>) -> Self {
        self.session_id = Some(id.into());
        self
    }
    /// Host data given to every call context.
    pub fn extensions(mut self, extensions: Extensions) -> Self {
        self.extensions = extensions;
        self
    }
    /// Leave arguments out of events.
    pub fn redact_arguments(mut self, redact: bool) -> Self {
        self.redact_arguments = redact;
        self
    }
    /// Build the service.
    pub fn build(self) -> ScopedToolService {
        let service = ScopedToolService {
            inner: Arc::new(Inner {
                snapshot: self.snapshot,
                policy: self
                    .policy
                    .unwrap_or_else(|| Policy::default().scope(None, None)),
                disclosure: self.disclosure,
                activation: self.activation,
                gate: self.gate,
                limits: self.limits,
                sink: self.sink,
                hooks: self.hooks,
                cwd: self.cwd,
                session_id: self.session_id,
                extensions: self.extensions,
                redact_arguments: self.redact_arguments,
                cache: Mutex::new(None),
                counter: AtomicU64::new(1),
            }),
        };
        // Disclosure needs this request's visible set before any call.
        if let Some(d) = &service.inner.disclosure {
            d.prepare(&service.visible_base());
        }
        service
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The event of a call in progress. Without a sink, the costly parts
/// (argument copy, provenance) are skipped.
struct Trace {
    event: CallEvent,
    recording: bool,
}

impl Trace {
    fn new(
        call_id: &str,
        name: &str,
        args: &Value,
        waiting: Duration,
        redact: bool,
        recording: bool,
    ) -> Self {
        Self {
            recording,
            event: CallEvent {
                call_id: call_id.to_owned(),
                requested_tool: name.to_owned(),
                tool: None,
                decision: None,
                provenance: None,
                approval: None,
                waiting_ms: ms(waiting),
                approval_ms: 0.0,
                running_ms: 0.0,
                attempts: 0,
                outcome: String::new(),
                error: None,
                input_bytes: if recording { args.to_string().len() } else { 0 },
                output_bytes: 0,
                arguments: (recording && !redact).then(|| args.clone()),
            },
        }
    }
}

impl ScopedToolService {
    /// Start building a service over a registry snapshot.
    pub fn builder(snapshot: Arc<CatalogSnapshot>) -> ServiceBuilder {
        ServiceBuilder {
            snapshot,
            policy: None,
            disclosure: None,
            activation: None,
            gate: None,
            limits: Limits::default(),
            sink: None,
            hooks: Vec::new(),
            cwd: None,
            session_id: None,
            extensions: Extensions::new(),
            redact_arguments: false,
        }
    }

    /// A fresh call id.
    pub fn next_call_id(&self) -> String {
        format!(
            "call_{}",
            self.inner.counter.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// A context for a call of this service (session id, host data).
    pub fn context(&self, call_id: impl Into<String>) -> CallContext {
        let mut ctx = CallContext::new(call_id).with_extensions(self.inner.extensions.clone());
        if let Some(s) = &self.inner.session_id {
            ctx = ctx.with_session(s.clone());
        }
        ctx
    }

    /// The visible tools before disclosure: the snapshot (or the
    /// activation's declarations) less denied tools.
    fn visible_base(&self) -> Vec<ToolDefinition> {
        match &self.inner.activation {
            Some(a) => self.inner.policy.visible(&a.declarations()),
            None => self
                .inner
                .policy
                .visible(self.inner.snapshot.all().map(|e| &e.definition)),
        }
    }

    fn meta_tools(&self) -> Vec<SharedTool> {
        let mut out = Vec::new();
        if let Some(d) = &self.inner.disclosure {
            out.extend(d.meta_tool(tool_disclosure::GET_TOOL_SCHEMA));
            out.extend(d.meta_tool(tool_disclosure::TOOL_SEARCH));
        }
        if let Some(a) = &self.inner.activation {
            if !a.declarations().is_empty() {
                out.push(a.shed_tool());
            }
        }
        out
    }

    fn list_key(&self) -> String {
        let promoted = self
            .inner
            .disclosure
            .as_ref()
            .map_or(0, |d| d.promoted().len());
        let active = self
            .inner
            .activation
            .as_ref()
            .map_or(0, |a| a.active_names().len());
        format!("{}:{promoted}:{active}", self.inner.snapshot.version())
    }

    /// Resolve a name to a tool: meta tools, then exact, then repair.
    pub(crate) fn resolve(&self, name: &str) -> Result<(Target, Option<String>), ToolError> {
        if let Some(meta) = self
            .meta_tools()
            .into_iter()
            .find(|t| t.definition().name() == name)
        {
            return Ok((
                Target {
                    def: meta.definition().clone(),
                    tool: meta,
                },
                None,
            ));
        }
        if let Some(a) = &self.inner.activation {
            return match a.resolve_call(name) {
                Ok(tool) => Ok((
                    Target {
                        def: tool.definition().clone(),
                        tool,
                    },
                    None,
                )),
                Err(ToolError::NotFound { .. }) => {
                    let decls = a.declarations();
                    let repaired = self.repair(name, decls.iter().map(ToolDefinition::name))?;
                    let tool = a.resolve_call(&repaired)?;
                    Ok((
                        Target {
                            def: tool.definition().clone(),
                            tool,
                        },
                        Some(repaired),
                    ))
                }
                Err(e) => Err(e),
            };
        }
        match self.inner.snapshot.lookup(name) {
            Ok(entry) => Ok((
                Target {
                    def: entry.definition.clone(),
                    tool: Arc::clone(&entry.tool),
                },
                None,
            )),
            Err(e @ ToolError::Transport { .. }) => Err(e),
            Err(_) => {
                let repaired = self.repair(name, self.inner.snapshot.names())?;
                let entry = self.inner.snapshot.lookup(&repaired)?;
                Ok((
                    Target {
                        def: entry.definition.clone(),
                        tool: Arc::clone(&entry.tool),
                    },
                    Some(repaired),
                ))
            }
        }
    }

    fn repair<'a>(
        &self,
        name: &str,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<String, ToolError> {
        let mut names: Vec<&str> = names.into_iter().collect();
        let metas = self.meta_tools();
        names.extend(metas.iter().map(|m| m.definition().name()));
        repair_name(name, names.iter().copied()).map_err(|candidates| {
            let suggestions = if candidates.is_empty() {
                tool_core::closest_names(name, names.iter().copied(), 3)
            } else {
                candidates
            };
            ToolError::not_found(name, suggestions)
        })
    }

    /// Run one call with a given id and context.
    pub async fn execute_call(
        &self,
        call_id: &str,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        self.execute_inner(call_id, name, args, ctx, Duration::ZERO, None)
            .await
    }

    pub(crate) async fn execute_inner(
        &self,
        call_id: &str,
        name: &str,
        args: Value,
        ctx: &CallContext,
        waiting: Duration,
        pool: Option<&BudgetPool>,
    ) -> Result<ToolOutput, ToolError> {
        let span = tracing::info_span!(
            "tool_call",
            call_id,
            tool = name,
            outcome = tracing::field::Empty
        );
        let mut trace = Trace::new(
            call_id,
            name,
            &args,
            waiting,
            self.inner.redact_arguments,
            self.inner.sink.is_some(),
        );
        let result = self
            .pipeline(call_id, name, args, ctx, pool, &mut trace)
            .instrument(span.clone())
            .await;
        match &result {
            Ok(out) => {
                trace.event.outcome = "ok".into();
                trace.event.output_bytes = out.content_len();
            }
            Err(e) => {
                trace.event.outcome = e.kind().to_string();
                trace.event.error = Some(e.to_string());
            }
        }
        span.record("outcome", trace.event.outcome.as_str());
        if let Some(sink) = &self.inner.sink {
            sink.record(&trace.event);
        }
        result
    }

    async fn pipeline(
        &self,
        call_id: &str,
        name: &str,
        args: Value,
        ctx: &CallContext,
        pool: Option<&BudgetPool>,
        trace: &mut Trace,
    ) -> Result<ToolOutput, ToolError> {
        // 1. resolve
        let (target, _repaired) = self.resolve(name)?;
        let def = &target.def;
        trace.event.tool = Some(def.name().to_owned());
        // 2-3. permission, exec tier, command floor
        let decision = self.inner.policy.decide(def, Some(&args));
        trace.event.decision = Some(decision.action().to_string());
        if trace.recording {
            trace.event.provenance = serde_json::to_value(decision.provenance()).ok();
        }
        // 4. approval gate
        let started = Instant::now();
        let outcome = self.authorize(&decision, def.name(), &args, ctx).await;
        trace.event.approval_ms = ms(started.elapsed());
        let outcome = outcome?;
        trace.event.approval = Some(match outcome {
            GateOutcome::Allowed => "allowed".to_owned(),
            GateOutcome::Remembered => "remembered".to_owned(),
            GateOutcome::Approved(r) => format!(
                "approved:{}",
                serde_json::to_value(r)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ),
        });
        // before-hooks
        let mut args = args;
        for hook in &self.inner.hooks {
            match hook.before(def, args, ctx).await {
                HookVerdict::Continue(a) => args = a,
                HookVerdict::Veto(reason) => {
                    return Err(ToolError::PermissionDenied {
                        tool: def.name().to_owned(),
                        reason: format!("vetoed by a hook: {reason}"),
                    })
                }
            }
        }
        // 5. argument validation
        check_value_limits(def.name(), &args, &self.inner.limits.validation)?;
        if self.inner.limits.lax_arguments {
            args = coerce_to_schema(args, def.input_schema());
        }
        def.validate_input(&args)?;
        // 6. run, with retries by error kind
        let retry = self.inner.limits.retry_for(def.name());
        let run_started = Instant::now();
        let mut attempt = 0;
        let output = loop {
            attempt += 1;
            trace.event.attempts = attempt;
            let result = self.run_once(&target, args.clone(), ctx).await.and_then(|out| {
                // 7. output validation
                if def.output_schema().is_some() && !out.is_error {
                    match &out.structured {
                        Some(s) => def.validate_output(s)?,
                        None => {
                            return Err(ToolError::InvalidOutput {
                                tool: def.name().to_owned(),
                                violations: vec![tool_core::Violation::new("", "the tool declares an output schema but returned no structured output")],
                            })
                        }
                    }
                }
                Ok(out)
            });
            match result {
                Err(e)
                    if retry.should_retry(&e, attempt, def.facts().idempotent())
                        && !ctx.is_cancelled() =>
                {
                    tracing::debug!(call_id, attempt, error = %e, "retrying");
                    tokio::time::sleep(retry.backoff(attempt)).await;
                }
                other => break other,
            }
        };
        trace.event.running_ms = ms(run_started.elapsed());
        let mut output = output?;
        // after-hooks
        for hook in &self.inner.hooks {
            output = hook.after(def, output, ctx).await;
        }
        // 8. output budget
        apply_budget(output, call_id, &self.inner.limits.output, pool).await
    }

    async fn authorize(
        &self,
        decision: &Decision,
        tool: &str,
        args: &Value,
        ctx: &CallContext,
    ) -> Result<GateOutcome, ToolError> {
        match (&self.inner.gate, decision.action()) {
            (Some(gate), _) => gate.authorize(decision, tool, args, ctx).await,
            (None, Action::Allow) => Ok(GateOutcome::Allowed),
            (None, Action::Deny) => Err(ToolError::PermissionDenied {
                tool: tool.to_owned(),
                reason: decision.reason(),
            }),
            (None, Action::Ask) => Err(ToolError::ApprovalRequired {
                tool: tool.to_owned(),
                reason: decision.reason(),
            }),
        }
    }

    /// One attempt, on the caller's task (no thread hop): a panic inside
    /// the tool is caught and becomes a typed error, so the service keeps
    /// serving; the deadline and the cancellation token end it (the tool's
    /// future is dropped and its child token cancelled).
    async fn run_once(
        &self,
        target: &Target,
        args: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        use futures::FutureExt;
        let name = target.def.name().to_owned();
        let timeout = ctx.remaining().map_or(self.inner.limits.call_timeout, |r| {
            r.min(self.inner.limits.call_timeout)
        });
        let child = ctx.cancellation().child_token();
        let call_ctx = ctx
            .clone()
            .with_cancellation(child.clone())
            .with_timeout(timeout);
        let tool = Arc::clone(&target.tool);
        let run = std::panic::AssertUnwindSafe(async move { tool.call(args, &call_ctx).await })
            .catch_unwind();
        tokio::select! {
            finished = run => match finished {
                Ok(result) => result,
                Err(payload) => {
                    let message = payload
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a non-text panic payload".to_owned());
                    Err(ToolError::Panicked { tool: name, message })
                }
            },
            () = tokio::time::sleep(timeout) => {
                child.cancel();
                Err(ToolError::Timeout { tool: name, after: timeout })
            }
            () = ctx.cancellation().cancelled() => {
                child.cancel();
                Err(ToolError::Cancelled { tool: name })
            }
        }
    }
}

#[async_trait]
impl ToolService for ScopedToolService {
    async fn execute(&self, name: &str, input: Value) -> Result<ToolOutput, ToolError> {
        let id = self.next_call_id();
        let ctx = self.context(id.clone());
        self.execute_call(&id, name, input, &ctx).await
    }

    fn list(&self) -> Vec<ToolDefinition> {
        if let Some(a) = &self.inner.activation {
            return a
                .offered()
                .into_iter()
                .filter(|d| self.inner.policy.is_visible(d))
                .collect();
        }
        let base = self.visible_base();
        match &self.inner.disclosure {
            Some(d) => d.prepare(&base),
            None => base,
        }
    }

    fn dispatchable_list(&self) -> Vec<ToolDefinition> {
        let mut all = self.visible_base();
        all.extend(self.meta_tools().iter().map(|t| t.definition().clone()));
        all
    }

    fn describe(&self, name: &str) -> Option<ToolDefinition> {
        let (target, _) = self.resolve(name).ok()?;
        self.inner
            .policy
            .is_visible(&target.def)
            .then_some(target.def)
    }

    fn metadata_schema(&self) -> Arc<[ToolDefinition]> {
        let key = self.list_key();
        let mut cache = self
            .inner
            .cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((k, list)) = cache.as_ref() {
            if *k == key {
                return Arc::clone(list);
            }
        }
        let list: Arc<[ToolDefinition]> = self.list().into();
        *cache = Some((key, Arc::clone(&list)));
        list
    }
}
