//! `cargo xtask bench concurrency`: planning time for 10,000 calls, and
//! simulated makespans of three 64-call workloads under four policies.

use std::time::Instant;

use serde_json::{json, Map, Value};
use tool_concurrency::{
    partition_makespan, partition_parallel_groups, simulate_scheduler, ConcurrencyClaim, Dag,
    PlannedCall,
};

use crate::rng::SplitMix64;
use crate::stats::{median, r2};

fn write(rng: &mut SplitMix64, files: usize) -> ConcurrencyClaim {
    ConcurrencyClaim::paths(
        [format!("src/m{}/f{}.rs", rng.below(8), rng.below(files))],
        Some("/repo"),
    )
}

fn read(rng: &mut SplitMix64) -> ConcurrencyClaim {
    if rng.unit() < 0.5 {
        ConcurrencyClaim::Shared
    } else {
        ConcurrencyClaim::shared_paths([format!("src/m{}", rng.below(8))], Some("/repo"))
    }
}

/// The three workloads of the issue.
fn workload(kind: &str, n: usize, seed: u64) -> (Vec<PlannedCall>, Vec<f64>) {
    let mut rng = SplitMix64::new(seed);
    let mut calls = Vec::with_capacity(n);
    let mut durations = Vec::with_capacity(n);
    for i in 0..n {
        let claim = match kind {
            "mostly_reads" => {
                if rng.unit() < 0.9 {
                    read(&mut rng)
                } else {
                    write(&mut rng, 64)
                }
            }
            "disjoint_writes" => {
                ConcurrencyClaim::paths([format!("out/file_{i}.txt")], Some("/repo"))
            }
            _ => {
                if i % 10 == 9 {
                    ConcurrencyClaim::global()
                } else if rng.unit() < 0.5 {
                    read(&mut rng)
                } else {
                    write(&mut rng, 16)
                }
            }
        };
        calls.push(PlannedCall::new(format!("c{i}"), claim));
        // Durations in ms: 10 to 500, skewed toward short calls.
        durations.push(10.0 + 490.0 * rng.unit().powi(2));
    }
    (calls, durations)
}

/// The one-boolean baseline: runs of read-only calls batch together; any
/// other call runs alone.
fn one_boolean_groups(calls: &[PlannedCall]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut reads: Vec<usize> = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        if c.claim.is_shared() {
            reads.push(i);
        } else {
            if !reads.is_empty() {
                groups.push(std::mem::take(&mut reads));
            }
            groups.push(vec![i]);
        }
    }
    if !reads.is_empty() {
        groups.push(reads);
    }
    groups
}

fn time_us(samples: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    median(&mut t)
}

pub fn run() -> Result<(), String> {
    let mut result = Map::new();
    let (big, _) = workload("mixed", 10_000, 7);
    let partition_us = time_us(9, || {
        std::hint::black_box(partition_parallel_groups(&big).expect("valid batch"));
    });
    let scheduler_us = time_us(9, || {
        std::hint::black_box(Dag::build(&big).expect("valid batch"));
    });
    println!("planning 10,000 calls (mixed workload, median of 9)");
    println!("  contiguous partition  {partition_us:>10.0} us   (baseline)");
    println!("  scheduler DAG         {scheduler_us:>10.0} us");
    println!(
        "  ratio (scheduler / partition) {:.2}",
        scheduler_us / partition_us
    );
    result.insert("plan_10000_scheduler_us".into(), json!(r2(scheduler_us)));
    result.insert(
        "baseline_plan_10000_partition_us".into(),
        json!(r2(partition_us)),
    );
    result.insert(
        "ratio_plan_scheduler_vs_partition".into(),
        json!(r2(scheduler_us / partition_us)),
    );

    println!("\nsimulated makespan, 64 calls, seeded durations 10-500 ms (ratio to serial; lower is better)");
    println!(
        "  {:<16} {:>9} {:>12} {:>12} {:>12}",
        "workload", "serial ms", "one-boolean", "partition", "scheduler"
    );
    for kind in ["mostly_reads", "disjoint_writes", "mixed_with_shell"] {
        let (calls, d) = workload(kind, 64, 42);
        let serial: f64 = d.iter().sum();
        let boolean = partition_makespan(&one_boolean_groups(&calls), &d, None);
        let partition = partition_makespan(
            &partition_parallel_groups(&calls).map_err(|e| e.to_string())?,
            &d,
            None,
        );
        let dag = Dag::build(&calls).map_err(|e| e.to_string())?;
        let scheduler = simulate_scheduler(&dag, &d, None)
            .map_err(|e| e.to_string())?
            .makespan;
        println!(
            "  {kind:<16} {serial:>9.0} {:>12.3} {:>12.3} {:>12.3}",
            boolean / serial,
            partition / serial,
            scheduler / serial
        );
        result.insert(format!("{kind}_serial_ms"), json!(r2(serial)));
        result.insert(format!("{kind}_scheduler_ms"), json!(r2(scheduler)));
        result.insert(
            format!("baseline_{kind}_one_boolean_ms"),
            json!(r2(boolean)),
        );
        result.insert(
            format!("baseline_{kind}_partition_ms"),
            json!(r2(partition)),
        );
        result.insert(
            format!("ratio_{kind}_scheduler_to_serial"),
            json!(r2(scheduler / serial)),
        );
        result.insert(
            format!("ratio_{kind}_one_boolean_to_serial"),
            json!(r2(boolean / serial)),
        );
        result.insert(
            format!("ratio_{kind}_partition_to_serial"),
            json!(r2(partition / serial)),
        );
    }
    println!("RESULT {}", Value::Object(result));
    Ok(())
}
