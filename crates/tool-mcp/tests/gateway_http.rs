//! The gateway served over streamable HTTP on loopback, in process, in
//! front of a real server-everything that the test kills: one session per
//! client, and upstream changes forwarded as tools/list_changed.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tokio::sync::watch;
use tool_mcp::{GatewayHost, HttpGateway, McpConfig, McpErrorKind};

mod common;
use common::{killable_everything, rt};

/// A client that counts the tools/list_changed notifications it gets.
#[derive(Clone)]
struct Watcher {
    changes: Arc<watch::Sender<usize>>,
}

impl ClientHandler for Watcher {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl std::future::Future<Output = ()> + Send + '_ {
        self.changes.send_modify(|n| *n += 1);
        std::future::ready(())
    }
}

async fn names<H: ClientHandler>(client: &RunningService<RoleClient, H>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

fn call(name: &str, args: serde_json::Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let serde_json::Value::Object(map) = args {
        params.arguments = Some(map);
    }
    params
}

/// Wait (30 s at most) for the next notification after `seen`.
async fn next_change(changes: &mut watch::Receiver<usize>, seen: usize) -> usize {
    tokio::time::timeout(Duration::from_secs(30), changes.wait_for(|n| *n > seen))
        .await
        .expect("a tools/list_changed notification within 30 s")
        .map(|n| *n)
        .unwrap()
}

fn config(server: tool_mcp::ServerConfig) -> McpConfig {
    let mut config = McpConfig::from_toml_str(
        r#"
[tools]
defer_mcp_tools = true
core = ["phoenix_echo"]
style = "hidden"

[policies.exec]
tier = "auto"

[policies.tool_permissions]
"*" = "allow"
"#,
    )
    .unwrap();
    config.servers.push(server);
    config
}

#[test]
#[allow(clippy::too_many_lines)]
fn over_http_each_client_has_its_own_session_and_hears_of_upstream_changes() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (server, pidfile) = killable_everything("phoenix", dir.path());
        let host = GatewayHost::start(&config(server)).await.unwrap();
        let gateway = HttpGateway::bind(host, "127.0.0.1:0").await.unwrap();
        assert!(gateway.local_addr().ip().is_loopback());
        let url = gateway.url();
        assert!(url.ends_with("/mcp"), "{url}");
        let stop = gateway.shutdown_token();
        let serving = tokio::spawn(gateway.run());

        let (sender, mut changes) = watch::channel(0usize);
        let watcher = Watcher {
            changes: Arc::new(sender),
        }
        .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
        .await
        .expect("the first client connects over HTTP");
        let other =
            ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .expect("a second client connects");
        let core = ["phoenix_echo", "get_tool_schema", "tool_search"];
        assert_eq!(names(&watcher).await, core);
        assert_eq!(names(&other).await, core);

        // The second client finds and promotes a tool: its list grows, the
        // first client's does not.
        let found = other
            .call_tool(call(
                "tool_search",
                json!({"query": "add two numbers", "limit": 3}),
            ))
            .await
            .unwrap();
        let hits = found.structured_content.unwrap();
        let first_hit = hits["tools"][0]["name"].as_str().unwrap().to_owned();
        assert_eq!(first_hit, "phoenix_get-sum");
        let promoted = names(&other).await;
        assert!(promoted.contains(&first_hit), "{promoted:?}");
        assert_eq!(&promoted[..3], core, "promotion only appends");
        assert_eq!(names(&watcher).await, core, "promotions are per client");
        let sum = other
            .call_tool(call(&first_hit, json!({"a": 2, "b": 3})))
            .await
            .unwrap();
        assert_ne!(sum.is_error, Some(true), "{sum:?}");

        // The upstream server dies: its tools leave, and the client is told.
        let seen = *changes.borrow();
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        std::process::Command::new("kill")
            .arg(pid.trim())
            .status()
            .unwrap();
        let seen = next_change(&mut changes, seen).await;
        let left = names(&watcher).await;
        assert!(
            !left.iter().any(|n| n.starts_with("phoenix_")),
            "a dead server's tools leave the list: {left:?}"
        );

        // The supervisor brings it back: the client is told again.
        next_change(&mut changes, seen).await;
        assert_eq!(names(&watcher).await, core);
        let echo = watcher
            .call_tool(call("phoenix_echo", json!({"message": "back"})))
            .await
            .unwrap();
        assert_eq!(
            echo.content[0].as_text().map(|t| t.text.as_str()),
            Some("Echo: back")
        );

        // Only /mcp is served.
        let address = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        let response = tokio::task::spawn_blocking(move || {
            use std::io::{Read, Write};
            let mut stream = std::net::TcpStream::connect(&address).unwrap();
            write!(
                stream,
                "GET /other HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut response = String::new();
            stream.read_to_string(&mut response).unwrap();
            response
        })
        .await
        .unwrap();
        assert!(response.starts_with("HTTP/1.1 404"), "{response}");
        assert!(response.contains("/mcp"), "{response}");

        let _ = watcher.cancel().await;
        let _ = other.cancel().await;
        stop.cancel();
        tokio::time::timeout(Duration::from_secs(10), serving)
            .await
            .expect("the server stops when its token is cancelled")
            .unwrap()
            .unwrap();
    });
}

#[test]
fn the_gateway_listens_on_loopback_only_and_says_why_not() {
    rt().block_on(async {
        let host = GatewayHost::start(&McpConfig::default()).await.unwrap();
        for address in ["0.0.0.0:0", "192.0.2.1:8931", "not an address", "127.0.0.1"] {
            let err = HttpGateway::bind(host.clone(), address).await.unwrap_err();
            assert_eq!(err.kind(), McpErrorKind::Listen, "{address}: {err}");
            assert!(err.to_string().contains(address), "{err}");
        }
        let err = HttpGateway::bind(host.clone(), "0.0.0.0:0")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("not a loopback address"), "{err}");
        let taken = HttpGateway::bind(host.clone(), "127.0.0.1:0")
            .await
            .unwrap();
        let again = taken.local_addr().to_string();
        let err = HttpGateway::bind(host, &again).await.unwrap_err();
        assert!(err.to_string().contains("cannot listen"), "{err}");
    });
}
