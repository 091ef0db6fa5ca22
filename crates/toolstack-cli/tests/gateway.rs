//! `toolstack serve` in front of both reference MCP servers, driven by an
//! rmcp client: merged namespaced tools, policy, disclosure, a deferred
//! tool found by search and called. Needs `cargo xtask mcp-servers`.

use std::path::PathBuf;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::json;

fn server_js(package: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask mcp-servers` (needs Node.js and npm, e.g. `apt-get install nodejs npm`)",
        path.display()
    );
    path.display().to_string()
}

fn call(name: &str, args: serde_json::Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_owned());
    if let serde_json::Value::Object(map) = args {
        p.arguments = Some(map);
    }
    p
}

/// `toolstack serve --config CONFIG` as a child-process transport.
fn gateway(config: &std::path::Path) -> TokioChildProcess {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolstack"));
    cmd.args(["serve", "--config", config.to_str().unwrap()]);
    TokioChildProcess::new(cmd).unwrap()
}

/// The names the gateway lists, in order.
async fn tool_names<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A gateway config in front of both reference servers, in `dir` (which
/// also holds `note.txt` for the filesystem server): everything's echo in
/// full, the rest deferred, fs_write_file denied, everything's get-sum `ask`.
fn both_servers(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.canonicalize().unwrap().display().to_string();
    std::fs::write(dir.join("note.txt"), "gateway says hi").unwrap();
    let config = dir.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[tools]
defer_mcp_tools = true
core = ["everything_echo"]
style = "hidden"

[[servers]]
name = "everything"
command = "node"
args = ["{everything}", "stdio"]

[[servers]]
name = "fs"
command = "node"
args = ["{fs}", "{root}"]

[policies.exec]
tier = "auto"

[policies.tool_permissions]
"everything_*" = "allow"
"fs_*" = "allow"
"fs_write_file" = "deny"
"everything_get-sum" = "ask"
"#,
            everything = server_js("server-everything"),
            fs = server_js("server-filesystem"),
        ),
    )
    .unwrap();
    config
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The README's promise, through any transport: merged namespaced tools,
/// core in full, a deferred tool found by search, promoted and called, a
/// denied tool refused.
#[allow(clippy::too_many_lines)]
async fn search_and_call_a_deferred_tool<H: rmcp::ClientHandler>(
    client: &rmcp::service::RunningService<rmcp::RoleClient, H>,
    dir: &std::path::Path,
) {
    let root = dir.canonicalize().unwrap().display().to_string();
    let tools = tool_names(client).await;
    assert_eq!(
        tools,
        ["everything_echo", "get_tool_schema", "tool_search"],
        "core in full, the rest deferred"
    );

    let echo = client
        .call_tool(call(
            "everything_echo",
            json!({"message": "through the gateway"}),
        ))
        .await
        .unwrap();
    assert_eq!(text(&echo), "Echo: through the gateway");

    let found = client
        .call_tool(call(
            "tool_search",
            json!({"query": "read the contents of a text file", "limit": 5}),
        ))
        .await
        .unwrap();
    let hits = found.structured_content.clone().unwrap();
    let names: Vec<&str> = hits["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let read = *names
        .iter()
        .find(|n| n.starts_with("fs_read"))
        .expect("a filesystem read tool is found");
    assert!(
        !names.contains(&"fs_write_file"),
        "a denied tool is never found"
    );
    let listed = tool_names(client).await;
    assert!(
        listed.iter().any(|n| n == read),
        "found tools are promoted into the list"
    );
    assert_eq!(
        &listed[..3],
        ["everything_echo", "get_tool_schema", "tool_search"],
        "promotion only appends"
    );

    let content = client
        .call_tool(call(read, json!({"path": format!("{root}/note.txt")})))
        .await
        .unwrap();
    assert!(
        text(&content).contains("gateway says hi"),
        "{}",
        text(&content)
    );

    let denied = client
        .call_tool(call(
            "fs_write_file",
            json!({"path": format!("{root}/x.txt"), "content": "no"}),
        ))
        .await
        .unwrap();
    assert_eq!(denied.is_error, Some(true));
    assert!(text(&denied).contains("not allowed"), "{}", text(&denied));
    assert!(!dir.join("x.txt").exists());
}

#[test]
fn the_gateway_serves_both_servers_with_policy_and_disclosure() {
    let dir = tempfile::tempdir().unwrap();
    let config = both_servers(dir.path());
    runtime().block_on(async {
        let client = ().serve(gateway(&config)).await.expect("the gateway answers the handshake");
        search_and_call_a_deferred_tool(&client, dir.path()).await;
        client.cancel().await.unwrap();
    });
}

/// `toolstack serve --listen 127.0.0.1:0`: the child and its endpoint URL
/// (read from its stderr).
fn http_gateway(config: &std::path::Path) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolstack"))
        .args([
            "serve",
            "--config",
            config.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut url = None;
    let mut lines = stderr.lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(at) = line.strip_prefix("toolstack gateway listening on ") {
            url = Some(at.to_owned());
            break;
        }
    }
    let url = url.expect("the gateway prints its URL on stderr");
    // Keep draining stderr, so the gateway never writes into a closed pipe.
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            eprintln!("{line}");
        }
    });
    (child, url)
}

#[test]
fn the_gateway_serves_streamable_http_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let config = both_servers(dir.path());
    let (mut child, url) = http_gateway(&config);
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    runtime().block_on(async {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
        let client = Person(rmcp::model::ElicitationAction::Accept)
            .serve(transport)
            .await
            .expect("the gateway answers over HTTP");
        search_and_call_a_deferred_tool(&client, dir.path()).await;
        // `ask` is put to the person over the same HTTP session.
        let sum = client
            .call_tool(call("everything_get-sum", json!({"a": 2, "b": 3})))
            .await
            .unwrap();
        assert_ne!(sum.is_error, Some(true), "{}", text(&sum));
        assert!(text(&sum).contains('5'), "{}", text(&sum));
        client.cancel().await.unwrap();
    });
    // SIGTERM stops it cleanly.
    std::process::Command::new("kill")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the gateway did not stop on SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn serve_refuses_a_non_loopback_listen_address() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("empty.toml");
    std::fs::write(&config, "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolstack"))
        .args([
            "serve",
            "--config",
            config.to_str().unwrap(),
            "--listen",
            "0.0.0.0:8931",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("0.0.0.0:8931") && stderr.contains("loopback"),
        "{stderr}"
    );
}

/// The README's example config, exactly as printed there (the first TOML
/// block of "The MCP gateway"), run from the repository root.
#[test]
fn the_readme_example_config_serves_a_deferred_tool_found_by_search() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = &readme[readme
        .find("## The MCP gateway")
        .expect("README has a gateway section")..];
    let start = section.find("```toml\n").expect("a TOML example") + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    server_js("server-everything");
    server_js("server-filesystem");
    // The example serves /tmp through the filesystem server.
    let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    std::fs::write(dir.path().join("note.txt"), "gateway says hi").unwrap();
    let config = dir.path().join("gateway.toml");
    std::fs::write(&config, example).unwrap();
    runtime().block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_toolstack"));
        cmd.args(["serve", "--config", config.to_str().unwrap()])
            .current_dir(&root);
        let client =
            ().serve(TokioChildProcess::new(cmd).unwrap())
                .await
                .expect("the gateway starts with the README's config");
        search_and_call_a_deferred_tool(&client, dir.path()).await;
        client.cancel().await.unwrap();
    });
}

