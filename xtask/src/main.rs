//! `cargo xtask`: the project's automation, in Rust (after rust-analyzer's
//! xtask). Run `cargo xtask help`.

mod layering;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <command>

commands:
  ci              format check, clippy -D warnings, every test (doc tests too),
                  the search evaluation on the shared data, the layering check
  layering        check crate dependencies against docs/ARCHITECTURE.md
  mcp-servers     install the pinned reference MCP servers (npm) into
                  .mcp-servers/ for tool-mcp's tests
  eval-search [--catalog F] [--queries F]
                  search quality (recall@k, MRR, nDCG) of toolstack's
                  tool_search and a plain BM25 baseline (default: shared data)
  bench NAME      run a benchmark in release mode (NAME: core, concurrency, policy,
                  registry, disclosure, service, mcp)
  help            this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("layering") => layering::check(&root()),
        Some("mcp-servers") => mcp_servers(),
        Some("bench") => bench(&args[1..]),
        Some("eval-search") => run("eval-search", &mut eval_search(&args[1..], true)),
        None | Some("help" | "--help" | "-h") => {
            println!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The repository root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask has a parent folder")
        .to_path_buf()
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn run(step: &str, cmd: &mut Command) -> Result<(), String> {
    println!("\n==> {step}");
    let status = cmd
        .status()
        .map_err(|e| format!("{step}: could not start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

fn ci() -> Result<(), String> {
    let started = std::time::Instant::now();
    run("format check", cargo().args(["fmt", "--all", "--check"]))?;
    run(
        "clippy",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    mcp_servers()?;
    run(
        "tests (unit, integration, doc)",
        cargo().args(["test", "--workspace"]),
    )?;
    run(
        "search evaluation on the shared data",
        &mut eval_search(&[], false),
    )?;
    println!("\n==> layering check");
    layering::check(&root())?;
    println!("\nci passed in {:.0?}", started.elapsed());
    Ok(())
}

/// The reference MCP servers tool-mcp's tests drive, pinned.
const MCP_SERVERS: &[&str] = &[
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
];

/// Install the reference MCP servers into `.mcp-servers/` (git-ignored).
fn mcp_servers() -> Result<(), String> {
    let dir = root().join(".mcp-servers");
    let installed = MCP_SERVERS.iter().all(|spec| {
        let (name, version) = spec.rsplit_once('@').unwrap_or((spec, ""));
        std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json"))
            .is_ok_and(|p| p.contains(&format!("\"version\": \"{version}\"")))
    });
    if installed {
        println!(
            "\n==> reference MCP servers already installed in {}",
            dir.display()
        );
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut npm = Command::new("npm");
    npm.current_dir(&dir)
        .args([
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--prefix",
        ])
        .arg(&dir)
        .args(MCP_SERVERS);
    println!("\n==> install reference MCP servers (npm)");
    match npm.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("npm install of the reference MCP servers failed ({status})")),
        Err(e) => Err(format!(
            "cannot run npm ({e}); tool-mcp's tests need Node.js and npm: install them (for example `apt-get install nodejs npm`) and run `cargo xtask mcp-servers`"
        )),
    }
}

/// `eval-search` runs in the benchmark binary on the shared data (release
/// build when run alone).
/// In `ci` it runs in the dev profile, reusing what the tests built (a
/// release build of the whole workspace would cost CI minutes; quality
/// figures do not depend on the profile).
fn eval_search(args: &[String], release: bool) -> Command {
    let mut cmd = cargo();
    cmd.args(["run", "--quiet"]);
    if release {
        cmd.arg("--release");
    }
    cmd.args(["-p", "toolstack-bench", "--", "eval-search"])
        .args(args);
    cmd
}

const BENCHES: &[&str] = &[
    "core",
    "concurrency",
    "policy",
    "registry",
    "disclosure",
    "service",
    "mcp",
];

fn bench(args: &[String]) -> Result<(), String> {
    let Some(name) = args.first() else {
        return Err(format!("bench needs a name: one of {}", BENCHES.join(", ")));
    };
    if !BENCHES.contains(&name.as_str()) {
        return Err(format!(
            "unknown benchmark `{name}`; one of {}",
            BENCHES.join(", ")
        ));
    }
    if name == "mcp" {
        mcp_servers()?;
        run(
            "build the gateway (release)",
            cargo().args(["build", "--quiet", "--release", "-p", "toolstack-cli"]),
        )?;
    }
    run(
        &format!("bench {name}"),
        cargo()
            .args(["run", "--quiet", "--release", "-p", "toolstack-bench", "--"])
            .args(args),
    )
}
