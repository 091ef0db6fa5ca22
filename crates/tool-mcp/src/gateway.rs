//! The gateway: toolstack itself as an MCP server, in front of the
//! configured upstream servers, with their tools merged (namespaced),
//! the policy applied (denied tools hidden and refused) and progressive
//! disclosure (core tools in full, `tool_search` and `get_tool_schema`,
//! found tools promoted with a tools-list-changed notification); `ask`
//! calls are put to the client's user through MCP elicitation.

use std::sync::{Arc, Mutex, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, Implementation, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::{ElicitationMode, Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tool_core::{Content, ToolDefinition};
use tool_disclosure::{DisclosureSession, ProgressiveDisclosureRewriter, SearchIndex};
use tool_policy::{
    ApprovalAnswer, ApprovalGate, ApprovalRequest, ApprovalRequester, Policy, Remember,
    ScopedPolicy,
};
use tool_service::{ScopedToolService, ToolService};

use crate::{McpConfig, McpError, McpHub};

/// Asks the gateway's client to approve a call, through MCP form
/// elicitation (an empty form: the person accepts or declines).
struct ElicitingRequester {
    peer: Peer<RoleServer>,
}

#[async_trait::async_trait]
impl ApprovalRequester for ElicitingRequester {
    async fn request(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let message = format!(
            "Allow the tool call `{}`? {}\nArguments: {}",
            request.tool, request.reason, request.arguments
        );
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: ElicitationSchema::new(std::collections::BTreeMap::new()),
        };
        match self.peer.create_elicitation(params).await {
            Ok(result) => match result.action {
                ElicitationAction::Accept => ApprovalAnswer::Approved {
                    remember: Remember::Once,
                },
                ElicitationAction::Decline => ApprovalAnswer::Declined {
                    feedback: Some("declined in the client".into()),
                },
                _ => ApprovalAnswer::Declined {
                    feedback: Some("cancelled in the client".into()),
                },
            },
            Err(e) => ApprovalAnswer::Declined {
                feedback: Some(format!("the approval request failed: {e}")),
            },
        }
    }
}

/// One client's view of the gateway.
pub struct Gateway {
    hub: McpHub,
    policy: ScopedPolicy,
    disclosure: DisclosureSession,
    approval_timeout: std::time::Duration,
    gate: Mutex<Option<Arc<ApprovalGate>>>,
    service: Mutex<Option<(u64, bool, ScopedToolService)>>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("hub", &self.hub)
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// Connect every configured server and prepare the policy and
    /// disclosure. A server that fails to start is an error naming it.
    pub async fn start(config: &McpConfig) -> Result<Self, McpError> {
        let hub = McpHub::new(tool_registry::ToolCatalog::new())?;
        for server in &config.servers {
            hub.attach(server.clone()).await?;
        }
        let policy = Policy::new(&config.policy())
            .map_err(McpError::Config)?
            .scope(None, None);
        let rewriter = ProgressiveDisclosureRewriter::new(config.tools.clone()).map_err(|e| {
            McpError::BadServer {
                server: "[tools]".into(),
                reason: e.to_string(),
            }
        })?;
        let disclosure =
            DisclosureSession::new(rewriter, Arc::new(RwLock::new(SearchIndex::new())));
        Ok(Self {
            hub,
            policy,
            disclosure,
            approval_timeout: std::time::Duration::from_secs(300),
            gate: Mutex::new(None),
            service: Mutex::new(None),
        })
    }

    /// The hub of upstream servers.
    pub fn hub(&self) -> &McpHub {
        &self.hub
    }

    /// Once the client is known: if it supports form elicitation, `ask`
    /// decisions are put to its person through an approval gate (kept for
    /// the session, so remembered approvals persist).
    fn enable_approvals(&self, peer: &Peer<RoleServer>) {
        let mut gate = self
            .gate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if gate.is_none()
            && peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
        {
            let requester = Arc::new(ElicitingRequester { peer: peer.clone() });
            *gate = Some(Arc::new(ApprovalGate::new(
                requester,
                self.approval_timeout,
            )));
        }
    }

    /// The service over the current catalog (rebuilt when the catalog
    /// changed; promotions live in the disclosure session and survive).
    pub fn service(&self) -> ScopedToolService {
        let snapshot = self.hub.catalog().snapshot();
        let gate = self
            .gate
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let mut cached = self
            .service
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((version, gated, service)) = cached.as_ref() {
            if *version == snapshot.version() && *gated == gate.is_some() {
                return service.clone();
            }
        }
        let version = snapshot.version();
        let mut builder = ScopedToolService::builder(snapshot)
            .policy(self.policy.clone())
            .disclosure(self.disclosure.clone());
        if let Some(gate) = &gate {
            builder = builder.approvals(Arc::clone(gate));
        }
        let service = builder.build();
        *cached = Some((version, gate.is_some(), service.clone()));
        service
    }
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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.service().list();
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
        let promoted = self.disclosure.promoted().len();
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
        if self.disclosure.promoted().len() > promoted {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(CallToolResponse::Complete(result))
    }
}

/// Serve the gateway on stdin/stdout until the client leaves.
pub async fn serve_stdio(config: &McpConfig) -> Result<(), McpError> {
    use rmcp::ServiceExt;
    let gateway = Gateway::start(config).await?;
    let _supervisor = gateway.hub().spawn_supervisor(
        std::time::Duration::from_secs(2),
        std::time::Duration::from_secs(60),
    );
    let running =
        gateway
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Connection {
                server: "gateway client".into(),
                message: e.to_string(),
            })?;
    running.waiting().await.map_err(|e| McpError::Connection {
        server: "gateway client".into(),
        message: e.to_string(),
    })?;
    Ok(())
}
