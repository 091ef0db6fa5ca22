//! The commands, one function each; they print human output or one JSON
//! document.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Map, Value};
use toolstack::concurrency::{claim_for, BatchSpec, CallSpec, ClaimSpec, Footprint};
use toolstack::core::{
    render_tool, render_tools, to_strict_schema, Provider, RenderOptions, ToolCategory,
    ToolDefinition, ToolFacts,
};
use toolstack::disclosure::{
    evaluate, load_queries, DeferredStyle, DisclosureConfig, ProgressiveDisclosureRewriter,
    SearchIndex,
};
use toolstack::policy::{Action, Policy, PolicyConfig};

use crate::error::{cli, CliError, CliResult};
use crate::io::{parse_flag_json, print_json, read_catalog, read_json};

/// `toolstack search`.
pub fn search(catalog: &Path, query: &str, limit: usize, as_json: bool) -> CliResult<()> {
    let tools = read_catalog(catalog)?;
    let index = SearchIndex::build(&tools);
    let hits = index.search(query, limit, |_| true);
    if as_json {
        print_json(
            &json!({"hits": hits.iter().map(|h| json!({"name": h.name, "score": h.score})).collect::<Vec<_>>()}),
        );
    } else if hits.is_empty() {
        println!("no tool matched {query:?}");
    } else {
        for (i, h) in hits.iter().enumerate() {
            let description = tools
                .iter()
                .find(|t| t.name() == h.name)
                .map(ToolDefinition::description)
                .unwrap_or_default();
            println!(
                "{:>2}. {:<40} {:>8.3}  {}",
                i + 1,
                h.name,
                h.score,
                toolstack::disclosure::first_sentence(description, 70)
            );
        }
    }
    Ok(())
}

fn parse_ks(ks: &str) -> CliResult<Vec<usize>> {
    ks.split(',')
        .map(|k| match k.trim().parse::<usize>() {
            Ok(k) if k > 0 => Ok(k),
            _ => Err(CliError(format!(
                "--k: {k:?} is not a positive integer (expected a list like 1,5,10)"
            ))),
        })
        .collect()
}

fn quality(
    index: &SearchIndex,
    queries: &[toolstack::disclosure::LabelledQuery],
    ks: &[usize],
) -> Map<String, Value> {
    let depth = ks.iter().copied().max().unwrap_or(10).max(10);
    let ranked: Vec<Vec<String>> = queries
        .iter()
        .map(|q| {
            index
                .search(&q.query, depth, |_| true)
                .into_iter()
                .map(|h| h.name)
                .collect()
        })
        .collect();
    let mut next = ranked.iter();
    let m = evaluate(queries, |_| next.next().cloned().unwrap_or_default());
    let mut out = Map::new();
    for k in ks {
        let mut total = 0.0;
        let mut n = 0usize;
        for (q, r) in queries.iter().zip(&ranked) {
            if q.relevant.is_empty() {
                continue;
            }
            let found = r.iter().take(*k).filter(|h| q.relevant.contains(h)).count();
            total += found as f64 / q.relevant.len() as f64;
            n += 1;
        }
        out.insert(
            format!("recall_at_{k}"),
            json!(if n == 0 { 0.0 } else { total / n as f64 }),
        );
    }
    for (key, v) in [
        ("recall_at_1", m.recall_at_1),
        ("recall_at_5", m.recall_at_5),
        ("recall_at_10", m.recall_at_10),
    ] {
        out.entry(key).or_insert(json!(v));
    }
    out.insert("mrr_at_10".into(), json!(m.mrr_at_10));
    out.insert("ndcg_at_10".into(), json!(m.ndcg_at_10));
    out.insert("queries".into(), json!(m.queries));
    out
}

