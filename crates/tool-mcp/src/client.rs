//! One MCP server over stdio, its tools as toolstack [`DynTool`]s, and
//! importing them into a [`ToolCatalog`] as an MCP source.

use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock, ErrorCode, PingRequest,
};
use rmcp::service::{NotificationContext, Peer, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tool_core::{
    CallContext, Content, DynTool, SharedTool, ToolDefinition, ToolError, ToolFacts, ToolOutput,
    ToolSource,
};
use tool_registry::{Health, SourceConfig, ToolCatalog};

use crate::{McpError, ServerConfig};

/// Receives the server's notifications; forwards tools-list-changed.
pub struct Notifications {
    list_changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Notifications {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        let _ = self.list_changed.send(());
        std::future::ready(())
    }
}

/// A connected MCP server.
pub struct McpServer {
    config: ServerConfig,
    service: RunningService<RoleClient, Notifications>,
    list_changed: std::sync::Mutex<Option<mpsc::UnboundedReceiver<()>>>,
    list_changes_applied: std::sync::atomic::AtomicUsize,
    /// Why the gateway dropped the connection, when it did.
    dropped_because: std::sync::Mutex<Option<String>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.config.name)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Start the server (stdio) or reach it (streamable HTTP at `url`) and
    /// complete the MCP handshake within its startup deadline.
    pub async fn connect(config: ServerConfig) -> Result<Self, McpError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let handler = Notifications { list_changed: tx };
        let seconds = config.startup_timeout_s;
        let deadline = Duration::from_secs(seconds);
        let service = match (&config.command, &config.url) {
            (Some(program), _) => {
                let mut cmd = tokio::process::Command::new(program);
                cmd.args(&config.args).envs(&config.env);
                let transport = TokioChildProcess::new(cmd).map_err(|e| McpError::Connection {
                    server: config.name.clone(),
                    message: format!("cannot start `{program}`: {e}"),
                })?;
                tokio::time::timeout(deadline, handler.serve(transport)).await
            }
            (None, Some(url)) => {
                // Streamable HTTP over plain http:// (this build has no TLS).
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
                tokio::time::timeout(deadline, handler.serve(transport)).await
            }
            (None, None) => {
                return Err(McpError::BadServer {
                    server: config.name.clone(),
                    reason: "give `command` (stdio) or `url` (HTTP)".into(),
                })
            }
        }
        .map_err(|_| McpError::StartupTimeout {
            server: config.name.clone(),
            seconds,
        })?
        .map_err(|e| McpError::Connection {
            server: config.name.clone(),
            message: format!("handshake failed: {e}"),
        })?;
        Ok(Self {
            config,
            service,
            list_changed: std::sync::Mutex::new(Some(rx)),
            list_changes_applied: std::sync::atomic::AtomicUsize::new(0),
            dropped_because: std::sync::Mutex::new(None),
        })
    }

    /// How many tools-list-changed notifications were applied to the
    /// catalog (by [`crate::McpHub`]).
    pub fn list_changes_applied(&self) -> usize {
        self.list_changes_applied
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    pub(crate) fn count_list_change(&self) {
        self.list_changes_applied
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// The stream of tools-list-changed notifications (once; later calls
    /// get `None`).
    pub fn take_list_changes(&self) -> Option<mpsc::UnboundedReceiver<()>> {
        self.list_changed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// The server's configured name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The configuration it was started with.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The protocol peer, for requests beyond tools.
    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// True once the server exited or its pipe closed.
    pub fn is_closed(&self) -> bool {
        self.service.is_transport_closed() || self.service.is_closed()
    }

    /// Send an MCP `ping` and wait up to `ping_timeout_s` for the answer.
    /// A server that does not answer in time is disconnected (its process
    /// stopped), so it counts as closed from then on and the hub's
    /// supervisor restarts it.
    pub async fn ping(&self) -> Result<(), McpError> {
        let seconds = self.config.ping_timeout_s;
        let request = self
            .service
            .peer()
            .send_request(ClientRequest::PingRequest(PingRequest::default()));
        let failure = match tokio::time::timeout(Duration::from_secs(seconds), request).await {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(e)) => format!("ping failed: {e}"),
            Err(_) => format!("did not answer a ping within {seconds} s"),
        };
        *self
            .dropped_because
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(failure.clone());
        self.disconnect();
        Err(McpError::Connection {
            server: self.config.name.clone(),
            message: failure,
        })
    }

    /// Drop the connection now (a child process is stopped); in-flight
    /// calls fail with a transport error.
    pub fn disconnect(&self) {
        self.service.cancellation_token().cancel();
    }

    /// Why it is closed, as health reports say it.
    fn closed_reason(&self) -> String {
        self.dropped_because
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .unwrap_or_else(|| "the server exited or closed its connection".into())
    }

    /// Capabilities it advertises that gate host tools: `resources`,
    /// `prompts`.
    pub fn capabilities(&self) -> Vec<&'static str> {
        let Some(info) = self.service.peer_info() else {
            return Vec::new();
        };
        let mut caps = Vec::new();
        if info.capabilities.resources.is_some() {
            caps.push("resources");
        }
        if info.capabilities.prompts.is_some() {
            caps.push("prompts");
        }
        caps
    }

    /// The server's tools, as toolstack tools (original names; the catalog
    /// namespaces them).
    pub async fn tools(&self) -> Result<Vec<SharedTool>, McpError> {
        let listed = self
            .service
            .list_all_tools()
            .await
            .map_err(|e| McpError::Connection {
                server: self.config.name.clone(),
                message: format!("tools/list failed: {e}"),
            })?;
        listed
            .into_iter()
            .map(|t| {
                let def = definition_of(&self.config.name, &t)?;
                Ok(std::sync::Arc::new(McpTool {
                    def,
                    remote_name: t.name.to_string(),
                    server: self.config.name.clone(),
                    peer: self.service.peer().clone(),
                    timeout: Duration::from_secs(self.config.call_timeout_s),
                }) as SharedTool)
            })
            .collect()
    }

    /// Stop the server.
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}

