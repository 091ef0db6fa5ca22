//! `cargo xtask bench registry`: snapshot acquisition, name lookup and one
//! register + close with 10,000 tools, beside a `RwLock<HashMap>` baseline.

use std::collections::HashMap;
use std::sync::RwLock;

use serde_json::{json, Map, Value};
use tool_core::{FnTool, SharedTool, ToolOutput, ToolSource};
use tool_registry::{SourceConfig, ToolCatalog};

use crate::stats::{median_ns_per_iter, r2};

fn tool(name: &str) -> SharedTool {
    FnTool::builder(name, "A benchmark tool.")
        .handler(|_, _| async { Ok(ToolOutput::text("ok")) })
        .expect("valid tool")
}

pub fn run() -> Result<(), String> {
    let n = 10_000;
    let tools: Vec<SharedTool> = (0..n).map(|i| tool(&format!("tool_{i}"))).collect();
    let catalog = ToolCatalog::new();
    catalog
        .add_source(SourceConfig::new(
            "bench",
            ToolSource::Plugin {
                name: "bench".into(),
            },
        ))
        .map_err(|e| e.to_string())?;
    catalog
        .set_source_tools("bench", tools.clone())
        .map_err(|e| e.to_string())?;
    let baseline: RwLock<HashMap<String, SharedTool>> = RwLock::new(
        tools
            .iter()
            .map(|t| (t.definition().name().to_owned(), t.clone()))
            .collect(),
    );
    let names: Vec<String> = (0..1000)
        .map(|i| format!("tool_{}", (i * 7919) % n))
        .collect();

    let snap_ours = median_ns_per_iter(15, 100_000, || {
        std::hint::black_box(catalog.snapshot());
    });
    let snap_base = median_ns_per_iter(15, 100_000, || {
        std::hint::black_box(baseline.read().expect("lock").len());
    });
    let mut k = 0;
    let snapshot = catalog.snapshot();
    let lookup_ours = median_ns_per_iter(15, 100_000, || {
        k = (k + 1) % names.len();
        std::hint::black_box(snapshot.get(&names[k]));
    });
    let lookup_base = median_ns_per_iter(15, 100_000, || {
        k = (k + 1) % names.len();
        std::hint::black_box(baseline.read().expect("lock").get(&names[k]).cloned());
    });
    let extra = tool("tool_extra");
    let reg_ours = median_ns_per_iter(15, 2_000, || {
        catalog
            .register("bench", extra.clone())
            .expect("registers")
            .close();
    });
    let reg_base = median_ns_per_iter(15, 2_000, || {
        baseline
            .write()
            .expect("lock")
            .insert("tool_extra".into(), extra.clone());
        baseline.write().expect("lock").remove("tool_extra");
    });
    println!("registry with {n} tools (ns per operation, median of 15 samples)");
    println!(
        "  {:<22} {:>10} {:>16} {:>8}",
        "operation", "catalog", "RwLock<HashMap>", "ratio"
    );
    let mut result = Map::new();
    for (label, key, ours, base) in [
        ("snapshot acquisition", "snapshot", snap_ours, snap_base),
        ("name lookup", "lookup", lookup_ours, lookup_base),
        ("register + close", "register_close", reg_ours, reg_base),
    ] {
        println!(
            "  {label:<22} {ours:>10.0} {base:>16.0} {:>8.2}",
            ours / base
        );
        result.insert(format!("{key}_ns"), json!(r2(ours)));
        result.insert(format!("baseline_{key}_ns"), json!(r2(base)));
        result.insert(format!("ratio_{key}"), json!(r2(ours / base)));
    }
    println!("  (the catalog's snapshot is an immutable view a request keeps; the baseline's read guard blocks writers while held)");
    println!("RESULT {}", Value::Object(result));
    Ok(())
}