/// `toolstack eval-search`.
pub fn eval_search(catalog: &Path, queries: &Path, ks: &str, as_json: bool) -> CliResult<()> {
    let ks = parse_ks(ks)?;
    let tools = read_catalog(catalog)?;
    let labelled = load_queries(queries).map_err(cli)?;
    let ours = SearchIndex::build(&tools);
    let mut plain = SearchIndex::plain_bm25();
    for t in &tools {
        plain.add(t);
    }
    let a = quality(&ours, &labelled, &ks);
    let b = quality(&plain, &labelled, &ks);
    let diff: Map<String, Value> = a
        .iter()
        .filter(|(k, _)| *k != "queries")
        .map(|(k, v)| {
            (
                k.clone(),
                json!(v.as_f64().unwrap_or(0.0) - b[k].as_f64().unwrap_or(0.0)),
            )
        })
        .collect();
    if as_json {
        print_json(&json!({"toolstack": a, "baseline": b, "difference": diff}));
        return Ok(());
    }
    println!("{} tools, {} labelled queries", tools.len(), labelled.len());
    let keys: Vec<&String> = a.keys().filter(|k| *k != "queries").collect();
    print!("{:<12}", "");
    for k in &keys {
        print!(" {k:>13}");
    }
    println!();
    for (label, m) in [("toolstack", &a), ("plain BM25", &b), ("difference", &diff)] {
        print!("{label:<12}");
        for k in &keys {
            print!(" {:>13.4}", m[k.as_str()].as_f64().unwrap_or(0.0));
        }
        println!();
    }
    Ok(())
}

/// Options of `toolstack render`.
pub struct RenderArgs<'a> {
    /// The catalog file.
    pub catalog: &'a Path,
    /// The provider.
    pub provider: &'a str,
    /// OpenAI strict mode, reported per tool.
    pub strict: bool,
    /// Core tools (names or globs): turns disclosure on.
    pub core: Option<&'a str>,
    /// Defer every tool not in the core set.
    pub defer_all: bool,
    /// Style of deferred tools.
    pub style: &'a str,
    /// JSON output.
    pub json: bool,
}

/// `toolstack render`.
pub fn render(args: &RenderArgs<'_>) -> CliResult<()> {
    let provider: Provider = args
        .provider
        .parse()
        .map_err(|e: String| CliError(format!("--provider: {e}")))?;
    let style: DeferredStyle = serde_json::from_value(json!(args.style)).map_err(|_| {
        CliError(format!(
            "--style: unknown style {:?}; expected collapsed, compact or hidden",
            args.style
        ))
    })?;
    let mut tools = read_catalog(args.catalog)?;
    if args.core.is_some() || args.defer_all {
        let core: Vec<String> = args
            .core
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig {
            core,
            style,
            defer_all: args.defer_all,
            ..DisclosureConfig::default()
        })
        .map_err(cli)?;
        tools = rewriter.rewrite(&tools).tools;
    }
    let strict_ok = matches!(provider, Provider::OpenAiChat | Provider::OpenAiResponses);
    let mut report = Vec::new();
    let rendered = if args.strict {
        let mut parts = Vec::with_capacity(tools.len());
        for t in &tools {
            let check = to_strict_schema(t.input_schema());
            report.push(json!({"name": t.name(), "ok": check.is_ok(), "error": check.as_ref().err().map(ToString::to_string)}));
            let strict = strict_ok && check.is_ok();
            parts.push(render_tool(provider, t, RenderOptions { strict }).map_err(cli)?);
        }
        if provider == Provider::Text {
            render_tools(provider, &tools, RenderOptions::default()).map_err(cli)?
        } else {
            Value::Array(parts)
        }
    } else {
        render_tools(provider, &tools, RenderOptions::default()).map_err(cli)?
    };
    let bytes = match &rendered {
        Value::String(s) => s.len(),
        other => other.to_string().len(),
    };
    if args.json {
        let mut doc = json!({"provider": provider.as_str(), "bytes": bytes, "tools": rendered});
        if args.strict {
            doc["strict"] = Value::Array(report);
        }
        print_json(&doc);
        return Ok(());
    }
    match &rendered {
        Value::String(s) => println!("{s}"),
        other => println!(
            "{}",
            serde_json::to_string_pretty(other).unwrap_or_default()
        ),
    }
    if args.strict {
        let failed: Vec<&Value> = report.iter().filter(|r| r["ok"] == json!(false)).collect();
        eprintln!(
            "strict: {} of {} tools converted",
            report.len() - failed.len(),
            report.len()
        );
        for f in failed {
            eprintln!(
                "  {}: {}",
                f["name"].as_str().unwrap_or_default(),
                f["error"].as_str().unwrap_or_default()
            );
        }
    }
    eprintln!("{} tools, {bytes} bytes for {provider}", tools.len());
    Ok(())
}

