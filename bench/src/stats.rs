//! Timing helpers: medians over repeated samples (the machine is noisy).

use std::time::Instant;

/// Run `f` `iters` times per sample, `samples` times; the median time per
/// iteration in nanoseconds.
pub fn median_ns_per_iter(samples: usize, iters: usize, mut f: impl FnMut()) -> f64 {
    let mut per_iter: Vec<f64> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    median(&mut per_iter)
}

/// The median of a list (sorted in place).
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        f64::midpoint(values[n / 2 - 1], values[n / 2])
    }
}

/// Round to two decimals for the RESULT line.
pub fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
