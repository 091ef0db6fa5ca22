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
async fn tool_names(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
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

#[test]
#[allow(clippy::too_many_lines)]
fn the_gateway_serves_both_servers_with_policy_and_disclosure() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().display().to_string();
    std::fs::write(dir.path().join("note.txt"), "gateway says hi").unwrap();
    let config = dir.path().join("gateway.toml");
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
"#,
            everything = server_js("server-everything"),
            fs = server_js("server-filesystem"),
        ),
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = ().serve(gateway(&config)).await.expect("the gateway answers the handshake");
        let tools = tool_names(&client).await;
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
        let listed = tool_names(&client).await;
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
        assert!(!dir.path().join("x.txt").exists());
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
