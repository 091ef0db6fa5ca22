//! The invariants of tool-registry, each its own property test, plus the
//! catalog's behaviours end to end.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use proptest::prelude::*;
use tool_core::{validate_tool_name, FnTool, SharedTool, ToolOutput, ToolSource};
use tool_registry::{
    constructor, flatten_name, Activation, BuiltinSpec, CatalogWarning, Health, Preset,
    RegistrationHandle, RegistryErrorKind, SourceConfig, SourceProbe, ToolCatalog, ToolShed,
};

fn tool(name: &str, tag: &str) -> SharedTool {
    FnTool::builder(name, tag)
        .handler(|_, _| async { Ok(ToolOutput::text("ok")) })
        .unwrap()
}

const PLACEMENTS: &[&str] = &["p0", "p1", "p2"];
const NAMES: &[&str] = &["alpha", "beta", "gamma"];

#[derive(Debug, Clone)]
enum Op {
    Register(usize, usize),
    Close(prop::sample::Index),
    Snapshot,
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..PLACEMENTS.len(), 0..NAMES.len()).prop_map(|(p, n)| Op::Register(p, n)),
        3 => any::<prop::sample::Index>().prop_map(Op::Close),
        1 => Just(Op::Snapshot),
    ]
}

fn catalog() -> ToolCatalog {
    let c = ToolCatalog::new();
    for p in PLACEMENTS {
        c.add_source(SourceConfig::new(
            *p,
            ToolSource::Plugin { name: (*p).into() },
        ))
        .unwrap();
    }
    c
}

/// The reference model: per (placement, name) a stack of registration
/// tags; the visible tool of a name is the top of the first placement (in
/// order) that has one.
fn reference_visible(
    stacks: &BTreeMap<(usize, usize), Vec<String>>,
) -> HashMap<&'static str, String> {
    let mut out = HashMap::new();
    for (n, name) in NAMES.iter().enumerate() {
        for p in 0..PLACEMENTS.len() {
            if let Some(top) = stacks.get(&(p, n)).and_then(|s| s.last()) {
                out.insert(*name, top.clone());
                break;
            }
        }
    }
    out
}

fn visible(catalog: &ToolCatalog) -> HashMap<&'static str, String> {
    let snap = catalog.snapshot();
    NAMES
        .iter()
        .filter_map(|n| {
            snap.get(n)
                .map(|e| (*n, e.definition.description().to_owned()))
        })
        .collect()
}

struct Probe(Health);

