//! [`Gateway`]: one client's session, the MCP server handler.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
};
use rmcp::service::{ElicitationMode, NotificationContext, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::{CancellationToken, DropGuard};
use tool_core::{Content, ToolDefinition};
use tool_disclosure::DisclosureSession;
use tool_policy::ApprovalGate;
use tool_service::{ScopedToolService, ToolService};

use super::approval::ElicitingRequester;
use super::host::GatewayHost;
use crate::{McpConfig, McpError, McpHub};

/// One client's view of the gateway (an MCP [`ServerHandler`]): the
/// shared upstream tools through this client's disclosure session
/// (promotions) and approval gate (remembered approvals).
///
/// When the catalog changes under it (an upstream server announced new
/// tools, died or came back) and the list this client would see differs
/// from the one it last saw, the client gets `notifications/tools/list_changed`.
pub struct Gateway {
    inner: Arc<SessionInner>,
    _stop: DropGuard,
}

struct SessionInner {
    host: GatewayHost,
    disclosure: DisclosureSession,
    gate: Mutex<Option<Arc<ApprovalGate>>>,
    service: Mutex<Option<(u64, bool, ScopedToolService)>>,
    /// Fingerprint of the tool list the client last saw or was told of.
    listed: Mutex<Option<u64>>,
    /// Whether the list-change follower runs.
    follower: AtomicBool,
    stop: CancellationToken,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("host", &self.inner.host)
            .field("promoted", &self.inner.disclosure.promoted())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Gateway {
    pub(super) fn new(host: GatewayHost, disclosure: DisclosureSession) -> Self {
        let stop = CancellationToken::new();
        Self {
            inner: Arc::new(SessionInner {
                host,
                disclosure,
                gate: Mutex::new(None),
                service: Mutex::new(None),
                listed: Mutex::new(None),
                follower: AtomicBool::new(false),
                stop: stop.clone(),
            }),
            _stop: stop.drop_guard(),
        }
    }

    /// A host for `config` and its first session (a gateway with one
    /// client, as on stdio).
    pub async fn start(config: &McpConfig) -> Result<Self, McpError> {
        Ok(GatewayHost::start(config).await?.session())
    }

    /// The host this session belongs to.
    pub fn host(&self) -> &GatewayHost {
        &self.inner.host
    }

    /// The hub of upstream servers.
    pub fn hub(&self) -> &McpHub {
        self.inner.host.hub()
    }

    /// The service over the current catalog (rebuilt when the catalog
    /// changed; promotions live in the disclosure session and survive).
    pub fn service(&self) -> ScopedToolService {
        self.inner.service()
    }

    /// Once the client is known: if it supports form elicitation, `ask`
    /// decisions are put to its person through an approval gate (kept for
    /// the session, so remembered approvals persist).
    fn enable_approvals(&self, peer: &Peer<RoleServer>) {
        let mut gate = lock(&self.inner.gate);
        if gate.is_none()
            && peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
        {
            let requester = Arc::new(ElicitingRequester { peer: peer.clone() });
            *gate = Some(Arc::new(ApprovalGate::new(
                requester,
                self.inner.host.approval_timeout(),
            )));
        }
    }

    /// Start (once) the task that tells this client when the catalog
    /// changed the list it sees. It ends with the session.
    fn follow_changes(&self, peer: Peer<RoleServer>) {
        if self.inner.follower.swap(true, Ordering::SeqCst) {
            return;
        }
        let session = Arc::clone(&self.inner);
        let mut changes = self.inner.host.changes();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = session.stop.cancelled() => return,
                    result = changes.changed() => if result.is_err() { return },
                }
                // One reconnect publishes several snapshots: let them land.
                tokio::time::sleep(CHANGE_SETTLE).await;
                changes.mark_unchanged();
                if session.note_listed(&session.service().list()) {
                    tracing::debug!("tool list changed upstream; telling the client");
                    if peer.notify_tool_list_changed().await.is_err() {
                        return;
                    }
                }
            }
        });
    }
}

/// How long the change follower waits for a burst of catalog updates to
/// finish before comparing lists.
const CHANGE_SETTLE: Duration = Duration::from_millis(50);

