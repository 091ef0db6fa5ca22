//! `cargo xtask bench mcp`: a trivial call's round trip through the
//! gateway (`toolstack serve`, on stdio and on streamable HTTP) vs straight
//! to the upstream server, and the bytes of the tool list a client sees
//! with and without disclosure.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Map, Value};

use crate::stats::{median, r2};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn server_js(package: &str) -> Result<String, String> {
    let path = root()
        .join(".mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    if path.exists() {
        Ok(path.display().to_string())
    } else {
        Err(format!(
            "{} is missing: run `cargo xtask mcp-servers` first",
            path.display()
        ))
    }
}

fn gateway_config(dir: &Path, core: &str) -> Result<PathBuf, String> {
    let path = dir.join(format!("gateway-{}.toml", core.replace('*', "all")));
    let text = format!(
        "[tools]\ndefer_mcp_tools = true\ncore = [\"{core}\"]\nstyle = \"compact\"\n\n[[servers]]\nname = \"everything\"\ncommand = \"node\"\nargs = [\"{}\", \"stdio\"]\n\n[[servers]]\nname = \"fs\"\ncommand = \"node\"\nargs = [\"{}\", \"{}\"]\n\n[policies.tool_permissions]\n\"*\" = \"allow\"\n",
        server_js("server-everything")?,
        server_js("server-filesystem")?,
        dir.display()
    );
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok(path)
}

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// `toolstack serve --listen 127.0.0.1:0`: the child and its URL (read from
/// its stderr, which a thread keeps draining).
fn spawn_http_gateway(
    toolstack: &Path,
    config: &Path,
) -> Result<(std::process::Child, String), String> {
    use std::io::BufRead;
    let mut child = std::process::Command::new(toolstack)
        .arg("serve")
        .arg("--config")
        .arg(config)
        .args(["--listen", "127.0.0.1:0"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", toolstack.display()))?;
    let stderr = child.stderr.take().ok_or("no stderr pipe")?;
    let mut lines = std::io::BufReader::new(stderr).lines();
    let url = lines.by_ref().map_while(Result::ok).find_map(|line| {
        line.strip_prefix("toolstack gateway listening on ")
            .map(str::to_owned)
    });
    std::thread::spawn(move || lines.for_each(drop));
    match url {
        Some(url) => Ok((child, url)),
        None => {
            let _ = child.kill();
            Err("the HTTP gateway exited without printing its URL".into())
        }
    }
}

async fn connect(program: &str, args: &[String]) -> Result<Client, String> {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    ().serve(TokioChildProcess::new(cmd).map_err(|e| e.to_string())?)
        .await
        .map_err(|e| e.to_string())
}

async fn echo_us(client: &Client, name: &str, n: usize) -> Result<f64, String> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let mut p = CallToolRequestParams::new(name.to_owned());
        p.arguments = json!({"message": format!("ping {i}")}).as_object().cloned();
        let start = Instant::now();
        client.call_tool(p).await.map_err(|e| e.to_string())?;
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    Ok(median(&mut times))
}

async fn list_bytes(client: &Client) -> Result<(usize, usize), String> {
    let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
    Ok((
        tools.len(),
        serde_json::to_string(&tools)
            .map_err(|e| e.to_string())?
            .len(),
    ))
}

pub fn run() -> Result<(), String> {
    let toolstack = root().join("target/release/toolstack");
    if !toolstack.exists() {
        return Err(format!(
            "{} is missing: `cargo xtask bench mcp` builds it first",
            toolstack.display()
        ));
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let direct = connect("node", &[server_js("server-everything")?, "stdio".into()]).await?;
        let disclosed_cfg = gateway_config(dir.path(), "everything_echo")?;
        let full_cfg = gateway_config(dir.path(), "*")?;
        let serve = |cfg: &Path| {
            vec![
                "serve".to_owned(),
                "--config".to_owned(),
                cfg.display().to_string(),
            ]
        };
        let gateway = connect(
            toolstack.to_str().unwrap_or_default(),
            &serve(&disclosed_cfg),
        )
        .await?;
        let full = connect(toolstack.to_str().unwrap_or_default(), &serve(&full_cfg)).await?;
        let (mut http_child, url) = spawn_http_gateway(&toolstack, &disclosed_cfg)?;
        let http = ()
            .serve(rmcp::transport::StreamableHttpClientTransport::from_uri(
                url.as_str(),
            ))
            .await
            .map_err(|e| e.to_string())?;
        // Warm up every path, then measure.
        echo_us(&direct, "echo", 20).await?;
        echo_us(&gateway, "everything_echo", 20).await?;
        echo_us(&http, "everything_echo", 20).await?;
        let direct_us = echo_us(&direct, "echo", 300).await?;
        let gateway_us = echo_us(&gateway, "everything_echo", 300).await?;
        let http_us = echo_us(&http, "everything_echo", 300).await?;
        let (shown, shown_bytes) = list_bytes(&gateway).await?;
        let (all, all_bytes) = list_bytes(&full).await?;
        println!("trivial call (echo) round trip, median of 300 (us)");
        println!("  through the gateway   {gateway_us:>10.0}");
        println!("  straight to upstream  {direct_us:>10.0}   (baseline)");
        println!(
            "  ratio {:.2}x, gateway cost {:.0} us",
            gateway_us / direct_us,
            gateway_us - direct_us
        );
        println!("  through the gateway over streamable HTTP {http_us:>10.0}");
        println!(
            "  ratio {:.2}x vs upstream, {:.2}x vs the stdio gateway",
            http_us / direct_us,
            http_us / gateway_us
        );
        println!("\ntools/list seen by the client, everything + filesystem servers");
        println!("  without disclosure  {all:>3} tools {all_bytes:>8} bytes   (baseline)");
        println!(
            "  with disclosure     {shown:>3} tools {shown_bytes:>8} bytes   ({:.1}% smaller)",
            100.0 * (1.0 - shown_bytes as f64 / all_bytes as f64)
        );
        let mut result = Map::new();
        result.insert("gateway_call_p50_us".into(), json!(r2(gateway_us)));
        result.insert("baseline_direct_call_p50_us".into(), json!(r2(direct_us)));
        result.insert(
            "ratio_gateway_vs_direct".into(),
            json!(r2(gateway_us / direct_us)),
        );
        result.insert("gateway_http_call_p50_us".into(), json!(r2(http_us)));
        result.insert(
            "ratio_gateway_http_vs_direct".into(),
            json!(r2(http_us / direct_us)),
        );
        result.insert("tools_list_bytes_disclosed".into(), json!(shown_bytes));
        result.insert("baseline_tools_list_bytes_full".into(), json!(all_bytes));
        result.insert(
            "ratio_tools_list_bytes".into(),
            json!(r2(shown_bytes as f64 / all_bytes as f64)),
        );
        println!("RESULT {}", Value::Object(result));
        for c in [direct, gateway, full, http] {
            let _ = c.cancel().await;
        }
        let _ = http_child.kill();
        let _ = http_child.wait();
        Ok(())
    })
}