/// `toolstack plan`.
pub fn plan(
    calls: &Path,
    catalog: Option<&Path>,
    cap: Option<usize>,
    as_json: bool,
) -> CliResult<()> {
    let doc = read_json(calls)?;
    let cwd = doc.get("cwd").and_then(Value::as_str).map(str::to_owned);
    let entries = doc
        .get("calls")
        .and_then(Value::as_array)
        .ok_or_else(|| CliError::file(calls, "expected {\"calls\": [...]}"))?;
    let tools = catalog.map(read_catalog).transpose()?;
    let mut specs = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let at = |m: String| CliError::file(calls, format!("calls[{i}]: {m}"));
        let id = e
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| at("missing string `id`".into()))?
            .to_owned();
        let claim: ClaimSpec = match (e.get("claim"), e.get("tool")) {
            (Some(c), _) => {
                serde_json::from_value(c.clone()).map_err(|err| at(format!("claim: {err}")))?
            }
            (None, Some(Value::String(name))) => {
                let tools = tools.as_ref().ok_or_else(|| {
                    at(format!(
                        "tool `{name}` needs --catalog to find its footprint"
                    ))
                })?;
                let def = tools
                    .iter()
                    .find(|t| t.name() == name)
                    .ok_or_else(|| at(format!("tool `{name}` is not in the catalog")))?;
                let footprint: Option<Footprint> = match def.metadata().get("footprint") {
                    Some(f) => Some(
                        serde_json::from_value(f.clone())
                            .map_err(|err| at(format!("footprint of `{name}`: {err}")))?,
                    ),
                    None => None,
                };
                let args = e.get("arguments").cloned().unwrap_or(json!({}));
                ClaimSpec::from(&claim_for(
                    def.facts().read_only(),
                    footprint.as_ref(),
                    &args,
                    cwd.as_deref(),
                ))
            }
            _ => return Err(at("needs a `claim`, or a `tool` (with --catalog)".into())),
        };
        let depends_on: Vec<String> = match e.get("depends_on") {
            Some(d) => {
                serde_json::from_value(d.clone()).map_err(|err| at(format!("depends_on: {err}")))?
            }
            None => Vec::new(),
        };
        let duration = match e.get("duration") {
            None | Some(Value::Null) => None,
            Some(d) => Some(
                d.as_f64()
                    .ok_or_else(|| at("duration must be a number".into()))?,
            ),
        };
        specs.push(CallSpec {
            id,
            claim,
            depends_on,
            duration,
        });
    }
    let batch = BatchSpec { cwd, calls: specs };
    let plan = batch.plan(cap).map_err(|e| CliError::file(calls, e))?;
    if as_json {
        print_json(&serde_json::to_value(&plan).map_err(cli)?);
        return Ok(());
    }
    println!(
        "contiguous partition ({} groups, run one after another):",
        plan.groups.len()
    );
    for (i, g) in plan.groups.iter().enumerate() {
        println!("  {}: {}", i + 1, g.join(", "));
    }
    println!("scheduler DAG (each call waits only for these):");
    for (id, waits) in &plan.dag {
        println!(
            "  {id:<16} <- {}",
            if waits.is_empty() {
                "(starts at once)".to_owned()
            } else {
                waits.join(", ")
            }
        );
    }
    if let Some(m) = plan.makespan {
        println!(
            "simulated makespan: serial {:.2}, partition {:.2}, scheduler {:.2}",
            m.serial, m.partition, m.scheduler
        );
    }
    Ok(())
}

