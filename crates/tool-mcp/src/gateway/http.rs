//! The gateway over MCP streamable HTTP, on a loopback address only: one
//! session (own promotions, own approvals) per client, all of them sharing
//! one [`GatewayHost`] and so one connection to each upstream server.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{AbortOnDrop, Gateway, GatewayHost};
use crate::{McpConfig, McpError};

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

type McpService = StreamableHttpService<Gateway, LocalSessionManager>;

/// A gateway bound to a loopback address, ready to serve streamable HTTP
/// at `http://ADDR/mcp`.
///
/// ```no_run
/// # async fn run() -> Result<(), tool_mcp::McpError> {
/// let config = tool_mcp::McpConfig::load("gateway.toml")?;
/// let host = tool_mcp::GatewayHost::start(&config).await?;
/// let server = tool_mcp::HttpGateway::bind(host, "127.0.0.1:8931").await?;
/// eprintln!("listening on {}", server.url()); // http://127.0.0.1:8931/mcp
/// let stop = server.shutdown_token(); // cancel it (on Ctrl-C, say) to stop
/// # stop.cancel();
/// server.run().await
/// # }
/// ```
pub struct HttpGateway {
    host: GatewayHost,
    listener: TcpListener,
    address: SocketAddr,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for HttpGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpGateway")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl HttpGateway {
    /// Bind `address` (`127.0.0.1:8931`, `[::1]:8931`, `localhost:8931`;
    /// port 0 picks a free port). Every address it resolves to must be a
    /// loopback address: the gateway has no authentication, so it is never
    /// reachable from another machine.
    pub async fn bind(host: GatewayHost, address: &str) -> Result<Self, McpError> {
        let listen_error = |reason: String| McpError::Listen {
            address: address.to_owned(),
            reason,
        };
        let resolved: Vec<SocketAddr> = tokio::net::lookup_host(address)
            .await
            .map_err(|e| listen_error(format!("not a host:port this machine can resolve ({e})")))?
            .collect();
        let Some(first) = resolved.first().copied() else {
            return Err(listen_error("resolves to no address".into()));
        };
        if let Some(outside) = resolved.iter().find(|a| !a.ip().is_loopback()) {
            return Err(listen_error(format!(
                "{} is not a loopback address; the gateway only listens on 127.0.0.1, ::1 or localhost",
                outside.ip()
            )));
        }
        let listener = TcpListener::bind(first)
            .await
            .map_err(|e| listen_error(format!("cannot listen ({e})")))?;
        let address = listener
            .local_addr()
            .map_err(|e| listen_error(format!("cannot read the bound address ({e})")))?;
        Ok(Self {
            host,
            listener,
            address,
            shutdown: CancellationToken::new(),
        })
    }

    /// The address actually bound (with the real port when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The endpoint URL clients connect to.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.address)
    }

    /// Cancelling this token stops the server: no new connections, open
    /// sessions closed, and [`HttpGateway::run`] returns.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Serve until the shutdown token is cancelled. Dead upstream servers
    /// are reconnected in the background meanwhile.
    pub async fn run(self) -> Result<(), McpError> {
        let _supervisor = AbortOnDrop(self.host.spawn_supervisor());
        let host = self.host.clone();
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(self.shutdown.child_token());
        let service: Arc<McpService> = Arc::new(StreamableHttpService::new(
            move || Ok(host.session()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        loop {
            let accepted = tokio::select! {
                () = self.shutdown.cancelled() => return Ok(()),
                accepted = self.listener.accept() => accepted,
            };
            let stream = match accepted {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    // Out of file descriptors and the like: wait, go on.
                    tracing::warn!(error = %e, "accepting a gateway connection failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
            let service = Arc::clone(&service);
            let shutdown = self.shutdown.clone();
            tokio::spawn(async move {
                let handler = hyper::service::service_fn(move |request| {
                    let service = Arc::clone(&service);
                    async move { Ok::<_, Infallible>(route(&service, request).await) }
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), handler);
                tokio::select! {
                    () = shutdown.cancelled() => {}
                    result = connection => if let Err(e) = result {
                        tracing::debug!(error = %e, "gateway connection ended with an error");
                    },
                }
            });
        }
    }
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// `/mcp` goes to the MCP service; anything else is a 404 naming the
/// endpoint.
async fn route(service: &McpService, request: Request<Incoming>) -> Response<Body> {
    if request.uri().path() == MCP_PATH {
        return service.handle(request).await;
    }
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "not found: the MCP endpoint is {MCP_PATH}\n"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Serve `config`'s gateway over streamable HTTP at `address` until
/// `shutdown` is cancelled; `ready` gets the endpoint URL once bound.
pub async fn serve_http(
    config: &McpConfig,
    address: &str,
    shutdown: CancellationToken,
    ready: impl FnOnce(&str),
) -> Result<(), McpError> {
    let host = GatewayHost::start(config).await?;
    let server = HttpGateway::bind(host, address).await?;
    ready(&server.url());
    let stop = server.shutdown_token();
    tokio::spawn(async move {
        shutdown.cancelled().await;
        stop.cancel();
    });
    server.run().await
}
