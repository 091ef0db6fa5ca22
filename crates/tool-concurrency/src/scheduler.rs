//! The conflict/dependency scheduler: a DAG in which each call waits only
//! for the earlier calls it conflicts with and for its declared
//! dependencies, driven through a ready-queue API by any executor.

use std::collections::{BTreeSet, HashMap};

use crate::batch::dependency_indices;
use crate::{PlanError, ScheduledCall};

/// The scheduling DAG of a batch: for each call, the earlier calls it must
/// wait for.
///
/// ```
/// use tool_concurrency::{ConcurrencyClaim, Dag, PlannedCall};
/// let calls = vec![
///     PlannedCall::new("w1", ConcurrencyClaim::paths(["a"], None)),
///     PlannedCall::new("w2", ConcurrencyClaim::paths(["b"], None)),
///     PlannedCall::new("w3", ConcurrencyClaim::paths(["a/x"], None)),
/// ];
/// let dag = Dag::build(&calls).unwrap();
/// assert_eq!(dag.waits_for(2), &[0]); // w3 waits only for w1, not w2
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dag {
    waits_for: Vec<Vec<usize>>,
}

impl Dag {
    /// Build the DAG. Every earlier conflicting call becomes a prerequisite,
    /// except that calls before the last `Global` call are reached through
    /// it (it waits for all of them), which keeps the graph small.
    pub fn build<C: ScheduledCall>(calls: &[C]) -> Result<Self, PlanError> {
        let deps = dependency_indices(calls)?;
        let mut waits_for = Vec::with_capacity(calls.len());
        let mut last_global: Option<usize> = None;
        let mut since_global: Vec<usize> = Vec::new();
        for (j, call) in calls.iter().enumerate() {
            let claim = call.claim();
            let mut pre: BTreeSet<usize> = deps[j].iter().copied().collect();
            if claim.is_global() {
                pre.extend(since_global.iter().copied());
                if since_global.is_empty() {
                    pre.extend(last_global);
                }
                last_global = Some(j);
                since_global.clear();
            } else {
                pre.extend(last_global);
                pre.extend(
                    since_global
                        .iter()
                        .copied()
                        .filter(|&i| calls[i].claim().conflicts_with(claim)),
                );
                since_global.push(j);
            }
            waits_for.push(pre.into_iter().collect());
        }
        Ok(Self { waits_for })
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.waits_for.len()
    }
    /// True when the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.waits_for.is_empty()
    }
    /// The calls call `i` waits for, ascending.
    pub fn waits_for(&self, i: usize) -> &[usize] {
        &self.waits_for[i]
    }
    /// A fresh ready queue over this DAG, with an optional cap on calls in
    /// flight.
    pub fn ready_queue(&self, cap: Option<usize>) -> Result<ReadyQueue, PlanError> {
        ReadyQueue::new(self, cap)
    }
}

/// The state of one call in a [`ReadyQueue`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallState {
    /// Waiting for prerequisites or for room under the cap.
    Pending,
    /// Handed out by `ready()`, not yet completed.
    Running,
    /// Completed (whatever its outcome).
    Done,
    /// Never started: the batch was cancelled.
    Cancelled,
}

