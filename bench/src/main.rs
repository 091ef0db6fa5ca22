//! Benchmarks for `cargo xtask bench NAME`. Each prints our figure beside
//! its baseline and the ratio, then one `RESULT {json}` line.

mod concurrency_bench;
mod core_bench;
mod disclosure_bench;
mod mcp_bench;
mod policy_bench;
mod registry_bench;
mod rng;
mod service_bench;
mod stats;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("core") => core_bench::run(),
        Some("concurrency") => concurrency_bench::run(),
        Some("policy") => policy_bench::run(),
        Some("registry") => registry_bench::run(),
        Some("disclosure") => disclosure_bench::run(),
        Some("service") => service_bench::run(),
        Some("mcp") => mcp_bench::run(),
        Some("eval-search") => disclosure_bench::eval_search(&args[1..]),
        Some(other) => Err(format!("unknown benchmark `{other}`")),
        None => Err("usage: toolstack-bench NAME".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e}");
            ExitCode::FAILURE
        }
    }
}
