//! tool-mcp against the real reference servers, installed by
//! `cargo xtask mcp-servers` (run by `cargo xtask ci`). Without Node.js or
//! the servers these tests fail, saying how to install them; they are never
//! skipped.

use std::time::{Duration, Instant};

use serde_json::json;
use tool_core::{CallContext, ErrorKind};
use tool_mcp::{attach, report_health, McpConfig, McpErrorKind, ServerConfig};
use tool_policy::{Action, Policy, PolicyConfig};
use tool_registry::ToolCatalog;
use tool_service::{ScopedToolService, ToolService};

mod common;
use common::{killable_everything, rt, server_js};

/// Kill the process whose pid is in `pidfile`, and wait (10 s at most)
/// until the connection notices.
async fn kill_and_wait(pidfile: &std::path::Path, server: &tool_mcp::McpServer) {
    let pid = std::fs::read_to_string(pidfile).unwrap();
    std::process::Command::new("kill")
        .arg(pid.trim())
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.is_closed() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn everything() -> ServerConfig {
    ServerConfig::stdio(
        "everything",
        "node",
        [server_js("server-everything"), "stdio".to_owned()],
    )
}

/// A service over the catalog's current snapshot that allows every tool.
fn service_allowing_all(catalog: &ToolCatalog) -> ScopedToolService {
    ScopedToolService::builder(catalog.snapshot())
        .policy(allow_all())
        .build()
}

fn allow_all() -> tool_policy::ScopedPolicy {
    let mut config = PolicyConfig::default();
    config
        .policies
        .tool_permissions
        .insert("*".into(), Action::Allow);
    Policy::new(&config).unwrap().scope(None, None)
}

#[test]
fn tools_are_imported_namespaced_with_annotations_as_facts() {
    rt().block_on(async {
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, everything()).await.unwrap();
        let snap = catalog.snapshot();
        let echo = snap
            .get("everything_echo")
            .expect("echo imported under the namespace");
        assert_eq!(echo.original.name, "echo");
        assert!(echo.definition.source().is_mcp());
        assert_eq!(echo.definition.facts().read_only, Some(true));
        assert!(snap.by_source("everything").len() >= 10);
        server.close().await;
    });
}

#[test]
fn calls_go_through_the_service_with_validation_and_typed_errors() {
    rt().block_on(async {
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, everything()).await.unwrap();
        let service = service_allowing_all(&catalog);
        let out = service
            .execute("everything_echo", json!({"message": "hi"}))
            .await
            .unwrap();
        assert_eq!(out.to_text(), "Echo: hi");
        let sum = service
            .execute("everything_get-sum", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert!(sum.to_text().contains('5'), "{}", sum.to_text());
        // Validated before it leaves: the server never sees it.
        let err = service
            .execute("everything_echo", json!({"message": 5}))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArguments);
        // Sent anyway (straight to the tool): the server's own refusal is typed too.
        let tool = catalog
            .snapshot()
            .get("everything_echo")
            .unwrap()
            .tool
            .clone();
        let err = tool
            .call(json!({"wrong": true}), &CallContext::new("c"))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArguments, "{err:?}");
        assert!(err.to_string().contains("message"), "{err}");
        server.close().await;
    });
}

#[test]
fn a_long_running_call_is_cancelled_at_its_deadline() {
    rt().block_on(async {
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, everything()).await.unwrap();
        let tool = catalog
            .snapshot()
            .get("everything_trigger-long-running-operation")
            .unwrap()
            .tool
            .clone();
        let started = Instant::now();
        let ctx = CallContext::new("long").with_timeout(Duration::from_millis(500));
        let err = tool
            .call(json!({"duration": 30, "steps": 5}), &ctx)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(started.elapsed() < Duration::from_secs(5));
        // Cancelled by token too, and the server keeps serving.
        let ctx = CallContext::new("long2");
        let token = ctx.cancellation().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            token.cancel();
        });
        let err = tool
            .call(json!({"duration": 30, "steps": 5}), &ctx)
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Cancelled);
        let echo = catalog
            .snapshot()
            .get("everything_echo")
            .unwrap()
            .tool
            .clone();
        assert_eq!(
            echo.call(json!({"message": "still here"}), &CallContext::new("e"))
                .await
                .unwrap()
                .to_text(),
            "Echo: still here"
        );
        server.close().await;
    });
}

