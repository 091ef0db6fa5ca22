//! The `toolstack` binary. Errors go to stderr with a non-zero exit code;
//! bad input never panics.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolstack_cli::commands::{self, CheckArgs, RenderArgs};

/// Inspect and exercise the tool layer of an LLM agent.
#[derive(Parser)]
#[command(name = "toolstack", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The ranked hits of tool_search for a query, with scores.
    Search {
        /// Catalog file (JSON list of tool definitions, any supported shape).
        #[arg(long)]
        catalog: PathBuf,
        /// The request.
        #[arg(long)]
        query: String,
        /// Hits at most.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// recall@k, MRR@10 and nDCG@10 of tool_search and of plain BM25.
    EvalSearch {
        /// Catalog file.
        #[arg(long)]
        catalog: PathBuf,
        /// Labelled queries, JSON lines {"query", "relevant"}.
        #[arg(long)]
        queries: PathBuf,
        /// The k of recall@k, comma-separated.
        #[arg(long, default_value = "1,5,10")]
        k: String,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// The exact tool array a model would be sent, and its size.
    Render {
        /// Catalog file.
        #[arg(long)]
        catalog: PathBuf,
        /// openai-chat, openai-responses, anthropic, gemini or text.
        #[arg(long)]
        provider: String,
        /// OpenAI strict mode; reports per tool whether conversion succeeded.
        #[arg(long)]
        strict: bool,
        /// Core tools (comma-separated names or globs): turns disclosure on.
        #[arg(long)]
        core: Option<String>,
        /// Defer every tool not in --core.
        #[arg(long)]
        defer_all: bool,
        /// How deferred tools are shown: collapsed, compact or hidden.
        #[arg(long, default_value = "collapsed")]
        style: String,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// A batch of calls -> the contiguous partition, the scheduler's DAG and makespans.
    Plan {
        /// Batch file: {"cwd"?, "calls": [{"id", "claim" | "tool"+"arguments", "depends_on"?, "duration"?}]}.
        #[arg(long)]
        calls: PathBuf,
        /// Catalog with footprints, for calls given by tool name.
        #[arg(long)]
        catalog: Option<PathBuf>,
        /// Cap on calls in flight.
        #[arg(long)]
        cap: Option<usize>,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Policy decisions and who sees what.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// Serve the configured MCP servers' tools, with policy and disclosure, as one MCP server on stdio (or streamable HTTP with --listen).
    Serve {
        /// Gateway TOML: [tools], [[servers]], [policies], [sandbox].
        #[arg(long)]
        config: PathBuf,
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio. ADDR must be loopback
        /// (127.0.0.1:8931, [::1]:8931, localhost:8931); port 0 picks a free port. The URL is
        /// printed on stderr once listening; Ctrl-C stops.
        #[arg(long, value_name = "ADDR")]
        listen: Option<String>,
    },
    /// One scripted agent turn, end to end, with a readable trace.
    Demo {
        /// The large deferred catalog (default: the shared BFCL-derived one).
        #[arg(long)]
        catalog: Option<PathBuf>,
        /// One JSON document on stdout: the steps, every call event, the ledger count.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// allow / ask / deny for one tool, with the full provenance.
    Check {
        /// Policy TOML file.
        #[arg(long)]
        config: PathBuf,
        /// The tool's name.
        #[arg(long)]
        tool: String,
        /// Agent tier.
        #[arg(long)]
        agent: Option<String>,
        /// Channel tier.
        #[arg(long)]
        channel: Option<String>,
        /// The call's arguments, JSON.
        #[arg(long)]
        args: Option<String>,
        /// The tool's facts, JSON (read_only, destructive, idempotent, open_world, requires_approval); omitted means unknown.
        #[arg(long)]
        facts: Option<String>,
        /// The tool's category (shell makes the command floor apply).
        #[arg(long)]
        category: Option<String>,
        /// For --category shell: the argument holding the command.
        #[arg(long, default_value = "command")]
        command_arg: String,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Which tools each agent and channel sees.
    List {
        /// Policy TOML file.
        #[arg(long)]
        config: PathBuf,
        /// Catalog file.
        #[arg(long)]
        catalog: PathBuf,
        /// One JSON document on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// `toolstack serve`: on stdio, stdout carries only the protocol; with
/// `--listen`, the endpoint URL goes to stderr and Ctrl-C (or SIGTERM) stops.
fn serve(
    config: &std::path::Path,
    listen: Option<&str>,
) -> Result<(), toolstack_cli::error::CliError> {
    use toolstack_cli::error::cli;
    let config = tool_mcp::McpConfig::load(config).map_err(cli)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(cli)?;
    let Some(address) = listen else {
        return runtime
            .block_on(tool_mcp::serve_stdio(&config))
            .map_err(cli);
    };
    runtime
        .block_on(async {
            let shutdown = toolstack::core::CancellationToken::new();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                shutdown_signal().await;
                stop.cancel();
            });
            tool_mcp::serve_http(&config, address, shutdown, |url| {
                eprintln!("toolstack gateway listening on {url}");
            })
            .await
        })
        .map_err(cli)
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = async {
                match term.as_mut() {
                    Some(term) => { term.recv().await; }
                    None => std::future::pending::<()>().await,
                }
            } => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Search {
            catalog,
            query,
            limit,
            json,
        } => commands::search(catalog, query, *limit, *json),
        Command::EvalSearch {
            catalog,
            queries,
            k,
            json,
        } => commands::eval_search(catalog, queries, k, *json),
        Command::Render {
            catalog,
            provider,
            strict,
            core,
            defer_all,
            style,
            json,
        } => commands::render(&RenderArgs {
            catalog,
            provider,
            strict: *strict,
            core: core.as_deref(),
            defer_all: *defer_all,
            style,
            json: *json,
        }),
        Command::Plan {
            calls,
            catalog,
            cap,
            json,
        } => commands::plan(calls, catalog.as_deref(), *cap, *json),
        Command::Policy {
            command:
                PolicyCommand::Check {
                    config,
                    tool,
                    agent,
                    channel,
                    args,
                    facts,
                    category,
                    command_arg,
                    json,
                },
        } => commands::policy_check(&CheckArgs {
            config,
            tool,
            agent: agent.as_deref(),
            channel: channel.as_deref(),
            args: args.as_deref(),
            facts: facts.as_deref(),
            category: category.as_deref(),
            command_arg,
            json: *json,
        }),
        Command::Policy {
            command:
                PolicyCommand::List {
                    config,
                    catalog,
                    json,
                },
        } => commands::policy_list(config, catalog, *json),
        Command::Serve { config, listen } => serve(config, listen.as_deref()),
        Command::Demo { catalog, json } => toolstack_cli::demo::run(
            &catalog
                .clone()
                .unwrap_or_else(toolstack_cli::demo::default_catalog),
            *json,
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
