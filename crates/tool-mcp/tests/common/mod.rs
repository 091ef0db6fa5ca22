//! Helpers shared by the tests that drive the real reference servers.

use std::path::PathBuf;

use tool_mcp::ServerConfig;

/// The entry point of an installed reference server; fails saying how to
/// install it (and Node.js) when it is missing.
pub fn server_js(package: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask mcp-servers` (needs Node.js and npm, e.g. `apt-get install nodejs npm`)",
        path.display()
    );
    assert!(
        std::process::Command::new("node")
            .arg("--version")
            .output()
            .is_ok(),
        "node is not installed: tool-mcp's tests need Node.js (e.g. `apt-get install nodejs npm`)"
    );
    path.display().to_string()
}

/// server-everything behind `sh`, so a test can kill the node process:
/// the config, and the file that will hold node's pid.
pub fn killable_everything(name: &str, dir: &std::path::Path) -> (ServerConfig, PathBuf) {
    let pidfile = dir.join("pid");
    // A background job's stdin is /dev/null unless given explicitly, so
    // keep the pipe on fd 3 for it.
    let script = format!(
        "exec 3<&0; node {} stdio <&3 3<&- & echo $! > {}; wait",
        server_js("server-everything"),
        pidfile.display()
    );
    (
        ServerConfig::stdio(name, "sh", ["-c".to_owned(), script]),
        pidfile,
    )
}

/// A two-worker runtime, like the CI machine.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}
