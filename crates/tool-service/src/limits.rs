//! Limits of a scoped service: timeouts, output budget, retries, batch cap.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tool_core::{Content, ErrorKind, ToolError, ToolOutput, ValidationLimits};

/// What happens to output over the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overflow {
    /// Cut the middle out, with a marker saying how much was cut.
    Truncate,
    /// Write the whole output to a file under this folder; the model is
    /// told the path and shown the head.
    Spill(PathBuf),
}

/// The output budget, in bytes of content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputBudget {
    /// Bytes per call.
    pub max_bytes: usize,
    /// What to do past it.
    pub overflow: Overflow,
    /// Share one budget across a batch (each call gets at most what is
    /// left of `max_bytes * batch_share_factor`).
    pub shared_across_batch: bool,
}

impl Default for OutputBudget {
    fn default() -> Self {
        Self {
            max_bytes: 64 * 1024,
            overflow: Overflow::Truncate,
            shared_across_batch: false,
        }
    }
}

/// Retries by error kind, with exponential backoff and full jitter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all (1 means no retry).
    pub max_attempts: u32,
    /// First backoff.
    pub base_delay: Duration,
    /// Longest backoff.
    pub max_delay: Duration,
    /// Kinds worth retrying.
    pub retry_on: Vec<ErrorKind>,
    /// Retry tools that are not known to be idempotent too.
    pub retry_non_idempotent: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(2),
            retry_on: vec![
                ErrorKind::Timeout,
                ErrorKind::Transport,
                ErrorKind::Execution,
            ],
            retry_non_idempotent: false,
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Whether to try again after `err` on attempt `attempt` (1-based).
    pub fn should_retry(&self, err: &ToolError, attempt: u32, idempotent: bool) -> bool {
        attempt < self.max_attempts
            && err.is_retryable()
            && self.retry_on.contains(&err.kind())
            && (idempotent || self.retry_non_idempotent)
    }

    /// Backoff before attempt `attempt + 1`: full jitter over
    /// `base * 2^(attempt-1)`, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        let cap = exp.min(self.max_delay);
        cap.mul_f64(fastrand::f64())
    }
}

/// Every limit of a scoped service.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Deadline of one call (the call context's own deadline also holds).
    pub call_timeout: Duration,
    /// How long the approval gate waits.
    pub approval_timeout: Duration,
    /// Output budget.
    pub output: OutputBudget,
    /// Default retry policy.
    pub retry: RetryPolicy,
    /// Per-tool retry policies.
    pub retry_per_tool: HashMap<String, RetryPolicy>,
    /// Cap on calls in flight in a batch.
    pub max_in_flight: Option<usize>,
    /// Argument size and depth limits.
    pub validation: ValidationLimits,
    /// Coerce arguments toward the schema before validating (text backends).
    pub lax_arguments: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(120),
            approval_timeout: Duration::from_secs(300),
            output: OutputBudget::default(),
            retry: RetryPolicy::default(),
            retry_per_tool: HashMap::new(),
            max_in_flight: None,
            validation: ValidationLimits::default(),
            lax_arguments: false,
        }
    }
}

impl Limits {
    /// The retry policy of one tool.
    pub fn retry_for(&self, tool: &str) -> &RetryPolicy {
        self.retry_per_tool.get(tool).unwrap_or(&self.retry)
    }
}

/// Bytes left in a batch's shared budget.
#[derive(Debug, Clone)]
pub struct BudgetPool {
    left: Arc<AtomicUsize>,
}

impl BudgetPool {
    /// A pool of `bytes`.
    pub fn new(bytes: usize) -> Self {
        Self {
            left: Arc::new(AtomicUsize::new(bytes)),
        }
    }
    /// Bytes left.
    pub fn left(&self) -> usize {
        self.left.load(Ordering::SeqCst)
    }
    fn take(&self, bytes: usize) {
        let _ = self
            .left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |l| {
                Some(l.saturating_sub(bytes))
            });
    }
}

fn cut_middle(text: &str, keep: usize) -> String {
    if text.len() <= keep {
        return text.to_owned();
    }
    let mut head_end = keep / 2;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - (keep - head_end);
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let cut = tail_start - head_end;
    format!(
        "{}\n[... {cut} bytes cut from the middle ...]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// Apply the budget to an output. Returns the (possibly shortened)
/// output; spilling writes the full text to `dir/<call_id>.txt`.
pub(crate) async fn apply_budget(
    output: ToolOutput,
    call_id: &str,
    budget: &OutputBudget,
    pool: Option<&BudgetPool>,
) -> Result<ToolOutput, ToolError> {
    let allowed = pool.map_or(budget.max_bytes, |p| p.left().min(budget.max_bytes));
    let size = output.content_len();
    if size <= allowed {
        if let Some(p) = pool {
            p.take(size);
        }
        return Ok(output);
    }
    let text = output.to_text();
    let shown = match &budget.overflow {
        Overflow::Truncate => cut_middle(&text, allowed),
        Overflow::Spill(dir) => {
            let safe: String = call_id
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{safe}.txt"));
            tokio::fs::create_dir_all(dir).await.map_err(|e| {
                ToolError::execution(
                    "output budget",
                    format!("cannot create {}: {e}", dir.display()),
                )
            })?;
            tokio::fs::write(&path, &text).await.map_err(|e| {
                ToolError::execution(
                    "output budget",
                    format!("cannot write {}: {e}", path.display()),
                )
            })?;
            let mut head_end = allowed.min(text.len());
            while !text.is_char_boundary(head_end) {
                head_end -= 1;
            }
            format!(
                "{}\n[... output was {size} bytes; the rest is in {} ...]",
                &text[..head_end],
                path.display()
            )
        }
    };
    if let Some(p) = pool {
        p.take(shown.len());
    }
    Ok(ToolOutput {
        content: vec![Content::Text { text: shown }],
        structured: output.structured,
        metadata: output.metadata,
        is_error: output.is_error,
    }
    .with_metadata("original_bytes", serde_json::json!(size)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_keeps_head_and_tail_and_says_how_much() {
        let out = cut_middle(&format!("{}{}", "a".repeat(50), "b".repeat(50)), 20);
        assert!(out.starts_with("aaaaaaaaaa\n[... 80 bytes cut"), "{out}");
        assert!(out.ends_with("bbbbbbbbbb"));
    }

    #[test]
    fn backoff_is_capped() {
        let r = RetryPolicy::default();
        for attempt in 1..20 {
            assert!(r.backoff(attempt) <= r.max_delay);
        }
    }
}