#[async_trait]
impl SourceProbe for Probe {
    async fn probe(&self) -> Health {
        self.0.clone()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn model_based_register_close_snapshot_sequences_match_the_reference(ops in proptest::collection::vec(arb_op(), 1..40)) {
        let catalog = catalog();
        let mut handles: Vec<(RegistrationHandle, (usize, usize), String)> = Vec::new();
        let mut stacks: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
        for (k, op) in ops.into_iter().enumerate() {
            match op {
                Op::Register(p, n) => {
                    let tag = format!("reg{k}");
                    let h = catalog.register(PLACEMENTS[p], tool(NAMES[n], &tag)).unwrap();
                    stacks.entry((p, n)).or_default().push(tag.clone());
                    handles.push((h, (p, n), tag));
                }
                Op::Close(i) if !handles.is_empty() => {
                    let (h, key, tag) = handles.remove(i.index(handles.len()));
                    h.close();
                    stacks.get_mut(&key).unwrap().retain(|t| t != &tag);
                }
                _ => {}
            }
            prop_assert_eq!(visible(&catalog), reference_visible(&stacks));
        }
        drop(handles);
        prop_assert!(catalog.snapshot().is_empty(), "dropping every handle removes every registration");
    }

    #[test]
    fn a_snapshot_never_changes_after_it_is_taken(ops in proptest::collection::vec(arb_op(), 1..30), at in 0usize..30) {
        let catalog = catalog();
        let mut handles = Vec::new();
        let mut frozen = None;
        for (k, op) in ops.iter().enumerate() {
            if k == at {
                let snap = catalog.snapshot();
                let seen: Vec<(String, String)> = snap.all().map(|e| (e.name().to_owned(), e.definition.description().to_owned())).collect();
                frozen = Some((snap, seen));
            }
            match op {
                Op::Register(p, n) => handles.push(catalog.register(PLACEMENTS[*p], tool(NAMES[*n], &format!("r{k}"))).unwrap()),
                Op::Close(i) if !handles.is_empty() => {
                    let len = handles.len();
                    handles.remove(i.index(len)).close();
                }
                _ => {}
            }
        }
        if let Some((snap, seen)) = frozen {
            let now: Vec<(String, String)> = snap.all().map(|e| (e.name().to_owned(), e.definition.description().to_owned())).collect();
            prop_assert_eq!(now, seen);
        }
    }

    #[test]
    fn flattening_is_deterministic_injective_and_provider_safe(
        pairs in proptest::collection::vec((proptest::option::of("[a-z_.]{0,12}|[a-z]{30,50}"), "[a-z_./ ]{1,12}|[a-z]{40,70}"), 1..30),
        sep in prop_oneof![Just("_"), Just("__"), Just("-")],
    ) {
        let mut seen: HashMap<String, (Option<String>, String)> = HashMap::new();
        for (ns, name) in pairs {
            let flat = flatten_name(ns.as_deref(), &name, sep);
            prop_assert_eq!(&flat, &flatten_name(ns.as_deref(), &name, sep));
            prop_assert!(validate_tool_name(&flat).is_ok(), "{flat:?}");
            if let Some(previous) = seen.insert(flat.clone(), (ns.clone(), name.clone())) {
                prop_assert_eq!(previous, (ns, name), "two pairs flatten to {}", flat);
            }
        }
    }

    #[test]
    fn activation_is_idempotent_and_append_only(batches in proptest::collection::vec(proptest::collection::vec(0usize..6, 0..4), 1..8)) {
        let names = ["a_tool", "b_tool", "c_tool", "d_tool", "e_tool", "f_tool"];
        let session = Activation::new(names.iter().map(|n| tool(n, "t")).collect()).unwrap();
        let mut previous: Vec<String> = Vec::new();
        for batch in batches {
            let chosen: Vec<&str> = batch.iter().map(|&i| names[i]).collect();
            session.activate(&chosen).unwrap();
            let again = session.activate(&chosen).unwrap();
            prop_assert!(again.is_empty(), "activating twice changes nothing");
            let now = session.active_names();
            prop_assert_eq!(&now[..previous.len()], &previous[..], "earlier list is a prefix");
            let unique: HashSet<&String> = now.iter().collect();
            prop_assert_eq!(unique.len(), now.len());
            previous = now;
        }
    }
}

static BUILTINS: &[BuiltinSpec] = &[BuiltinSpec {
    name: "read_file",
    description: "Read a file.",
    build: |spec| {
        FnTool::builder(spec.name, spec.description)
            .handler(|_, _| async { Ok(ToolOutput::text("ok")) })
    },
}];

#[test]
fn built_ins_win_and_the_loser_is_reported() {
    let catalog = ToolCatalog::with_builtins(BUILTINS).unwrap();
    catalog
        .add_source(SourceConfig::new("fs", ToolSource::mcp("fs")))
        .unwrap();
    let warnings = catalog
        .set_source_tools("fs", vec![tool("read_file", "mcp"), tool("stat", "mcp")])
        .unwrap();
    assert_eq!(
        warnings,
        vec![CatalogWarning::Shadowed {
            name: "read_file".into(),
            winner: "built_in".into(),
            loser: "fs".into()
        }]
    );
    let snap = catalog.snapshot();
    assert_eq!(
        snap.get("read_file").unwrap().definition.description(),
        "Read a file."
    );
    assert_eq!(snap.warnings().len(), 1);
    assert_eq!(
        snap.names().collect::<Vec<_>>(),
        vec!["read_file", "stat"],
        "built-ins first"
    );
}

#[test]
fn duplicate_names_in_one_source_are_a_typed_error() {
    let catalog = catalog();
    let err = catalog
        .set_source_tools("p0", vec![tool("x", "1"), tool("x", "2")])
        .unwrap_err();
    assert_eq!(err.kind(), RegistryErrorKind::DuplicateName);
    assert!(
        catalog.snapshot().is_empty(),
        "a refused list changes nothing"
    );
}

#[test]
fn unhealthy_sources_leave_the_list_and_calls_get_a_transport_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let catalog = ToolCatalog::new();
    let probe = Arc::new(Probe(Health::Unhealthy {
        reason: "process exited".into(),
    }));
    catalog
        .add_source(
            SourceConfig::new("srv", ToolSource::mcp("srv"))
                .namespace("srv")
                .probe(probe),
        )
        .unwrap();
    catalog
        .set_source_tools("srv", vec![tool("search", "s")])
        .unwrap();
    assert!(catalog.snapshot().get("srv_search").is_some());
    let results = rt.block_on(catalog.probe_sources());
    assert_eq!(results.len(), 1);
    let snap = catalog.snapshot();
    assert!(snap.get("srv_search").is_none());
    let err = snap.lookup("srv_search").unwrap_err();
    assert_eq!(err.kind(), tool_core::ErrorKind::Transport);
    assert!(
        err.to_string().contains("srv") && err.to_string().contains("process exited"),
        "{err}"
    );
    catalog.set_health("srv", Health::Healthy).unwrap();
    assert!(catalog.snapshot().get("srv_search").is_some());
}

