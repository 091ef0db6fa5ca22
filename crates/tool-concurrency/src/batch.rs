//! Batches of calls: dependency checks, the contiguous partition and the
//! depth-stage view.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

use serde::{Deserialize, Serialize};

use crate::{ConcurrencyClaim, PlanError};

/// What the planner needs of a call; implement it for your own call type.
pub trait ScheduledCall {
    /// The call's id type.
    type Id: Clone + Eq + Hash + fmt::Display;
    /// The call's id, unique in its batch.
    fn id(&self) -> &Self::Id;
    /// What it touches.
    fn claim(&self) -> &ConcurrencyClaim;
    /// Ids of earlier calls it must wait for.
    fn depends_on(&self) -> &[Self::Id];
}

/// A ready-made call type: id, claim, dependencies.
///
/// ```
/// use tool_concurrency::{partition_parallel_groups, ConcurrencyClaim, PlannedCall};
/// let calls = vec![
///     PlannedCall::new("r1", ConcurrencyClaim::Shared),
///     PlannedCall::new("r2", ConcurrencyClaim::Shared),
///     PlannedCall::new("w", ConcurrencyClaim::paths(["a.txt"], None)),
/// ];
/// assert_eq!(partition_parallel_groups(&calls).unwrap(), vec![vec![0, 1], vec![2]]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedCall {
    /// The id.
    pub id: String,
    /// The claim.
    pub claim: ConcurrencyClaim,
    /// Earlier calls it waits for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
}

impl PlannedCall {
    /// A call with no dependencies.
    pub fn new(id: impl Into<String>, claim: ConcurrencyClaim) -> Self {
        Self {
            id: id.into(),
            claim,
            depends_on: Vec::new(),
        }
    }
    /// Add dependencies.
    pub fn after<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.depends_on.extend(ids.into_iter().map(Into::into));
        self
    }
}

impl ScheduledCall for PlannedCall {
    type Id = String;
    fn id(&self) -> &String {
        &self.id
    }
    fn claim(&self) -> &ConcurrencyClaim {
        &self.claim
    }
    fn depends_on(&self) -> &[String] {
        &self.depends_on
    }
}