#[test]
fn a_server_killed_mid_session_becomes_unhealthy_and_calls_get_a_transport_error() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (config, pidfile) = killable_everything("doomed", dir.path());
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, config).await.unwrap();
        let service = service_allowing_all(&catalog);
        assert!(service
            .execute("doomed_echo", json!({"message": "a"}))
            .await
            .is_ok());
        kill_and_wait(&pidfile, &server).await;
        assert!(server.is_closed(), "the connection notices the exit");
        report_health(&catalog, &server).unwrap();
        let snap = catalog.snapshot();
        assert!(
            snap.get("doomed_echo").is_none(),
            "its tools leave the visible list"
        );
        let err = snap.lookup("doomed_echo").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Transport);
        assert!(err.to_string().contains("doomed"), "{err}");
        // A call through a service built before the exit fails cleanly too.
        let err = service
            .execute("doomed_echo", json!({"message": "b"}))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Transport, "{err:?}");
    });
}

#[test]
fn the_filesystem_server_reads_a_real_file() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("hello.txt"), "hello from disk").unwrap();
        let root = dir.path().canonicalize().unwrap().display().to_string();
        let config =
            ServerConfig::stdio("fs", "node", [server_js("server-filesystem"), root.clone()]);
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, config).await.unwrap();
        let service = service_allowing_all(&catalog);
        let names: Vec<String> = catalog.snapshot().names().map(str::to_owned).collect();
        let read = ["fs_read_text_file", "fs_read_file"]
            .into_iter()
            .find(|n| names.iter().any(|x| x == n))
            .expect("a read tool");
        let out = service
            .execute(read, json!({"path": format!("{root}/hello.txt")}))
            .await
            .unwrap();
        assert!(
            out.to_text().contains("hello from disk"),
            "{}",
            out.to_text()
        );
        server.close().await;
    });
}

#[test]
fn config_errors_name_the_server_or_the_line() {
    let err = McpConfig::from_toml_str("[[servers]]\nname = \"x\"\n").unwrap_err();
    assert_eq!(err.kind(), McpErrorKind::BadServer);
    assert!(err.to_string().contains("`x`"));
    let err =
        McpConfig::from_toml_str("[[servers]]\nname = \"x\"\ncommand = \"node\"\ntimeout = 3\n")
            .unwrap_err();
    assert!(err.to_string().contains("line 4"), "{err}");
    let err = rt()
        .block_on(tool_mcp::McpServer::connect(ServerConfig::stdio(
            "ghost",
            "/nonexistent/binary",
            [],
        )))
        .unwrap_err();
    assert_eq!(err.kind(), McpErrorKind::Connection, "{err}");
}

#[test]
fn resource_and_prompt_tools_exist_only_while_a_server_offers_them() {
    rt().block_on(async {
        let catalog = ToolCatalog::new();
        let hub = tool_mcp::McpHub::new(catalog.clone()).unwrap();
        assert!(
            catalog.snapshot().get("mcp_list_resources").is_none(),
            "no server yet"
        );
        let dir = tempfile::tempdir().unwrap();
        let (config, pidfile) = killable_everything("everything", dir.path());
        hub.attach(config).await.unwrap();
        let service = service_allowing_all(&catalog);
        let listed = service
            .execute("mcp_list_resources", json!({}))
            .await
            .unwrap();
        let resources = &listed.structured.unwrap()["everything"];
        let uri = resources[0]["uri"]
            .as_str()
            .expect("a resource uri")
            .to_owned();
        let read = service
            .execute(
                "mcp_read_resource",
                json!({"server": "everything", "uri": uri}),
            )
            .await
            .unwrap();
        assert!(read.structured.unwrap()["contents"].is_array());
        let prompts = service
            .execute("mcp_list_prompts", json!({"server": "everything"}))
            .await
            .unwrap();
        assert!(prompts.structured.unwrap()["everything"]
            .as_array()
            .is_some_and(|p| !p.is_empty()));
        let err = service
            .execute("mcp_read_resource", json!({"server": "nope", "uri": "x"}))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArguments);
        // The last server offering them leaves: so do the tools.
        kill_and_wait(&pidfile, &hub.server("everything").unwrap()).await;
        hub.report_health();
        assert!(catalog.snapshot().get("mcp_list_resources").is_none());
        assert!(catalog.snapshot().get("mcp_get_prompt").is_none());
    });
}

