//! `cargo xtask bench service`: per-call overhead of the full pipeline on a
//! no-op tool vs calling the tool directly, and batch throughput.

use std::time::Instant;

use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tool_core::{CallContext, FnTool, SharedTool, ToolFacts, ToolOutput, ToolSource};
use tool_registry::{SourceConfig, ToolCatalog};

use tool_service::{BatchCall, CallEvent, EventSink, Limits, ScopedToolService};

/// Counts events, so the pipeline pays for building them.
#[derive(Default)]
struct CountingSink(AtomicUsize);

impl EventSink for CountingSink {
    fn record(&self, event: &CallEvent) {
        self.0
            .fetch_add(event.input_bytes.min(1), Ordering::Relaxed);
    }
}

use crate::stats::{median, r2};

pub fn run() -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let noop: SharedTool = FnTool::builder("noop", "Does nothing.")
        .input_schema(json!({"type": "object", "properties": {"x": {"type": "integer"}}}))
        .facts(ToolFacts::read_only_tool())
        .handler(|_, _| async { Ok(ToolOutput::text("ok")) })
        .map_err(|e| e.to_string())?;
    let catalog = ToolCatalog::new();
    catalog
        .add_source(SourceConfig::new("bench", ToolSource::Host))
        .map_err(|e| e.to_string())?;
    catalog
        .set_source_tools("bench", vec![noop.clone()])
        .map_err(|e| e.to_string())?;
    let service = ScopedToolService::builder(catalog.snapshot())
        .events(Arc::new(CountingSink::default()))
        .limits(Limits {
            max_in_flight: Some(64),
            ..Limits::default()
        })
        .build();
    let args = json!({"x": 1});
    let n = 20_000;
    let (pipeline_ns, direct_ns) = rt.block_on(async {
        let ctx = CallContext::new("bench");
        let mut p = Vec::new();
        let mut d = Vec::new();
        for _ in 0..7 {
            let start = Instant::now();
            for _ in 0..n {
                std::hint::black_box(
                    service
                        .execute_call("c", "noop", args.clone(), &ctx)
                        .await
                        .expect("runs"),
                );
            }
            p.push(start.elapsed().as_nanos() as f64 / f64::from(n));
            let start = Instant::now();
            for _ in 0..n {
                std::hint::black_box(noop.call(args.clone(), &ctx).await.expect("runs"));
            }
            d.push(start.elapsed().as_nanos() as f64 / f64::from(n));
        }
        (median(&mut p), median(&mut d))
    });
    println!("per-call overhead on a no-op tool (ns per call, median of 7 runs of {n})");
    println!("  full pipeline (resolve, policy, validate, deadline, budget, event)     {pipeline_ns:>10.0}");
    println!("  direct DynTool::call                                                    {direct_ns:>10.0}   (baseline)");
    println!(
        "  ratio {:.1}x, overhead {:.0} ns",
        pipeline_ns / direct_ns,
        pipeline_ns - direct_ns
    );
    let calls: Vec<BatchCall> = (0..10_000)
        .map(|i| BatchCall {
            id: format!("c{i}"),
            name: "noop".into(),
            arguments: json!({"x": i}),
            depends_on: vec![],
        })
        .collect();
    let mut rates = Vec::new();
    for _ in 0..5 {
        let batch = calls.clone();
        let start = Instant::now();
        let results = rt.block_on(service.execute_batch(batch, &CallContext::new("turn")));
        let secs = start.elapsed().as_secs_f64();
        if results.iter().any(|r| r.result.is_err()) {
            return Err("a batch call failed".into());
        }
        rates.push(results.len() as f64 / secs);
    }
    let rate = median(&mut rates);
    println!("\nbatch of 10,000 trivial calls (cap 64 in flight, median of 5): {rate:.0} calls/s");
    let mut result = Map::new();
    result.insert("call_pipeline_ns".into(), json!(r2(pipeline_ns)));
    result.insert("baseline_call_direct_ns".into(), json!(r2(direct_ns)));
    result.insert(
        "ratio_call_pipeline_vs_direct".into(),
        json!(r2(pipeline_ns / direct_ns)),
    );
    result.insert("batch_10000_calls_per_s".into(), json!(r2(rate)));
    println!("RESULT {}", Value::Object(result));
    Ok(())
}
