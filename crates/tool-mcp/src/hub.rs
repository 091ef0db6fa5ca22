//! [`McpHub`]: the connected servers of one host, feeding one catalog, plus
//! the capability-gated resource and prompt tools.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::{json, Value};
use tool_core::{
    CallContext, DynTool, ToolArgs, ToolCategory, ToolDefinition, ToolError, ToolFacts, ToolOutput,
};
use tool_registry::{Health, ToolCatalog};

use crate::{McpError, McpServer, ServerConfig};

type Servers = Arc<Mutex<BTreeMap<String, Arc<McpServer>>>>;

/// The MCP servers of one host.
///
/// While at least one healthy server advertises resources, the catalog
/// offers `mcp_list_resources` and `mcp_read_resource`; while one
/// advertises prompts, `mcp_list_prompts` and `mcp_get_prompt`. They appear
/// with the first such server and leave with the last.
#[derive(Clone)]
pub struct McpHub {
    catalog: ToolCatalog,
    servers: Servers,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &self.names())
            .finish_non_exhaustive()
    }
}

impl McpHub {
    /// A hub feeding `catalog` (the gated tools are registered now and
    /// stay hidden until a server advertises their capability).
    pub fn new(catalog: ToolCatalog) -> Result<Self, McpError> {
        let servers: Servers = Arc::default();
        for kind in GatedKind::ALL {
            let tool = Arc::new(GatedTool {
                kind,
                def: kind.definition(),
                servers: Arc::clone(&servers),
            });
            catalog.add_gated_tool(kind.capability(), tool)?;
        }
        Ok(Self { catalog, servers })
    }

    /// The catalog it feeds.
    pub fn catalog(&self) -> &ToolCatalog {
        &self.catalog
    }

