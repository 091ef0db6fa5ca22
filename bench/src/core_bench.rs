//! `cargo xtask bench core`: cached vs per-call schema compilation, and
//! rendering 1,000 tools for each provider.

use serde_json::json;
use tool_core::{render_tools_bytes, CompiledSchema, Provider, RenderOptions, ToolDefinition};

use crate::stats::{median_ns_per_iter, r2};

fn sample_tool(i: usize) -> ToolDefinition {
    ToolDefinition::builder(
        format!("tool_{i}"),
        format!("Tool number {i}: does a thing with files and returns a summary."),
    )
    .input_schema(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read."},
            "limit": {"type": "integer", "minimum": 1, "description": "Lines at most."},
            "mode": {"type": "string", "enum": ["fast", "full"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["path"]
    }))
    .build()
    .expect("valid sample tool")
}

pub fn run() -> Result<(), String> {
    let def = sample_tool(0);
    let args = json!({"path": "src/main.rs", "limit": 20, "mode": "fast", "tags": ["a", "b"]});
    def.validate_input(&args).map_err(|e| e.to_string())?;
    let cached = median_ns_per_iter(15, 20_000, || {
        assert!(def.validate_input(std::hint::black_box(&args)).is_ok());
    });
    let compile_each = median_ns_per_iter(15, 500, || {
        let schema = CompiledSchema::compile("t", def.input_schema()).expect("compiles");
        assert!(schema.is_valid(std::hint::black_box(&args)));
    });
    println!("argument validation (ns per call, median of 15 samples)");
    println!("  cached validator     {cached:>12.0}");
    println!("  compile every call   {compile_each:>12.0}   (baseline)");
    println!("  ratio (baseline / cached) {:.1}x", compile_each / cached);

    let tools: Vec<ToolDefinition> = (0..1000).map(sample_tool).collect();
    println!("\nrendering 1,000 tools (us per render, median of 11 samples)");
    let mut result = serde_json::Map::new();
    result.insert("validate_cached_ns".into(), json!(r2(cached)));
    result.insert(
        "baseline_validate_compile_each_ns".into(),
        json!(r2(compile_each)),
    );
    result.insert(
        "ratio_validate_speedup".into(),
        json!(r2(compile_each / cached)),
    );
    for provider in Provider::ALL {
        let mut bytes = 0;
        let ns = median_ns_per_iter(11, 5, || {
            bytes = render_tools_bytes(provider, &tools, RenderOptions::default())
                .expect("renders")
                .len();
        });
        println!(
            "  {:<18} {:>10.0} us   {bytes} bytes",
            provider.as_str(),
            ns / 1000.0
        );
        result.insert(
            format!("render_1000_{}_us", provider.as_str().replace('-', "_")),
            json!(r2(ns / 1000.0)),
        );
    }
    println!("RESULT {}", serde_json::Value::Object(result));
    Ok(())
}
