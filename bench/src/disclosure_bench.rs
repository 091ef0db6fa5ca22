//! `cargo xtask bench disclosure` and `cargo xtask eval-search`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Map, Value};
use tool_core::{render_tools_bytes, Provider, RenderOptions, ToolDefinition};
use tool_disclosure::{
    compare_with_baseline, load_catalog, load_queries, DeferredStyle, DisclosureConfig,
    LabelledQuery, Metrics, ProgressiveDisclosureRewriter, SearchIndex,
};

use crate::stats::{median, r2};

/// `../shared/data/tool-retrieval` from the repository root.
pub fn shared_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/tool-retrieval")
}

fn load(
    catalog: &Path,
    queries: &Path,
) -> Result<(Vec<ToolDefinition>, Vec<LabelledQuery>), String> {
    Ok((
        load_catalog(catalog).map_err(|e| e.to_string())?,
        load_queries(queries).map_err(|e| e.to_string())?,
    ))
}

fn metrics_json(m: &Metrics) -> Value {
    json!({
        "recall_at_1": r4(m.recall_at_1), "recall_at_5": r4(m.recall_at_5), "recall_at_10": r4(m.recall_at_10),
        "mrr_at_10": r4(m.mrr_at_10), "ndcg_at_10": r4(m.ndcg_at_10), "queries": m.queries,
    })
}

