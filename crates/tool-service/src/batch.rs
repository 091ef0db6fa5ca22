//! Batches: the calls of one model turn, planned by tool-concurrency's
//! scheduler and run on tokio, one result per call in the model's order.

use std::collections::HashMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;
use tool_concurrency::{claim_for, ConcurrencyClaim, Dag, Footprint, PlannedCall};
use tool_core::{CallContext, ToolCall, ToolError, ToolOutput, Violation};

use crate::limits::BudgetPool;
use crate::ScopedToolService;

/// One call of a batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchCall {
    /// The call id (unique in the batch).
    pub id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    /// The arguments.
    pub arguments: Value,
    /// Earlier call ids it depends on.
    #[serde(default)]
    pub depends_on: Vec<String>,
}

impl From<ToolCall> for BatchCall {
    fn from(call: ToolCall) -> Self {
        Self {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
            depends_on: Vec::new(),
        }
    }
}

/// The result of one call of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The call id.
    pub id: String,
    /// What happened.
    pub result: Result<ToolOutput, ToolError>,
}

/// The key under which a tool's [`Footprint`] is kept in its definition's
/// metadata.
pub const FOOTPRINT_KEY: &str = "footprint";

impl ScopedToolService {
    /// The concurrency claim of one call: the tool's declared footprint
    /// (metadata `"footprint"`) over this input, else from its facts.
    /// An unknown tool claims nothing (it will not run).
    pub fn claim_of(&self, name: &str, arguments: &Value) -> ConcurrencyClaim {
        match self.resolve(name) {
            Err(_) => ConcurrencyClaim::Shared,
            Ok((target, _)) => {
                let footprint: Option<Footprint> = target
                    .def
                    .metadata()
                    .get(FOOTPRINT_KEY)
                    .and_then(|v| serde_json::from_value(v.clone()).ok());
                if target.def.metadata().contains_key(FOOTPRINT_KEY) && footprint.is_none() {
                    // A footprint that does not parse is no footprint at all.
                    return ConcurrencyClaim::global();
                }
                claim_for(
                    target.def.facts().read_only(),
                    footprint.as_ref(),
                    arguments,
                    self.inner.cwd.as_deref(),
                )
            }
        }
    }

    /// Run a batch: each call waits only for the earlier calls it conflicts
    /// with and for its declared dependencies, under the cap on calls in
    /// flight. Returns exactly one result per call, in the model's order,
    /// whatever fails, panics, times out or is cancelled. Cancelling `ctx`
    /// gives cancelled results to calls not yet started and signals the
    /// running ones. A call whose dependency failed does not run.
    pub async fn execute_batch(&self, calls: Vec<BatchCall>, ctx: &CallContext) -> Vec<CallResult> {
        let planned: Vec<PlannedCall> = calls
            .iter()
            .map(|c| PlannedCall {
                id: c.id.clone(),
                claim: self.claim_of(&c.name, &c.arguments),
                depends_on: c.depends_on.clone(),
            })
            .collect();
        let dag = match Dag::build(&planned) {
            Ok(dag) => dag,
            Err(e) => return unplannable(calls, &e),
        };
        let mut queue = match dag.ready_queue(self.inner.limits.max_in_flight) {
            Ok(q) => q,
            Err(_) => dag
                .ready_queue(None)
                .expect("an uncapped queue always builds"),
        };
        let pool = self
            .inner
            .limits
            .output
            .shared_across_batch
            .then(|| BudgetPool::new(self.inner.limits.output.max_bytes));
        let index: HashMap<&str, usize> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.as_str(), i))
            .collect();
        let deps: Vec<Vec<usize>> = calls
            .iter()
            .map(|c| {
                c.depends_on
                    .iter()
                    .filter_map(|d| index.get(d.as_str()).copied())
                    .collect()
            })
            .collect();
        let mut results: Vec<Option<Result<ToolOutput, ToolError>>> = vec![None; calls.len()];
        let (tx, mut rx) = mpsc::unbounded_channel::<(usize, Result<ToolOutput, ToolError>)>();
        let started = Instant::now();
        let mut running = 0usize;
        loop {
            if !ctx.is_cancelled() {
                for i in queue.ready() {
                    running += 1;
                    let failed_dep = deps[i]
                        .iter()
                        .find(|&&d| !matches!(results[d], Some(Ok(_))));
                    if let Some(&d) = failed_dep {
                        let message =
                            format!("not run: its dependency `{}` did not succeed", calls[d].id);
                        let _ =
                            tx.send((i, Err(ToolError::execution(calls[i].name.clone(), message))));
                        continue;
                    }
                    self.start_call(
                        calls[i].clone(),
                        i,
                        ctx,
                        started.elapsed(),
                        pool.clone(),
                        tx.clone(),
                    );
                }
            }
            if running == 0 {
                break;
            }
            tokio::select! {
                biased;
                received = rx.recv() => {
                    let Some((i, result)) = received else { break };
                    running -= 1;
                    results[i] = Some(result);
                    let _ = queue.complete(i);
                }
                () = ctx.cancellation().cancelled(), if !queue.is_finished() && results.iter().any(Option::is_none) => {
                    for i in queue.cancel_pending() {
                        results[i] = Some(Err(ToolError::Cancelled { tool: calls[i].name.clone() }));
                    }
                    // Running calls see the cancelled parent token and report back.
                    if running == 0 {
                        break;
                    }
                    while running > 0 {
                        let Some((i, result)) = rx.recv().await else { break };
                        running -= 1;
                        results[i] = Some(result);
                        let _ = queue.complete(i);
                    }
                    break;
                }
            }
        }
        finish(calls, results)
    }

    /// Run one call of a batch on its own task; its result comes back on `tx`.
    fn start_call(
        &self,
        call: BatchCall,
        i: usize,
        ctx: &CallContext,
        waiting: std::time::Duration,
        pool: Option<BudgetPool>,
        tx: mpsc::UnboundedSender<(usize, Result<ToolOutput, ToolError>)>,
    ) {
        let service = self.clone();
        let call_ctx = ctx
            .for_call(call.id.clone())
            .with_cancellation(ctx.cancellation().child_token());
        tokio::spawn(async move {
            let result = service
                .execute_inner(
                    &call.id,
                    &call.name,
                    call.arguments,
                    &call_ctx,
                    waiting,
                    pool.as_ref(),
                )
                .await;
            let _ = tx.send((i, result));
        });
    }
}

/// One result per call, in order; a call that never got one was cancelled.
fn finish(
    calls: Vec<BatchCall>,
    results: Vec<Option<Result<ToolOutput, ToolError>>>,
) -> Vec<CallResult> {
    calls
        .into_iter()
        .zip(results)
        .map(|(c, r)| CallResult {
            result: r.unwrap_or_else(|| {
                Err(ToolError::Cancelled {
                    tool: c.name.clone(),
                })
            }),
            id: c.id,
        })
        .collect()
}

/// Every call fails alike when the batch cannot be planned (unknown
/// dependency, cycle, forward dependency, duplicate id).
fn unplannable(calls: Vec<BatchCall>, e: &tool_concurrency::PlanError) -> Vec<CallResult> {
    calls
        .into_iter()
        .map(|c| CallResult {
            result: Err(ToolError::InvalidArguments {
                tool: c.name,
                violations: vec![Violation::new(
                    "/depends_on",
                    format!("the batch cannot be planned: {e}"),
                )],
            }),
            id: c.id,
        })
        .collect()
}