impl SessionInner {
    fn service(&self) -> ScopedToolService {
        let snapshot = self.host.hub().catalog().snapshot();
        let gate = lock(&self.gate).clone();
        let mut cached = lock(&self.service);
        if let Some((version, gated, service)) = cached.as_ref() {
            if *version == snapshot.version() && *gated == gate.is_some() {
                return service.clone();
            }
        }
        let version = snapshot.version();
        let mut builder = ScopedToolService::builder(snapshot)
            .policy(self.host.policy().clone())
            .disclosure(self.disclosure.clone());
        if let Some(gate) = &gate {
            builder = builder.approvals(Arc::clone(gate));
        }
        let service = builder.build();
        *cached = Some((version, gate.is_some(), service.clone()));
        service
    }

    /// Record that the client now sees (or is told of) `tools`; true when
    /// that differs from what it saw before.
    fn note_listed(&self, tools: &[ToolDefinition]) -> bool {
        let print = fingerprint(tools);
        let mut listed = lock(&self.listed);
        let changed = listed.is_some_and(|p| p != print);
        *listed = Some(print);
        changed
    }
}

/// A hash of a tool list as the client sees it (names, descriptions,
/// schemas, in order).
fn fingerprint(tools: &[ToolDefinition]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for tool in tools {
        serde_json::to_string(tool)
            .unwrap_or_default()
            .hash(&mut hasher);
    }
    hasher.finish()
}

fn mcp_tool(def: &ToolDefinition) -> rmcp::model::Tool {
    let schema = match def.input_schema() {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let mut tool = rmcp::model::Tool::new(
        def.name().to_owned(),
        def.description().to_owned(),
        Arc::new(schema),
    );
    if let Some(Value::Object(out)) = def.output_schema() {
        tool.output_schema = Some(Arc::new(out.clone()));
    }
    tool
}

fn block(content: &Content) -> ContentBlock {
    match content {
        Content::Text { text } => ContentBlock::text(text.clone()),
        other => ContentBlock::text(serde_json::to_string(other).unwrap_or_default()),
    }
}

impl ServerHandler for Gateway {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut info = InitializeResult::new(capabilities);
        info.server_info = Implementation::new("toolstack-gateway", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Tools of several MCP servers behind one endpoint. Tools not listed in full can be found with tool_search and inspected with get_tool_schema.".into(),
        );
        info
    }

    /// Sessions carry this client's promotions and remembered approvals,
    /// so the sessionless protocol revision (2026-07-28, SEP-2567) is not
    /// offered; clients negotiate 2025-11-25 or older.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(
            ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .filter(|v| v.has_initialize())
                .cloned()
                .collect(),
        )
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.follow_changes(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.follow_changes(context.peer);
        let tools = self.service().list();
        self.inner.note_listed(&tools);
        Ok(ListToolsResult::with_all_items(
            tools.iter().map(mcp_tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.enable_approvals(&context.peer);
        let service = self.service();
        let promoted = self.inner.disclosure.promoted().len();
        let args = request
            .arguments
            .map_or(Value::Object(serde_json::Map::new()), Value::Object);
        let result = match service.execute(&request.name, args).await {
            Ok(out) => {
                let mut r = if out.is_error {
                    CallToolResult::error(out.content.iter().map(block).collect())
                } else {
                    CallToolResult::success(out.content.iter().map(block).collect())
                };
                r.structured_content = out.structured;
                r
            }
            // Refusals and failures go back as tool errors the model reads;
            // `ask` without a client that can elicit is refused clearly.
            Err(e) => CallToolResult::error(vec![ContentBlock::text(match &e {
                tool_core::ToolError::ApprovalRequired { .. } => format!(
                    "{} This client cannot ask its user (no MCP elicitation support), so the gateway refused the call.",
                    e.model_message()
                ),
                _ => e.model_message(),
            })]),
        };
        if self.inner.disclosure.promoted().len() > promoted
            && self.inner.note_listed(&self.service().list())
        {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(CallToolResponse::Complete(result))
    }
}
