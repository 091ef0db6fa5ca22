//! Serde in, plan out: a batch of calls with their claims becomes the
//! contiguous partition, the scheduler's DAG, the dependency stages and,
//! given durations, the simulated makespans.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use crate::scheduler::{partition_makespan, simulate_scheduler};
use crate::{
    dependency_stages, partition_parallel_groups, ClaimSpec, ConcurrencyClaim, Dag, PlanError,
    PlannedCall,
};

/// One call of a batch file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSpec {
    /// The call id.
    pub id: String,
    /// Its claim (see [`ClaimSpec`]).
    pub claim: ClaimSpec,
    /// Earlier call ids it depends on.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// How long it runs, in any unit, for the simulated makespans.
    #[serde(default)]
    pub duration: Option<f64>,
}

/// A batch of calls: `{"cwd": "/w", "calls": [...]}`.
///
/// ```
/// use tool_concurrency::BatchSpec;
/// let batch: BatchSpec = serde_json::from_str(r#"{
///   "cwd": "/w",
///   "calls": [
///     {"id": "r", "claim": {"shared": ["docs"]}, "duration": 1},
///     {"id": "w1", "claim": {"paths": ["a.txt"]}, "duration": 1},
///     {"id": "w2", "claim": {"paths": ["/w/b.txt"]}, "duration": 3},
///     {"id": "w3", "claim": {"paths": ["a.txt"]}, "duration": 1, "depends_on": ["r"]}
///   ]
/// }"#).unwrap();
/// let plan = batch.plan(None).unwrap();
/// assert_eq!(plan.groups, vec![vec!["r", "w1", "w2"], vec!["w3"]]);
/// let m = plan.makespan.unwrap();
/// // w3 waits only for r and w1, not for the long write of b.txt.
/// assert_eq!((m.serial, m.partition, m.scheduler), (6.0, 4.0, 3.0));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchSpec {
    /// Working directory for relative paths.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The calls, in the model's order.
    pub calls: Vec<CallSpec>,
}

/// Simulated makespans of one batch.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Makespan {
    /// Every call one after another.
    pub serial: f64,
    /// The contiguous partition.
    pub partition: f64,
    /// The conflict/dependency scheduler.
    pub scheduler: f64,
}

/// A plan: what runs together, what waits for what.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The contiguous partition, as call ids.
    pub groups: Vec<Vec<String>>,
    /// For each call (model order), the ids it waits for.
    #[serde(serialize_with = "ordered_map")]
    pub dag: Vec<(String, Vec<String>)>,
    /// Dependency-depth stages, as call ids.
    pub stages: Vec<Vec<String>>,
    /// Each call's claim after normalisation.
    #[serde(serialize_with = "ordered_map")]
    pub claims: Vec<(String, ConcurrencyClaim)>,
    /// Makespans, when every call has a duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub makespan: Option<Makespan>,
}

fn ordered_map<S: Serializer, V: Serialize>(
    entries: &[(String, V)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

impl BatchSpec {
    /// The calls with claims normalised against `cwd`.
    pub fn planned_calls(&self) -> Vec<PlannedCall> {
        self.calls
            .iter()
            .map(|c| PlannedCall {
                id: c.id.clone(),
                claim: c.claim.resolve(self.cwd.as_deref()),
                depends_on: c.depends_on.clone(),
            })
            .collect()
    }

    /// Durations, if every call has one; an error names a call with a bad
    /// or missing one when some do.
    pub fn durations(&self) -> Result<Option<Vec<f64>>, PlanError> {
        if self.calls.iter().all(|c| c.duration.is_none()) {
            return Ok(None);
        }
        self.calls
            .iter()
            .map(|c| match c.duration {
                None => Err(PlanError::InvalidDuration {
                    id: c.id.clone(),
                    reason: "has no duration while other calls do".into(),
                }),
                Some(d) if !d.is_finite() || d < 0.0 => Err(PlanError::InvalidDuration {
                    id: c.id.clone(),
                    reason: format!("duration {d} is not a finite, non-negative number"),
                }),
                Some(d) => Ok(d),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// Plan the batch with an optional cap on calls in flight.
    pub fn plan(&self, cap: Option<usize>) -> Result<Plan, PlanError> {
        let calls = self.planned_calls();
        let ids = |idx: &[usize]| idx.iter().map(|&i| calls[i].id.clone()).collect::<Vec<_>>();
        let group_idx = partition_parallel_groups(&calls)?;
        let dag = Dag::build(&calls)?;
        let stages = dependency_stages(&calls)?;
        let makespan = match self.durations()? {
            None => None,
            Some(d) => Some(Makespan {
                serial: d.iter().sum(),
                partition: partition_makespan(&group_idx, &d, cap),
                scheduler: simulate_scheduler(&dag, &d, cap)?.makespan,
            }),
        };
        Ok(Plan {
            groups: group_idx.iter().map(|g| ids(g)).collect(),
            dag: (0..calls.len())
                .map(|i| (calls[i].id.clone(), ids(dag.waits_for(i))))
                .collect(),
            stages: stages.iter().map(|s| ids(s)).collect(),
            claims: calls
                .iter()
                .map(|c| (c.id.clone(), c.claim.clone()))
                .collect(),
            makespan,
        })
    }
}