impl CallState {
    fn name(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Done => "done",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The ready-queue an executor drives: take `ready()` calls, start them,
/// report each with `complete(i)`, repeat until `is_finished()`.
///
/// ```
/// use tool_concurrency::{ConcurrencyClaim, Dag, PlannedCall};
/// let calls = vec![
///     PlannedCall::new("w", ConcurrencyClaim::paths(["a"], None)),
///     PlannedCall::new("r", ConcurrencyClaim::shared_paths(["a"], None)),
///     PlannedCall::new("x", ConcurrencyClaim::shared_paths(["b"], None)),
/// ];
/// let mut queue = Dag::build(&calls).unwrap().ready_queue(None).unwrap();
/// assert_eq!(queue.ready(), vec![0, 2]);
/// queue.complete(0).unwrap();
/// assert_eq!(queue.ready(), vec![1]);
/// queue.complete(1).unwrap();
/// queue.complete(2).unwrap();
/// assert!(queue.is_finished());
/// ```
#[derive(Debug, Clone)]
pub struct ReadyQueue {
    dependents: Vec<Vec<usize>>,
    unmet: Vec<usize>,
    state: Vec<CallState>,
    ready: BTreeSet<usize>,
    in_flight: usize,
    cap: usize,
    settled: usize,
}

impl ReadyQueue {
    fn new(dag: &Dag, cap: Option<usize>) -> Result<Self, PlanError> {
        let cap = match cap {
            Some(0) => return Err(PlanError::ZeroCap),
            Some(c) => c,
            None => usize::MAX,
        };
        let n = dag.len();
        let mut dependents = vec![Vec::new(); n];
        let mut unmet = vec![0; n];
        for (j, pre) in dag.waits_for.iter().enumerate() {
            unmet[j] = pre.len();
            for &i in pre {
                dependents[i].push(j);
            }
        }
        let ready = (0..n).filter(|&j| unmet[j] == 0).collect();
        Ok(Self {
            dependents,
            unmet,
            state: vec![CallState::Pending; n],
            ready,
            in_flight: 0,
            cap,
            settled: 0,
        })
    }

    /// Calls that may start now, in model order, up to the cap; they are
    /// marked running.
    pub fn ready(&mut self) -> Vec<usize> {
        let room = self.cap.saturating_sub(self.in_flight);
        let take: Vec<usize> = self.ready.iter().copied().take(room).collect();
        for &i in &take {
            self.ready.remove(&i);
            self.state[i] = CallState::Running;
        }
        self.in_flight += take.len();
        take
    }

    /// Report a running call finished (success or failure alike).
    pub fn complete(&mut self, i: usize) -> Result<(), PlanError> {
        match self.state.get(i) {
            None => return Err(PlanError::UnknownCall { id: i.to_string() }),
            Some(CallState::Running) => {}
            Some(other) => {
                return Err(PlanError::NotRunning {
                    id: i.to_string(),
                    state: other.name(),
                })
            }
        }
        self.state[i] = CallState::Done;
        self.in_flight -= 1;
        self.settled += 1;
        for k in 0..self.dependents[i].len() {
            let j = self.dependents[i][k];
            self.unmet[j] -= 1;
            if self.unmet[j] == 0 && self.state[j] == CallState::Pending {
                self.ready.insert(j);
            }
        }
        Ok(())
    }

    /// Cancel every call not yet started; returns them in model order.
    /// Running calls still need `complete`.
    pub fn cancel_pending(&mut self) -> Vec<usize> {
        let cancelled: Vec<usize> = (0..self.state.len())
            .filter(|&i| self.state[i] == CallState::Pending)
            .collect();
        for &i in &cancelled {
            self.state[i] = CallState::Cancelled;
        }
        self.settled += cancelled.len();
        self.ready.clear();
        cancelled
    }

    /// The state of call `i`.
    pub fn state(&self, i: usize) -> Option<CallState> {
        self.state.get(i).copied()
    }
    /// Calls running now.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }
    /// True when every call is done or cancelled.
    pub fn is_finished(&self) -> bool {
        self.settled == self.state.len()
    }
}

/// The ready queue by call id, for executors that prefer ids to indices.
///
/// ```
/// use tool_concurrency::{ConcurrencyClaim, PlannedCall, Scheduler};
/// let calls = vec![
///     PlannedCall::new("a", ConcurrencyClaim::global()),
///     PlannedCall::new("b", ConcurrencyClaim::Shared),
/// ];
/// let mut s = Scheduler::new(&calls, Some(4)).unwrap();
/// assert_eq!(s.ready(), vec!["a".to_string()]);
/// s.complete(&"a".to_string()).unwrap();
/// assert_eq!(s.ready(), vec!["b".to_string()]);
/// ```
#[derive(Debug, Clone)]
pub struct Scheduler<Id> {
    ids: Vec<Id>,
    index: HashMap<Id, usize>,
    queue: ReadyQueue,
}

impl<Id: Clone + Eq + std::hash::Hash + std::fmt::Display> Scheduler<Id> {
    /// Plan `calls` with an optional cap on calls in flight.
    pub fn new<C: ScheduledCall<Id = Id>>(
        calls: &[C],
        cap: Option<usize>,
    ) -> Result<Self, PlanError> {
        let dag = Dag::build(calls)?;
        let ids: Vec<Id> = calls.iter().map(|c| c.id().clone()).collect();
        let index = ids
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, id)| (id, i))
            .collect();
        Ok(Self {
            ids,
            index,
            queue: dag.ready_queue(cap)?,
        })
    }
    /// Ids that may start now (marked running).
    pub fn ready(&mut self) -> Vec<Id> {
        self.queue
            .ready()
            .into_iter()
            .map(|i| self.ids[i].clone())
            .collect()
    }
    /// Report a running call finished.
    pub fn complete(&mut self, id: &Id) -> Result<(), PlanError> {
        let i = *self
            .index
            .get(id)
            .ok_or_else(|| PlanError::UnknownCall { id: id.to_string() })?;
        self.queue.complete(i).map_err(|e| match e {
            PlanError::NotRunning { state, .. } => PlanError::NotRunning {
                id: id.to_string(),
                state,
            },
            other => other,
        })
    }
    /// Cancel every call not yet started; their ids in model order.
    pub fn cancel_pending(&mut self) -> Vec<Id> {
        self.queue
            .cancel_pending()
            .into_iter()
            .map(|i| self.ids[i].clone())
            .collect()
    }
    /// True when every call is done or cancelled.
    pub fn is_finished(&self) -> bool {
        self.queue.is_finished()
    }
    /// Calls running now.
    pub fn in_flight(&self) -> usize {
        self.queue.in_flight()
    }
}