/// An MCP tool's definition: description, input and output schemas, and
/// annotations as facts (absent annotations stay unknown).
fn definition_of(server: &str, tool: &rmcp::model::Tool) -> Result<ToolDefinition, McpError> {
    let mut builder = ToolDefinition::builder(
        tool.name.to_string(),
        tool.description.as_deref().unwrap_or_default(),
    )
    .input_schema(Value::Object((*tool.input_schema).clone()))
    .source(ToolSource::mcp(server));
    if let Some(out) = &tool.output_schema {
        builder = builder.output_schema(Value::Object((**out).clone()));
    }
    if let Some(a) = &tool.annotations {
        builder = builder.facts(ToolFacts {
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
            open_world: a.open_world_hint,
            requires_approval: None,
        });
    }
    // Names a provider would refuse are fixed by the catalog's flattening;
    // the definition itself needs a valid name, so sanitise here too.
    match builder.clone().build() {
        Ok(def) => Ok(def),
        Err(ToolError::InvalidName { .. }) => {
            let safe = tool_registry::flatten_name(None, &tool.name, "_");
            Ok(
                ToolDefinition::builder(safe, tool.description.as_deref().unwrap_or_default())
                    .input_schema(Value::Object((*tool.input_schema).clone()))
                    .source(ToolSource::mcp(server))
                    .build()?,
            )
        }
        Err(e) => Err(e.into()),
    }
}

/// One tool of an MCP server.
struct McpTool {
    def: ToolDefinition,
    remote_name: String,
    server: String,
    peer: Peer<RoleClient>,
    timeout: Duration,
}

fn content_of(block: &ContentBlock) -> Content {
    match block {
        ContentBlock::Text(t) => Content::Text {
            text: t.text.clone(),
        },
        other => Content::Json {
            value: serde_json::to_value(other).unwrap_or(Value::Null),
        },
    }
}

/// A failed result whose text is an MCP error (`MCP error -32602: ...`,
/// as the reference SDKs format errors thrown in tool handlers).
fn mcp_error_code(result: &CallToolResult) -> Option<(i32, String)> {
    if result.is_error != Some(true) {
        return None;
    }
    let text = result.content.first()?.as_text()?.text.as_str();
    let rest = text.strip_prefix("MCP error ")?;
    let (code, message) = rest.split_once(':')?;
    Some((code.trim().parse().ok()?, message.trim().to_owned()))
}

