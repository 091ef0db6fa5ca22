//! `cargo xtask bench policy`: decisions per second with 1,000 glob
//! entries at each of three tiers, compiled `GlobSet` vs a naive loop over
//! the patterns.

use std::time::Instant;

use serde_json::{json, Map, Value};
use tool_core::{ToolDefinition, ToolFacts};
use tool_policy::{Action, Policy, PolicyConfig, TierConfig};

use crate::rng::SplitMix64;
use crate::stats::{median, r2};

fn entries(rng: &mut SplitMix64, prefix: &str) -> std::collections::BTreeMap<String, Action> {
    (0..1000)
        .map(|i| {
            let pattern = match i % 4 {
                0 => format!("{prefix}_srv{}_*", rng.below(400)),
                1 => format!("*_{prefix}{}_delete", rng.below(400)),
                2 => format!("{prefix}_tool_{}?", rng.below(1000)),
                _ => format!("{prefix}_{}_*_{}", rng.below(50), rng.below(50)),
            };
            let action = [Action::Allow, Action::Ask, Action::Deny][rng.below(3)];
            (pattern, action)
        })
        .collect()
}

pub fn run() -> Result<(), String> {
    let mut rng = SplitMix64::new(11);
    let mut config = PolicyConfig::default();
    config.policies.tool_permissions = entries(&mut rng, "g");
    config.policies.agents.insert(
        "coder".into(),
        TierConfig {
            tool_permissions: entries(&mut rng, "a"),
        },
    );
    config.policies.channels.insert(
        "public".into(),
        TierConfig {
            tool_permissions: entries(&mut rng, "c"),
        },
    );
    let policy = Policy::new(&config)
        .map_err(|e| e.to_string())?
        .scope(Some("coder"), Some("public"));
    let tools: Vec<ToolDefinition> = (0..1000)
        .map(|i| {
            let name = match i % 3 {
                0 => format!("g_srv{}_list", rng.below(400)),
                1 => format!("x_a{}_delete", rng.below(400)),
                _ => format!("tool_{i}"),
            };
            ToolDefinition::builder(name, "t")
                .facts(ToolFacts::read_only_tool())
                .build()
                .expect("valid")
        })
        .collect();
    for t in &tools {
        if policy.decide(t, None).action() != policy.decide_naive(t) {
            return Err(format!(
                "compiled and naive decisions differ for {}",
                t.name()
            ));
        }
    }
    let rate = |f: &dyn Fn(&ToolDefinition) -> Action| {
        let mut per_sec: Vec<f64> = (0..7)
            .map(|_| {
                let start = Instant::now();
                for t in &tools {
                    std::hint::black_box(f(t));
                }
                tools.len() as f64 / start.elapsed().as_secs_f64()
            })
            .collect();
        median(&mut per_sec)
    };
    let ours = rate(&|t| policy.decide(t, None).action());
    let naive = rate(&|t| policy.decide_naive(t));
    println!(
        "decisions per second, 3 tiers x 1,000 glob entries (median of 7 runs over 1,000 tools)"
    );
    println!("  compiled GlobSet + exact map  {ours:>12.0}");
    println!("  naive loop over patterns      {naive:>12.0}   (baseline)");
    println!("  ratio (ours / naive)          {:>12.1}x", ours / naive);
    let mut result = Map::new();
    result.insert("decisions_per_s".into(), json!(r2(ours)));
    result.insert("baseline_naive_decisions_per_s".into(), json!(r2(naive)));
    result.insert("ratio_decisions_speedup".into(), json!(r2(ours / naive)));
    println!("RESULT {}", Value::Object(result));
    Ok(())
}