#[test]
fn capability_gated_tools_follow_the_sources_that_advertise_them() {
    let catalog = catalog();
    catalog
        .add_gated_tool("resources", tool("read_resource", "r"))
        .unwrap();
    assert!(catalog.snapshot().get("read_resource").is_none());
    catalog.set_capabilities("p0", ["resources"]).unwrap();
    catalog.set_capabilities("p1", ["resources"]).unwrap();
    assert!(catalog.snapshot().get("read_resource").is_some());
    catalog.remove_source("p0").unwrap();
    assert!(
        catalog.snapshot().get("read_resource").is_some(),
        "one source still advertises it"
    );
    catalog
        .set_capabilities("p1", Vec::<String>::new())
        .unwrap();
    assert!(catalog.snapshot().get("read_resource").is_none());
}

#[test]
fn queries_by_glob_category_and_source() {
    let catalog = catalog();
    catalog
        .set_source_tools("p0", vec![tool("read_a", "x"), tool("write_a", "x")])
        .unwrap();
    catalog
        .set_source_tools("p1", vec![tool("read_b", "x")])
        .unwrap();
    let snap = catalog.snapshot();
    assert_eq!(snap.by_glob("read_*").unwrap().len(), 2);
    assert_eq!(snap.by_source("p1").len(), 1);
    assert!(snap.by_category(&tool_core::ToolCategory::Read).is_empty());
    assert_eq!(
        snap.by_glob("read_[").unwrap_err().kind(),
        RegistryErrorKind::InvalidGlob
    );
    assert_eq!(
        snap.lookup("read-a").unwrap_err().to_string(),
        "tool `read-a` not found (did you mean: read_a, read_b?)"
    );
}

#[test]
fn list_changes_keep_order_stable_and_scoped_registrations_on_top() {
    let catalog = catalog();
    catalog
        .set_source_tools("p0", vec![tool("a", "base"), tool("b", "base")])
        .unwrap();
    let h = catalog.register("p0", tool("a", "scoped")).unwrap();
    catalog
        .set_source_tools(
            "p0",
            vec![tool("a", "base2"), tool("b", "base2"), tool("c", "base2")],
        )
        .unwrap();
    let snap = catalog.snapshot();
    assert_eq!(snap.names().collect::<Vec<_>>(), vec!["a", "b", "c"]);
    assert_eq!(snap.get("a").unwrap().definition.description(), "scoped");
    drop(h);
    assert_eq!(
        catalog
            .snapshot()
            .get("a")
            .unwrap()
            .definition
            .description(),
        "base2"
    );
}

#[test]
fn shed_build_errors_are_typed() {
    let ok = |name: &'static str| {
        constructor(name, move |_| {
            FnTool::builder(name, "t").handler(|_, _| async { Ok(ToolOutput::text("ok")) })
        })
    };
    let dup = ToolShed::from(Preset::new("a").with(ok("x")) + Preset::new("b").with(ok("x")));
    assert_eq!(
        dup.build(&tool_core::Extensions::default())
            .unwrap_err()
            .kind(),
        RegistryErrorKind::DuplicateName
    );
    let reserved = ToolShed::new().with(ok("tool_search"));
    assert_eq!(
        reserved
            .build(&tool_core::Extensions::default())
            .unwrap_err()
            .kind(),
        RegistryErrorKind::ReservedName
    );
    let liar = ToolShed::new().with(constructor("x", |_| {
        FnTool::builder("y", "t").handler(|_, _| async { Ok(ToolOutput::text("ok")) })
    }));
    let err = liar.build(&tool_core::Extensions::default()).unwrap_err();
    assert_eq!(err.kind(), RegistryErrorKind::NameMismatch);
    assert!(err.to_string().contains("`x`") && err.to_string().contains("`y`"));
}

#[test]
fn a_session_without_tools_declares_nothing() {
    let empty = Activation::new(Vec::new()).unwrap();
    assert!(empty.offered().is_empty());
    assert!(empty.resolve_call("shed").is_err());
}

#[test]
fn the_shed_tool_activates_what_it_finds() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let session = Activation::new(vec![
        tool("send_email", "Send an email message."),
        tool("read_file", "Read a file."),
    ])
    .unwrap();
    let shed = session.resolve_call("shed").unwrap();
    let out = rt
        .block_on(shed.call(
            serde_json::json!({"query": "email"}),
            &tool_core::CallContext::new("c"),
        ))
        .unwrap();
    assert!(out.to_text().contains("send_email"));
    assert!(session.resolve_call("send_email").is_ok());
    assert_eq!(
        session.resolve_call("read_file").unwrap_err().kind(),
        tool_core::ErrorKind::NotActive
    );
    assert_eq!(session.declarations().len(), 2);
}