fn output_of(result: CallToolResult) -> ToolOutput {
    ToolOutput {
        content: result.content.iter().map(content_of).collect(),
        structured: result.structured_content,
        metadata: serde_json::Map::new(),
        is_error: result.is_error.unwrap_or(false),
    }
}

impl McpTool {
    fn map_error(&self, err: ServiceError) -> ToolError {
        let tool = self.def.name().to_owned();
        match err {
            ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS => {
                ToolError::InvalidArguments {
                    tool,
                    violations: vec![tool_core::Violation::new("", e.message.to_string())],
                }
            }
            ServiceError::McpError(e) => ToolError::execution(tool, e.message.to_string()),
            ServiceError::Timeout { timeout } => ToolError::Timeout {
                tool,
                after: timeout,
            },
            ServiceError::Cancelled { .. } => ToolError::Cancelled { tool },
            other => ToolError::Transport {
                tool,
                origin: self.server.clone(),
                message: other.to_string(),
            },
        }
    }
}

#[async_trait]
impl DynTool for McpTool {
    fn definition(&self) -> &ToolDefinition {
        &self.def
    }

    /// Calls the server. When the call's token fires or its deadline
    /// passes, the request future is dropped, which sends MCP
    /// `notifications/cancelled` to the server.
    async fn call(&self, args: Value, ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let mut params = CallToolRequestParams::new(self.remote_name.clone());
        params.arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => {
                return Err(ToolError::invalid_argument(
                    self.def.name(),
                    "",
                    "arguments must be a JSON object",
                ))
            }
        };
        let timeout = ctx
            .remaining()
            .map_or(self.timeout, |r| r.min(self.timeout));
        tokio::select! {
            result = self.peer.call_tool(params) => {
                let result = result.map_err(|e| self.map_error(e))?;
                match mcp_error_code(&result) {
                    Some((code, message)) if code == ErrorCode::INVALID_PARAMS.0 => Err(ToolError::InvalidArguments {
                        tool: self.def.name().to_owned(),
                        violations: vec![tool_core::Violation::new("", message)],
                    }),
                    Some((_, message)) => Err(ToolError::execution(self.def.name(), message)),
                    None => Ok(output_of(result)),
                }
            }
            () = ctx.cancellation().cancelled() => Err(ToolError::Cancelled { tool: self.def.name().to_owned() }),
            () = tokio::time::sleep(timeout) => Err(ToolError::Timeout { tool: self.def.name().to_owned(), after: timeout }),
        }
    }
}

/// Connect a server and import its tools into `catalog` as an MCP source
/// (namespaced by its namespace, default its name), with the capabilities
/// it advertises.
pub async fn attach(catalog: &ToolCatalog, config: ServerConfig) -> Result<McpServer, McpError> {
    let server = McpServer::connect(config).await?;
    let mut source = SourceConfig::new(server.name(), ToolSource::mcp(server.name()));
    if let Some(ns) = server.config().effective_namespace() {
        source = source.namespace(ns);
    }
    match catalog.add_source(source) {
        Ok(()) | Err(tool_registry::RegistryError::SourceExists { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    refresh(catalog, &server).await?;
    Ok(server)
}

/// Re-list a server's tools into the catalog (after a tools-list-changed
/// notification, or a reconnect); marks the source healthy.
pub async fn refresh(catalog: &ToolCatalog, server: &McpServer) -> Result<(), McpError> {
    let tools = server.tools().await?;
    catalog.set_source_tools(server.name(), tools)?;
    catalog.set_capabilities(server.name(), server.capabilities())?;
    catalog.set_health(server.name(), Health::Healthy)?;
    Ok(())
}

/// Report a server's health to the catalog: a closed connection makes its
/// tools leave the visible list and direct calls fail with a transport
/// error naming it.
pub fn report_health(catalog: &ToolCatalog, server: &McpServer) -> Result<Health, McpError> {
    let health = if server.is_closed() {
        Health::Unhealthy {
            reason: server.closed_reason(),
        }
    } else {
        Health::Healthy
    };
    catalog.set_health(server.name(), health.clone())?;
    Ok(health)
}