#[test]
fn a_bad_gateway_config_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("bad.toml");
    std::fs::write(
        &config,
        "[[servers]]\nname = \"x\"\ncommand = \"node\"\nport = 1\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolstack"))
        .args(["serve", "--config", config.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 4") && stderr.contains("port"),
        "{stderr}"
    );
}

/// A client whose person answers every elicitation with `action`.
struct Person(rmcp::model::ElicitationAction);

impl rmcp::ClientHandler for Person {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut elicitation = rmcp::model::ElicitationCapability::new();
        elicitation.form = Some(rmcp::model::FormElicitationCapability::new());
        let mut caps = rmcp::model::ClientCapabilities::default();
        caps.elicitation = Some(elicitation);
        rmcp::model::ClientConfig::new(caps, rmcp::model::Implementation::new("person", "1"))
    }

    fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> impl std::future::Future<Output = Result<rmcp::model::ElicitResult, rmcp::ErrorData>> + Send + '_
    {
        let mut result = rmcp::model::ElicitResult::new(self.0.clone());
        result.content = Some(json!({}));
        std::future::ready(Ok(result))
    }
}

#[test]
fn ask_decisions_are_put_to_the_clients_user_through_elicitation() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [\"{}\", \"stdio\"]\n\n[policies.tool_permissions]\n\"everything_*\" = \"allow\"\n\"everything_echo\" = \"ask\"\n",
            server_js("server-everything")
        ),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let yes = Person(rmcp::model::ElicitationAction::Accept)
            .serve(gateway(&config))
            .await
            .unwrap();
        let ok = yes
            .call_tool(call("everything_echo", json!({"message": "approved"})))
            .await
            .unwrap();
        assert_eq!(text(&ok), "Echo: approved");
        yes.cancel().await.unwrap();

        let no = Person(rmcp::model::ElicitationAction::Decline)
            .serve(gateway(&config))
            .await
            .unwrap();
        let refused = no
            .call_tool(call("everything_echo", json!({"message": "x"})))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert!(text(&refused).contains("declined"), "{}", text(&refused));
        no.cancel().await.unwrap();

        let plain = ().serve(gateway(&config)).await.unwrap();
        let refused = plain
            .call_tool(call("everything_echo", json!({"message": "x"})))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert!(
            text(&refused).contains("no MCP elicitation support"),
            "{}",
            text(&refused)
        );
        plain.cancel().await.unwrap();
    });
}
