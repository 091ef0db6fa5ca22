//! The invariants of tool-concurrency, each its own property test.

use proptest::prelude::*;
use tool_concurrency::{
    partition_makespan, partition_parallel_groups, simulate_scheduler, ClaimPath, ConcurrencyClaim,
    Dag, PlannedCall,
};

const PATHS: &[&str] = &["a", "a/b", "a/b/c", "ab", "b", "c/d", "/abs/x", "."];
const NAMES: &[&str] = &["n1", "n2", "n3"];

fn arb_claim() -> impl Strategy<Value = ConcurrencyClaim> {
    let paths = proptest::sample::subsequence(PATHS, 1..3);
    let names = proptest::sample::subsequence(NAMES, 1..3);
    prop_oneof![
        3 => Just(ConcurrencyClaim::Shared),
        3 => paths.clone().prop_map(|p| ConcurrencyClaim::shared_paths(p, None)),
        1 => Just(ConcurrencyClaim::global()),
        3 => paths.prop_map(|p| ConcurrencyClaim::paths(p, None)),
        1 => names.clone().prop_map(ConcurrencyClaim::nodes),
        1 => names.prop_map(ConcurrencyClaim::sessions),
    ]
}

/// A batch: claims, dependencies on earlier calls, durations.
fn arb_batch() -> impl Strategy<Value = (Vec<PlannedCall>, Vec<f64>)> {
    proptest::collection::vec(
        (
            arb_claim(),
            proptest::collection::vec(any::<prop::sample::Index>(), 0..2),
            any::<bool>(),
            0.1f64..10.0,
        ),
        0..14,
    )
    .prop_map(|items| {
        let mut calls = Vec::new();
        let mut durations = Vec::new();
        for (i, (claim, deps, use_deps, d)) in items.into_iter().enumerate() {
            let mut call = PlannedCall::new(format!("c{i}"), claim);
            if use_deps && i > 0 {
                let mut ds: Vec<String> = deps.iter().map(|x| format!("c{}", x.index(i))).collect();
                ds.sort();
                ds.dedup();
                call = call.after(ds);
            }
            calls.push(call);
            durations.push(d);
        }
        (calls, durations)
    })
}

fn conflict(calls: &[PlannedCall], i: usize, j: usize) -> bool {
    calls[i].claim.conflicts_with(&calls[j].claim)
}

fn depends(calls: &[PlannedCall], later: usize, earlier: usize) -> bool {
    calls[later].depends_on.contains(&calls[earlier].id)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_two_conflicting_calls_are_ever_in_flight_together(
        (calls, _) in arb_batch(),
        cap in proptest::option::of(1usize..4),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 64),
    ) {
        let dag = Dag::build(&calls).unwrap();
        let mut queue = dag.ready_queue(cap).unwrap();
        let mut running: Vec<usize> = Vec::new();
        let mut done = vec![false; calls.len()];
        let mut picks = picks.into_iter().cycle();
        loop {
            running.extend(queue.ready());
            if let Some(cap) = cap {
                prop_assert!(running.len() <= cap);
            }
            for (x, &i) in running.iter().enumerate() {
                for &j in &running[x + 1..] {
                    prop_assert!(!conflict(&calls, i, j), "{} and {} in flight together", calls[i].id, calls[j].id);
                }
                for dep in &calls[i].depends_on {
                    let d = calls.iter().position(|c| &c.id == dep).unwrap();
                    prop_assert!(done[d], "{} started before its dependency {}", calls[i].id, dep);
                }
            }
            if running.is_empty() {
                break;
            }
            // Complete a random running call: executors finish out of order.
            let k = picks.next().unwrap().index(running.len());
            let i = running.swap_remove(k);
            queue.complete(i).unwrap();
            done[i] = true;
        }
        prop_assert!(queue.is_finished());
        prop_assert!(done.iter().all(|d| *d));
    }

    #[test]
    fn for_every_conflicting_pair_the_earlier_call_finishes_before_the_later_starts(
        (calls, durations) in arb_batch(),
        cap in proptest::option::of(1usize..4),
    ) {
        let dag = Dag::build(&calls).unwrap();
        let sim = simulate_scheduler(&dag, &durations, cap).unwrap();
        for j in 0..calls.len() {
            for i in 0..j {
                if conflict(&calls, i, j) || depends(&calls, j, i) {
                    prop_assert!(sim.intervals[i].1 <= sim.intervals[j].0,
                        "{} ends at {} but {} starts at {}", calls[i].id, sim.intervals[i].1, calls[j].id, sim.intervals[j].0);
                }
            }
        }
    }

    #[test]
    fn scheduler_makespan_is_never_longer_than_the_partitions((calls, durations) in arb_batch()) {
        let dag = Dag::build(&calls).unwrap();
        let groups = partition_parallel_groups(&calls).unwrap();
        let scheduler = simulate_scheduler(&dag, &durations, None).unwrap().makespan;
        let partition = partition_makespan(&groups, &durations, None);
        prop_assert!(scheduler <= partition + 1e-9, "scheduler {scheduler} > partition {partition}");
    }

    #[test]
    fn partition_groups_are_maximal_and_contiguous((calls, _) in arb_batch()) {
        let groups = partition_parallel_groups(&calls).unwrap();
        let flat: Vec<usize> = groups.iter().flatten().copied().collect();
        prop_assert_eq!(flat, (0..calls.len()).collect::<Vec<_>>());
        for pair in groups.windows(2) {
            let first = pair[1][0];
            prop_assert!(pair[0].iter().any(|&i| conflict(&calls, i, first) || depends(&calls, first, i)),
                "group starting at {} could have joined the previous one", calls[first].id);
        }
        for group in &groups {
            for (x, &i) in group.iter().enumerate() {
                for &j in &group[x + 1..] {
                    prop_assert!(!conflict(&calls, i, j));
                }
            }
        }
    }

    #[test]
    fn conflicts_are_symmetric(a in arb_claim(), b in arb_claim()) {
        prop_assert_eq!(a.conflicts_with(&b), b.conflicts_with(&a));
    }

    #[test]
    fn normalisation_is_idempotent(s in "[ab./]{0,20}", cwd in proptest::option::of("/[ab./]{0,8}")) {
        if let Ok(once) = ClaimPath::parse(&s, cwd.as_deref()) {
            prop_assert_eq!(ClaimPath::parse(&once.to_string(), None).unwrap(), once);
        }
    }

    #[test]
    fn a_path_and_any_path_below_it_always_conflict_under_exclusive_claims(
        base in "[a-c]{1,3}(/[a-c]{1,3}){0,3}",
        below in "[a-c]{1,3}(/[a-c]{1,3}){0,3}",
        read_below in any::<bool>(),
    ) {
        let child = format!("{base}/{below}");
        let parent = ConcurrencyClaim::paths([base.as_str()], Some("/w"));
        prop_assert!(parent.conflicts_with(&ConcurrencyClaim::paths([child.as_str()], Some("/w"))));
        if read_below {
            prop_assert!(parent.conflicts_with(&ConcurrencyClaim::shared_paths([child.as_str()], Some("/w"))));
        }
        prop_assert!(ConcurrencyClaim::paths([child.as_str()], Some("/w")).conflicts_with(&parent));
    }

    #[test]
    fn bad_paths_never_degrade_toward_shared(s in "[a./\\x00]{0,12}") {
        let claim = ConcurrencyClaim::shared_paths([s.as_str()], None);
        if ClaimPath::parse(&s, None).is_err() {
            prop_assert!(claim.is_global());
        }
    }
}