/// Check ids and dependencies; the dependencies of each call as indices.
/// Errors: duplicate ids, unknown ids, cycles (named in order), and
/// dependencies on later calls.
pub fn dependency_indices<C: ScheduledCall>(calls: &[C]) -> Result<Vec<Vec<usize>>, PlanError> {
    let mut index = HashMap::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        if index.insert(call.id().clone(), i).is_some() {
            return Err(PlanError::DuplicateId {
                id: call.id().to_string(),
            });
        }
    }
    let deps = calls
        .iter()
        .map(|call| {
            call.depends_on()
                .iter()
                .map(|d| {
                    index
                        .get(d)
                        .copied()
                        .ok_or_else(|| PlanError::UnknownDependency {
                            call: call.id().to_string(),
                            missing: d.to_string(),
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(cycle) = find_cycle(&deps) {
        return Err(PlanError::Cycle {
            ids: cycle
                .into_iter()
                .map(|i| calls[i].id().to_string())
                .collect(),
        });
    }
    for (i, ds) in deps.iter().enumerate() {
        if let Some(&later) = ds.iter().find(|&&d| d >= i) {
            return Err(PlanError::ForwardDependency {
                call: calls[i].id().to_string(),
                depends_on: calls[later].id().to_string(),
            });
        }
    }
    Ok(deps)
}

/// A cycle in the dependency graph, as indices with the first repeated at
/// the end. Iterative depth-first search: no recursion on hostile input.
fn find_cycle(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; deps.len()];
    for start in 0..deps.len() {
        if mark[start] != Mark::New {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        mark[start] = Mark::Open;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    Mark::New => {
                        mark[dep] = Mark::Open;
                        stack.push((dep, 0));
                    }
                    Mark::Open => {
                        let from = stack.iter().position(|&(n, _)| n == dep).unwrap_or(0);
                        let mut cycle: Vec<usize> = stack[from..].iter().map(|&(n, _)| n).collect();
                        cycle.push(dep);
                        // Report in "waits for" order reversed: a -> b means a before b.
                        cycle.reverse();
                        return Some(cycle);
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    None
}

/// The seed rule, exactly: walk left to right and start a new group when
/// the next call conflicts with (or depends on) any member of the current
/// group. Groups are contiguous, keep the model's order, and run one after
/// another; calls inside a group run concurrently. Returns indices.
pub fn partition_parallel_groups<C: ScheduledCall>(
    calls: &[C],
) -> Result<Vec<Vec<usize>>, PlanError> {
    let deps = dependency_indices(calls)?;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for (j, call) in calls.iter().enumerate() {
        let blocked = current
            .iter()
            .any(|&i| deps[j].contains(&i) || calls[i].claim().conflicts_with(call.claim()));
        if blocked {
            groups.push(std::mem::take(&mut current));
        }
        current.push(j);
    }
    if !current.is_empty() {
        groups.push(current);
    }
    Ok(groups)
}

/// Stages by dependency depth (conflicts ignored), as a workflow engine
/// would run them: stage 0 has no dependencies, stage n depends on stage
/// n-1 at most. Returns indices.
///
/// ```
/// use tool_concurrency::{dependency_stages, ConcurrencyClaim, PlannedCall};
/// let calls = vec![
///     PlannedCall::new("a", ConcurrencyClaim::Shared),
///     PlannedCall::new("b", ConcurrencyClaim::Shared).after(["a"]),
///     PlannedCall::new("c", ConcurrencyClaim::Shared),
/// ];
/// assert_eq!(dependency_stages(&calls).unwrap(), vec![vec![0, 2], vec![1]]);
/// ```
pub fn dependency_stages<C: ScheduledCall>(calls: &[C]) -> Result<Vec<Vec<usize>>, PlanError> {
    let deps = dependency_indices(calls)?;
    let mut depth = vec![0usize; calls.len()];
    let mut stages: Vec<Vec<usize>> = Vec::new();
    for j in 0..calls.len() {
        depth[j] = deps[j].iter().map(|&d| depth[d] + 1).max().unwrap_or(0);
        if stages.len() <= depth[j] {
            stages.resize_with(depth[j] + 1, Vec::new);
        }
        stages[depth[j]].push(j);
    }
    Ok(stages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(id: &str) -> PlannedCall {
        PlannedCall::new(id, ConcurrencyClaim::Shared)
    }

    #[test]
    fn errors_name_the_ids() {
        let dup = [shared("a"), shared("a")];
        assert_eq!(
            dependency_indices(&dup).unwrap_err(),
            PlanError::DuplicateId { id: "a".into() }
        );
        let unknown = [shared("a").after(["zz"])];
        assert!(dependency_indices(&unknown)
            .unwrap_err()
            .to_string()
            .contains("zz"));
        let cycle = [shared("a").after(["b"]), shared("b").after(["a"])];
        let err = dependency_indices(&cycle).unwrap_err();
        assert_eq!(err.kind(), crate::PlanErrorKind::Cycle, "{err}");
        assert!(err.to_string().contains('a') && err.to_string().contains('b'));
        let selfdep = [shared("a").after(["a"])];
        assert_eq!(
            dependency_indices(&selfdep).unwrap_err().kind(),
            crate::PlanErrorKind::Cycle
        );
        let forward = [shared("a").after(["b"]), shared("b")];
        assert_eq!(
            dependency_indices(&forward).unwrap_err().kind(),
            crate::PlanErrorKind::ForwardDependency
        );
    }

    #[test]
    fn dependency_starts_a_new_group() {
        let calls = [shared("a"), shared("b").after(["a"])];
        assert_eq!(
            partition_parallel_groups(&calls).unwrap(),
            vec![vec![0], vec![1]]
        );
    }
}
