//! The gateway: toolstack itself as an MCP server, in front of the
//! configured upstream servers, with their tools merged (namespaced),
//! the policy applied (denied tools hidden and refused) and progressive
//! disclosure (core tools in full, `tool_search` and `get_tool_schema`,
//! found tools promoted with a tools-list-changed notification); `ask`
//! calls are put to the client's user through MCP elicitation.

mod approval;
mod host;
mod http;
mod session;

pub use host::GatewayHost;
pub use http::{serve_http, HttpGateway, MCP_PATH};
pub use session::Gateway;

use crate::{McpConfig, McpError};

/// Serve the gateway on stdin/stdout until the client leaves.
pub async fn serve_stdio(config: &McpConfig) -> Result<(), McpError> {
    use rmcp::ServiceExt;
    let host = GatewayHost::start(config).await?;
    let _supervisor = AbortOnDrop(host.spawn_supervisor());
    let running = host
        .session()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| client_error(&e))?;
    running.waiting().await.map_err(|e| client_error(&e))?;
    Ok(())
}

fn client_error(e: &dyn std::fmt::Display) -> McpError {
    McpError::Connection {
        server: "gateway client".into(),
        message: e.to_string(),
    }
}

/// Aborts a background task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