/// Options of `toolstack policy check`.
pub struct CheckArgs<'a> {
    /// The policy file.
    pub config: &'a Path,
    /// The tool.
    pub tool: &'a str,
    /// Agent tier.
    pub agent: Option<&'a str>,
    /// Channel tier.
    pub channel: Option<&'a str>,
    /// Arguments (JSON).
    pub args: Option<&'a str>,
    /// Facts (JSON).
    pub facts: Option<&'a str>,
    /// `shell` (with `--command-arg`), or another category name.
    pub category: Option<&'a str>,
    /// The argument holding a shell command.
    pub command_arg: &'a str,
    /// JSON output.
    pub json: bool,
}

/// `toolstack policy check`.
pub fn policy_check(a: &CheckArgs<'_>) -> CliResult<()> {
    let config = PolicyConfig::load(a.config).map_err(cli)?;
    let policy = Policy::new(&config).map_err(cli)?;
    let facts: ToolFacts = match a.facts {
        Some(f) => serde_json::from_value(parse_flag_json("--facts", f)?)
            .map_err(|e| CliError(format!("--facts: {e}")))?,
        None => ToolFacts::default(),
    };
    let args = a.args.map(|t| parse_flag_json("--args", t)).transpose()?;
    let mut def = ToolDefinition::builder(a.tool, "").facts(facts);
    match a.category {
        Some("shell") => {
            def = def.category(ToolCategory::Shell {
                command_arg: a.command_arg.to_owned(),
            });
        }
        Some(other) => {
            let c: ToolCategory = serde_json::from_value(json!({"kind": other}))
                .map_err(|_| CliError(format!("--category: unknown category {other:?}; expected shell, read, write, search, network or meta")))?;
            def = def.category(c);
        }
        None => {}
    }
    let def = def.build().map_err(|e| CliError(format!("--tool: {e}")))?;
    let decision = policy.scope(a.agent, a.channel).decide(&def, args.as_ref());
    if a.json {
        print_json(&json!({
            "decision": decision.action().as_str(),
            "reason": decision.reason(),
            "provenance": decision.provenance(),
            "explain": decision.explain(),
        }));
    } else {
        println!("{}", decision.explain());
    }
    Ok(())
}

/// `toolstack policy list`.
pub fn policy_list(config_path: &Path, catalog: &Path, as_json: bool) -> CliResult<()> {
    let config = PolicyConfig::load(config_path).map_err(cli)?;
    let policy = Policy::new(&config).map_err(cli)?;
    let tools = read_catalog(catalog)?;
    let agents: Vec<Option<&str>> = std::iter::once(None)
        .chain(config.policies.agents.keys().map(|a| Some(a.as_str())))
        .collect();
    let channels: Vec<Option<&str>> = std::iter::once(None)
        .chain(config.policies.channels.keys().map(|c| Some(c.as_str())))
        .collect();
    let mut scopes = Vec::new();
    for agent in &agents {
        for channel in &channels {
            let merged = policy.scope(*agent, *channel);
            let mut by: [BTreeSet<&str>; 3] = Default::default();
            for t in &tools {
                let i = match merged.decide(t, None).action() {
                    Action::Allow => 0,
                    Action::Ask => 1,
                    Action::Deny => 2,
                };
                by[i].insert(t.name());
            }
            scopes.push(json!({"agent": agent, "channel": channel, "allow": by[0], "ask": by[1], "deny": by[2], "visible": by[0].len() + by[1].len()}));
        }
    }
    if as_json {
        print_json(&json!({"scopes": scopes}));
        return Ok(());
    }
    for s in &scopes {
        println!(
            "agent {:<10} channel {:<10} sees {} of {} tools ({} allow, {} ask; {} denied)",
            s["agent"].as_str().unwrap_or("-"),
            s["channel"].as_str().unwrap_or("-"),
            s["visible"],
            tools.len(),
            s["allow"].as_array().map_or(0, Vec::len),
            s["ask"].as_array().map_or(0, Vec::len),
            s["deny"].as_array().map_or(0, Vec::len),
        );
        let denied: Vec<&str> = s["deny"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .take(8)
            .collect();
        if !denied.is_empty() {
            println!(
                "    denied: {}{}",
                denied.join(", "),
                if s["deny"].as_array().map_or(0, Vec::len) > 8 {
                    ", ..."
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}