    /// Names of the connected servers.
    pub fn names(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<McpServer>>> {
        self.servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The connected server of this name.
    pub fn server(&self, name: &str) -> Option<Arc<McpServer>> {
        self.lock().get(name).cloned()
    }

    /// Connect a server and import its tools (see [`crate::attach`]); its
    /// tools-list-changed notifications re-import them from then on.
    pub async fn attach(&self, config: ServerConfig) -> Result<Arc<McpServer>, McpError> {
        let server = Arc::new(crate::attach(&self.catalog, config).await?);
        self.lock()
            .insert(server.name().to_owned(), Arc::clone(&server));
        if let Some(mut changes) = server.take_list_changes() {
            let catalog = self.catalog.clone();
            let weak = Arc::downgrade(&server);
            tokio::spawn(async move {
                while changes.recv().await.is_some() {
                    let Some(server) = weak.upgrade() else { return };
                    match crate::refresh(&catalog, &server).await {
                        Ok(()) => {
                            server.count_list_change();
                            tracing::debug!(server = %server.name(), "tools re-imported after list_changed");
                        }
                        Err(e) => {
                            tracing::warn!(server = %server.name(), error = %e, "re-import after list_changed failed");
                        }
                    }
                }
            });
        }
        Ok(server)
    }

    /// Try once to reconnect every server whose connection is closed: the
    /// same command is started again, its tools re-imported and the source
    /// marked healthy. Returns the servers tried, with the outcome.
    pub async fn reconnect_dead(&self) -> Vec<(String, Result<(), McpError>)> {
        let dead: Vec<ServerConfig> = self
            .lock()
            .values()
            .filter(|s| s.is_closed())
            .map(|s| s.config().clone())
            .collect();
        let mut outcomes = Vec::with_capacity(dead.len());
        for config in dead {
            let name = config.name.clone();
            let outcome = self.attach(config).await.map(|_| ());
            outcomes.push((name, outcome));
        }
        outcomes
    }

    /// Watch the servers in the background: every `interval`, dead servers
    /// and servers that do not answer a ping ([`McpHub::ping_all`]) are
    /// marked unhealthy and reconnected with exponential backoff (from
    /// `interval`, doubling up to `max_backoff`). The task ends when the
    /// hub is dropped.
    pub fn spawn_supervisor(
        &self,
        interval: std::time::Duration,
        max_backoff: std::time::Duration,
    ) -> tokio::task::JoinHandle<()> {
        let servers = Arc::downgrade(&self.servers);
        let catalog = self.catalog.clone();
        tokio::spawn(async move {
            let mut backoff: BTreeMap<String, (std::time::Duration, tokio::time::Instant)> =
                BTreeMap::new();
            loop {
                tokio::time::sleep(interval).await;
                let Some(servers) = servers.upgrade() else {
                    return;
                };
                let hub = McpHub {
                    catalog: catalog.clone(),
                    servers,
                };
                hub.report_health();
                hub.ping_all().await;
                let now = tokio::time::Instant::now();
                let dead: Vec<ServerConfig> = hub
                    .lock()
                    .values()
                    .filter(|s| s.is_closed())
                    .map(|s| s.config().clone())
                    .collect();
                for config in dead {
                    let (wait, next_try) = backoff
                        .get(&config.name)
                        .copied()
                        .unwrap_or((interval, now));
                    if now < next_try {
                        continue;
                    }
                    let name = config.name.clone();
                    match hub.attach(config).await {
                        Ok(_) => {
                            backoff.remove(&name);
                            tracing::info!(server = %name, "MCP server reconnected");
                        }
                        Err(e) => {
                            let wait = (wait * 2).min(max_backoff);
                            backoff.insert(name.clone(), (wait, now + wait));
                            tracing::warn!(server = %name, error = %e, next_try_in = ?wait, "MCP server reconnect failed");
                        }
                    }
                }
            }
        })
    }

    /// Ping every open server at once (each within its `ping_timeout_s`);
    /// one that does not answer is disconnected and reported unhealthy, so
    /// the supervisor restarts it like a server that exited. Returns the
    /// servers that failed, with why.
    pub async fn ping_all(&self) -> Vec<(String, McpError)> {
        let open: Vec<Arc<McpServer>> = self
            .lock()
            .values()
            .filter(|s| !s.is_closed())
            .cloned()
            .collect();
        let mut pings = tokio::task::JoinSet::new();
        for server in open {
            pings.spawn(async move { (server.ping().await, server) });
        }
        let mut failed = Vec::new();
        while let Some(joined) = pings.join_next().await {
            let Ok((Err(e), server)) = joined else {
                continue;
            };
            tracing::warn!(server = %server.name(), error = %e, "MCP server stopped answering");
            let _ = crate::report_health(&self.catalog, &server);
            failed.push((server.name().to_owned(), e));
        }
        failed
    }

    /// Check every server; dead ones become unhealthy (their tools leave
    /// the visible list, and gated tools with them when no other server
    /// offers the capability).
    pub fn report_health(&self) -> Vec<(String, Health)> {
        let servers: Vec<Arc<McpServer>> = self.lock().values().cloned().collect();
        servers
            .iter()
            .filter_map(|s| {
                crate::report_health(&self.catalog, s)
                    .ok()
                    .map(|h| (s.name().to_owned(), h))
            })
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GatedKind {
    ListResources,
    ReadResource,
    ListPrompts,
    GetPrompt,
}

impl GatedKind {
    const ALL: [GatedKind; 4] = [
        Self::ListResources,
        Self::ReadResource,
        Self::ListPrompts,
        Self::GetPrompt,
    ];

    fn capability(self) -> &'static str {
        match self {
            Self::ListResources | Self::ReadResource => "resources",
            Self::ListPrompts | Self::GetPrompt => "prompts",
        }
    }

    fn definition(self) -> ToolDefinition {
        let server = json!({"type": "string", "description": "The MCP server's name (all servers when omitted, for listing)."});
        let (name, description, schema) = match self {
            Self::ListResources => (
                "mcp_list_resources",
                "List the resources MCP servers offer.",
                json!({"type": "object", "properties": {"server": server}}),
            ),
            Self::ReadResource => (
                "mcp_read_resource",
                "Read one resource of an MCP server by URI.",
                json!({"type": "object", "properties": {"server": server, "uri": {"type": "string"}}, "required": ["server", "uri"]}),
            ),
            Self::ListPrompts => (
                "mcp_list_prompts",
                "List the prompts MCP servers offer.",
                json!({"type": "object", "properties": {"server": server}}),
            ),
            Self::GetPrompt => (
                "mcp_get_prompt",
                "Get one prompt of an MCP server, with its arguments.",
                json!({"type": "object", "properties": {"server": server, "name": {"type": "string"}, "arguments": {"type": "object", "additionalProperties": {"type": "string"}}}, "required": ["server", "name"]}),
            ),
        };
        ToolDefinition::builder(name, description)
            .input_schema(schema)
            .category(ToolCategory::Read)
            .facts(ToolFacts::read_only_tool().with_open_world(true))
            .build()
            .expect("valid gated tool definition")
    }
}

/// A resource or prompt tool over every connected server.
struct GatedTool {
    kind: GatedKind,
    def: ToolDefinition,
    servers: Servers,
}

impl GatedTool {
    fn targets(&self, wanted: Option<&str>) -> Result<Vec<Arc<McpServer>>, ToolError> {
        let servers = self
            .servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let capable = servers
            .values()
            .filter(|s| !s.is_closed() && s.capabilities().contains(&self.kind.capability()));
        match wanted {
            None => Ok(capable.cloned().collect()),
            Some(name) => capable
                .filter(|s| s.name() == name)
                .cloned()
                .map(|s| vec![s])
                .next()
                .ok_or_else(|| {
                    let names: Vec<&str> = servers.keys().map(String::as_str).collect();
                    ToolError::invalid_argument(
                        self.def.name(),
                        "/server",
                        format!(
                            "no connected server `{name}` offers {}; servers: {}",
                            self.kind.capability(),
                            names.join(", ")
                        ),
                    )
                }),
        }
    }

    fn transport(&self, server: &McpServer, e: &rmcp::service::ServiceError) -> ToolError {
        ToolError::Transport {
            tool: self.def.name().to_owned(),
            origin: server.name().to_owned(),
            message: e.to_string(),
        }
    }
}

#[async_trait]
impl DynTool for GatedTool {
    fn definition(&self) -> &ToolDefinition {
        &self.def
    }

    async fn call(&self, args: Value, _ctx: &CallContext) -> Result<ToolOutput, ToolError> {
        let a = ToolArgs::new(self.def.name(), &args);
        let wanted = a.opt_str("server")?;
        let value = match self.kind {
            GatedKind::ListResources | GatedKind::ListPrompts => {
                let mut all = serde_json::Map::new();
                for server in self.targets(wanted)? {
                    let listed = if self.kind == GatedKind::ListResources {
                        server
                            .peer()
                            .list_all_resources()
                            .await
                            .map(|r| serde_json::to_value(r).unwrap_or_default())
                    } else {
                        server
                            .peer()
                            .list_all_prompts()
                            .await
                            .map(|p| serde_json::to_value(p).unwrap_or_default())
                    };
                    all.insert(
                        server.name().to_owned(),
                        listed.map_err(|e| self.transport(&server, &e))?,
                    );
                }
                Value::Object(all)
            }
            GatedKind::ReadResource => {
                let uri = a.str("uri")?;
                let server = self.targets(Some(a.str("server")?))?.remove(0);
                let read = server
                    .peer()
                    .read_resource(ReadResourceRequestParams::new(uri))
                    .await
                    .map_err(|e| self.transport(&server, &e))?;
                serde_json::to_value(read).unwrap_or_default()
            }
            GatedKind::GetPrompt => {
                let server = self.targets(Some(a.str("server")?))?.remove(0);
                let mut params = GetPromptRequestParams::new(a.str("name")?);
                params.arguments = a.get("arguments").and_then(Value::as_object).cloned();
                let prompt = server
                    .peer()
                    .get_prompt(params)
                    .await
                    .map_err(|e| self.transport(&server, &e))?;
                serde_json::to_value(prompt).unwrap_or_default()
            }
        };
        Ok(ToolOutput::json(value))
    }
}