#[test]
fn a_dead_server_is_reconnected_with_backoff_and_serves_again() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (config, pidfile) = killable_everything("phoenix", dir.path());
        let catalog = ToolCatalog::new();
        let hub = tool_mcp::McpHub::new(catalog.clone()).unwrap();
        hub.attach(config).await.unwrap();
        let supervisor = hub.spawn_supervisor(Duration::from_millis(100), Duration::from_secs(2));
        let first_pid = std::fs::read_to_string(&pidfile).unwrap();
        std::process::Command::new("kill")
            .arg(first_pid.trim())
            .status()
            .unwrap();
        // It goes unhealthy, then comes back with a new process.
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut saw_unhealthy = false;
        loop {
            let visible = catalog.snapshot().get("phoenix_echo").is_some();
            saw_unhealthy |= !visible;
            let pid = std::fs::read_to_string(&pidfile).unwrap_or_default();
            if saw_unhealthy && visible && pid != first_pid {
                break;
            }
            assert!(Instant::now() < deadline, "the server did not come back");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let service = service_allowing_all(&catalog);
        assert_eq!(
            service
                .execute("phoenix_echo", json!({"message": "back"}))
                .await
                .unwrap()
                .to_text(),
            "Echo: back"
        );
        supervisor.abort();
    });
}

#[test]
fn tools_list_changed_notifications_re_import_the_tools() {
    rt().block_on(async {
        // server-everything registers more tools right after initialisation
        // and announces them with notifications/tools/list_changed.
        let catalog = ToolCatalog::new();
        let hub = tool_mcp::McpHub::new(catalog.clone()).unwrap();
        let server = hub.attach(everything()).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while server.list_changes_applied() == 0 {
            assert!(
                Instant::now() < deadline,
                "no tools/list_changed was followed"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(catalog
            .snapshot()
            .get("everything_simulate-research-query")
            .is_some());
        assert!(catalog.snapshot().get("everything_echo").is_some());
    });
}

#[test]
fn a_server_over_streamable_http_is_imported_and_called() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut node = std::process::Command::new("node")
        .args([server_js("server-everything"), "streamableHttp".to_owned()])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("node starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the HTTP server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let result = rt().block_on(async {
        let mut config = ServerConfig::stdio("remote", "unused", []);
        config.command = None;
        config.url = Some(format!("http://127.0.0.1:{port}/mcp"));
        let catalog = ToolCatalog::new();
        let server = attach(&catalog, config).await.unwrap();
        let service = service_allowing_all(&catalog);
        let out = service
            .execute("remote_echo", json!({"message": "over http"}))
            .await
            .map(|o| o.to_text());
        server.close().await;
        out
    });
    let _ = node.kill();
    let _ = node.wait();
    assert_eq!(result.unwrap(), "Echo: over http");
}

#[test]
fn a_server_that_stops_answering_becomes_unhealthy_and_is_restarted() {
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let (mut config, pidfile) = killable_everything("sleepy", dir.path());
        config.ping_timeout_s = 1;
        let catalog = ToolCatalog::new();
        let hub = tool_mcp::McpHub::new(catalog.clone()).unwrap();
        let server = hub.attach(config).await.unwrap();
        assert!(hub.ping_all().await.is_empty(), "a live server answers");

        // Freeze the process: the pipe stays open, nothing answers.
        let frozen = std::fs::read_to_string(&pidfile).unwrap();
        let signal = |sig: &str| {
            std::process::Command::new("kill")
                .args([sig, frozen.trim()])
                .status()
                .unwrap();
        };
        signal("-STOP");
        let failed = hub.ping_all().await;
        assert_eq!(failed.len(), 1, "{failed:?}");
        assert_eq!(failed[0].0, "sleepy");
        assert_eq!(failed[0].1.kind(), McpErrorKind::Connection);
        assert!(
            failed[0]
                .1
                .to_string()
                .contains("did not answer a ping within 1 s"),
            "{}",
            failed[0].1
        );
        assert!(server.is_closed(), "an unresponsive server is disconnected");
        assert!(catalog.snapshot().get("sleepy_echo").is_none());
        match catalog.health("sleepy").unwrap() {
            tool_registry::Health::Unhealthy { reason } => {
                assert!(reason.contains("ping"), "{reason}");
            }
            tool_registry::Health::Healthy => panic!("still healthy"),
        }

        // The supervisor starts a fresh process, which serves again.
        let supervisor = hub.spawn_supervisor(Duration::from_millis(100), Duration::from_secs(2));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let pid = std::fs::read_to_string(&pidfile).unwrap_or_default();
            if catalog.snapshot().get("sleepy_echo").is_some() && pid != frozen {
                break;
            }
            assert!(Instant::now() < deadline, "the server was not restarted");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let service = service_allowing_all(&catalog);
        let echo = service
            .execute("sleepy_echo", json!({"message": "awake"}))
            .await
            .unwrap();
        assert_eq!(echo.to_text(), "Echo: awake");
        supervisor.abort();
        // The frozen node process was a grandchild (behind sh): end it.
        signal("-KILL");
    });
}