/// The run intervals and makespan of a simulated execution.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    /// When everything finished.
    pub makespan: f64,
    /// (start, end) of each call, by index.
    pub intervals: Vec<(f64, f64)>,
}

/// Simulate the scheduler with the given durations, driving the real
/// [`ReadyQueue`] (so the simulation tests the API executors use).
pub fn simulate_scheduler(
    dag: &Dag,
    durations: &[f64],
    cap: Option<usize>,
) -> Result<Simulation, PlanError> {
    let mut queue = dag.ready_queue(cap)?;
    let mut intervals = vec![(0.0, 0.0); dag.len()];
    let mut running: Vec<(f64, usize)> = Vec::new();
    let mut now = 0.0f64;
    loop {
        for i in queue.ready() {
            intervals[i] = (now, now + durations[i]);
            running.push((now + durations[i], i));
        }
        // Finish the earliest (ties: model order), then hand out more.
        let Some(pos) = running
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(a.1 .1.cmp(&b.1 .1)))
            .map(|(p, _)| p)
        else {
            break;
        };
        let (end, i) = running.swap_remove(pos);
        now = now.max(end);
        queue.complete(i)?;
    }
    Ok(Simulation {
        makespan: now,
        intervals,
    })
}

/// Makespan of the contiguous partition: groups one after another, each
/// as long as its longest call (with a cap, calls of a group start in model
/// order as room frees up).
pub fn partition_makespan(groups: &[Vec<usize>], durations: &[f64], cap: Option<usize>) -> f64 {
    groups
        .iter()
        .map(|group| match cap {
            None => group.iter().map(|&i| durations[i]).fold(0.0, f64::max),
            Some(cap) => {
                let mut lanes = vec![0.0f64; cap.max(1)];
                for &i in group {
                    let lane = lanes
                        .iter_mut()
                        .min_by(|a, b| a.total_cmp(b))
                        .expect("at least one lane");
                    *lane += durations[i];
                }
                lanes.into_iter().fold(0.0, f64::max)
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConcurrencyClaim, PlannedCall};

    #[test]
    fn misuse_is_a_typed_error() {
        let calls = [PlannedCall::new("a", ConcurrencyClaim::Shared)];
        let mut q = Dag::build(&calls).unwrap().ready_queue(None).unwrap();
        assert_eq!(
            q.complete(0).unwrap_err().kind(),
            crate::PlanErrorKind::NotRunning
        );
        assert_eq!(
            q.complete(7).unwrap_err().kind(),
            crate::PlanErrorKind::UnknownCall
        );
        assert_eq!(
            Dag::build(&calls)
                .unwrap()
                .ready_queue(Some(0))
                .unwrap_err(),
            PlanError::ZeroCap
        );
    }

    #[test]
    fn cap_limits_calls_in_flight() {
        let calls: Vec<_> = (0..5)
            .map(|i| PlannedCall::new(i.to_string(), ConcurrencyClaim::Shared))
            .collect();
        let mut q = Dag::build(&calls).unwrap().ready_queue(Some(2)).unwrap();
        assert_eq!(q.ready(), vec![0, 1]);
        assert!(q.ready().is_empty());
        q.complete(1).unwrap();
        assert_eq!(q.ready(), vec![2]);
    }

    #[test]
    fn cancel_pending_leaves_running_calls() {
        let calls = [
            PlannedCall::new("a", ConcurrencyClaim::global()),
            PlannedCall::new("b", ConcurrencyClaim::Shared),
        ];
        let mut q = Dag::build(&calls).unwrap().ready_queue(None).unwrap();
        assert_eq!(q.ready(), vec![0]);
        assert_eq!(q.cancel_pending(), vec![1]);
        assert!(!q.is_finished());
        q.complete(0).unwrap();
        assert!(q.is_finished());
        assert!(q.ready().is_empty());
    }

    #[test]
    fn global_waits_for_everything_before_it() {
        let calls = [
            PlannedCall::new("a", ConcurrencyClaim::Shared),
            PlannedCall::new("b", ConcurrencyClaim::paths(["x"], None)),
            PlannedCall::new("g", ConcurrencyClaim::global()),
            PlannedCall::new("c", ConcurrencyClaim::Shared),
        ];
        let dag = Dag::build(&calls).unwrap();
        assert_eq!(dag.waits_for(2), &[0, 1]);
        assert_eq!(dag.waits_for(3), &[2]);
    }
}