fn r4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// `eval-search [--catalog F] [--queries F]`.
pub fn eval_search(args: &[String]) -> Result<(), String> {
    let mut catalog = shared_dir().join("catalog.json");
    let mut queries = shared_dir().join("dev.jsonl");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--catalog" => catalog = it.next().ok_or("--catalog needs a file")?.into(),
            "--queries" => queries = it.next().ok_or("--queries needs a file")?.into(),
            other => {
                return Err(format!(
                    "unknown argument `{other}`; expected --catalog F or --queries F"
                ))
            }
        }
    }
    let (tools, labelled) = load(&catalog, &queries)?;
    let c = compare_with_baseline(&tools, &labelled);
    println!(
        "search quality: {} tools, {} queries ({})",
        tools.len(),
        labelled.len(),
        queries.display()
    );
    println!(
        "  {:<12} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "", "recall@1", "recall@5", "recall@10", "MRR@10", "nDCG@10"
    );
    for (label, m) in [("toolstack", &c.toolstack), ("plain BM25", &c.baseline)] {
        println!(
            "  {label:<12} {:>10.4} {:>10.4} {:>10.4} {:>10.4} {:>10.4}",
            m.recall_at_1, m.recall_at_5, m.recall_at_10, m.mrr_at_10, m.ndcg_at_10
        );
    }
    println!(
        "  {:<12} {:>+10.4} {:>+10.4} {:>+10.4} {:>+10.4} {:>+10.4}",
        "difference",
        c.toolstack.recall_at_1 - c.baseline.recall_at_1,
        c.toolstack.recall_at_5 - c.baseline.recall_at_5,
        c.toolstack.recall_at_10 - c.baseline.recall_at_10,
        c.toolstack.mrr_at_10 - c.baseline.mrr_at_10,
        c.toolstack.ndcg_at_10 - c.baseline.ndcg_at_10
    );
    println!(
        "{}",
        json!({"toolstack": metrics_json(&c.toolstack), "baseline": metrics_json(&c.baseline)})
    );
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// p50 and p99 over queries of each query's median time over `reps` runs
/// (the machine is noisy; a per-query median steadies the percentiles).
fn latencies(queries: &[LabelledQuery], reps: usize, mut run: impl FnMut(&str)) -> (f64, f64) {
    let mut us: Vec<f64> = queries
        .iter()
        .map(|q| {
            let mut runs: Vec<f64> = (0..reps)
                .map(|_| {
                    let start = Instant::now();
                    run(&q.query);
                    start.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            median(&mut runs)
        })
        .collect();
    us.sort_by(f64::total_cmp);
    (percentile(&us, 0.5), percentile(&us, 0.99))
}

fn repeat_catalog(tools: &[ToolDefinition], n: usize) -> Vec<ToolDefinition> {
    (0..n)
        .map(|i| {
            let t = &tools[i % tools.len()];
            let copy = i / tools.len();
            if copy == 0 {
                t.clone()
            } else {
                let name: String = format!("{}_v{copy}", t.name()).chars().take(64).collect();
                t.renamed(name).expect("valid repeated name")
            }
        })
        .collect()
}

pub fn run() -> Result<(), String> {
    let (tools, queries) = load(
        &shared_dir().join("catalog.json"),
        &shared_dir().join("dev.jsonl"),
    )?;
    let mut result = Map::new();
    println!("tool_search: BM25F index vs a naive scorer (every tool scored for every query); per-query median of repeated runs");
    println!(
        "  {:<10} {:>12} {:>10} {:>10} {:>12} {:>12} {:>8}",
        "catalog", "build ms", "p50 us", "p99 us", "naive p50", "naive p99", "ratio"
    );
    for (label, catalog) in [
        ("shared", tools.clone()),
        ("10k", repeat_catalog(&tools, 10_000)),
    ] {
        let mut builds: Vec<f64> = (0..3)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(SearchIndex::build(&catalog));
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let build_ms = median(&mut builds);
        let index = SearchIndex::build(&catalog);
        // Warm up, then measure every dev query once.
        let (p50, p99) = latencies(&queries, 5, |q| {
            std::hint::black_box(index.search(q, 5, |_| true));
        });
        let (n50, n99) = latencies(&queries, 3, |q| {
            std::hint::black_box(index.search_naive(q, 5));
        });
        println!("  {label:<10} {build_ms:>12.1} {p50:>10.1} {p99:>10.1} {n50:>12.1} {n99:>12.1} {:>8.1}", n50 / p50);
        result.insert(format!("index_build_{label}_ms"), json!(r2(build_ms)));
        result.insert(format!("query_{label}_p50_us"), json!(r2(p50)));
        result.insert(format!("query_{label}_p99_us"), json!(r2(p99)));
        result.insert(
            format!("baseline_naive_query_{label}_p50_us"),
            json!(r2(n50)),
        );
        result.insert(
            format!("baseline_naive_query_{label}_p99_us"),
            json!(r2(n99)),
        );
        result.insert(
            format!("ratio_query_{label}_p50_speedup"),
            json!(r2(n50 / p50)),
        );
    }
    let full = render_tools_bytes(Provider::OpenAiChat, &tools, RenderOptions::default())
        .map_err(|e| e.to_string())?
        .len();
    let core: Vec<String> = tools.iter().take(8).map(|t| t.name().to_owned()).collect();
    println!("\nOpenAI Chat tool array, shared catalog, 8 core tools (bytes)");
    println!("  {:<12} {:>10}   (baseline)", "no disclosure", full);
    result.insert("baseline_tools_bytes_full".into(), json!(full));
    for style in [
        DeferredStyle::Collapsed,
        DeferredStyle::Compact,
        DeferredStyle::Hidden,
    ] {
        let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig {
            core: core.clone(),
            style,
            ..DisclosureConfig::default()
        })
        .map_err(|e| e.to_string())?;
        let bytes = render_tools_bytes(
            Provider::OpenAiChat,
            &rewriter.rewrite(&tools).tools,
            RenderOptions::default(),
        )
        .map_err(|e| e.to_string())?
        .len();
        let name = format!("{style:?}").to_lowercase();
        println!(
            "  {name:<12} {bytes:>10}   {:.1}% smaller",
            100.0 * (1.0 - bytes as f64 / full as f64)
        );
        result.insert(format!("tools_bytes_{name}"), json!(bytes));
        result.insert(
            format!("ratio_tools_bytes_{name}"),
            json!(r4(bytes as f64 / full as f64)),
        );
    }
    println!("RESULT {}", Value::Object(result));
    Ok(())
}
