//! The invariants of tool-disclosure, each its own property test, and the
//! evaluation on the shared BFCL-derived data.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use proptest::prelude::*;
use serde_json::json;
use tool_core::{CallContext, ToolDefinition, ToolSource};
use tool_disclosure::{
    compare_with_baseline, load_catalog, load_queries, DeferredStyle, DisclosureConfig,
    DisclosureSession, ProgressiveDisclosureRewriter, SearchIndex,
};

const WORDS: &[&str] = &[
    "file", "read", "write", "email", "send", "search", "web", "issue", "create", "delete",
    "weather", "stock", "price", "user", "list",
];

fn arb_tool() -> impl Strategy<Value = ToolDefinition> {
    (
        proptest::collection::vec(proptest::sample::select(WORDS), 1..3),
        proptest::collection::vec(proptest::sample::select(WORDS), 0..8),
        proptest::collection::vec(proptest::sample::select(WORDS), 0..3),
        any::<bool>(),
    )
        .prop_map(|(name, desc, params, mcp)| {
            let props: serde_json::Map<String, serde_json::Value> = params
                .iter()
                .map(|p| {
                    (
                        (*p).to_owned(),
                        json!({"type": "string", "description": format!("the {p}")}),
                    )
                })
                .collect();
            let def = ToolDefinition::builder(name.join("_"), desc.join(" "))
                .input_schema(json!({"type": "object", "properties": props}))
                .build()
                .unwrap();
            if mcp {
                def.with_source(ToolSource::mcp("srv"))
            } else {
                def
            }
        })
}

fn arb_tools() -> impl Strategy<Value = Vec<ToolDefinition>> {
    proptest::collection::vec(arb_tool(), 0..12).prop_map(|mut tools| {
        let mut seen = std::collections::HashSet::new();
        tools.retain(|t| seen.insert(t.name().to_owned()));
        tools
    })
}

fn arb_config() -> impl Strategy<Value = DisclosureConfig> {
    (
        proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(WORDS).prop_map(|w| format!("{w}*")),
                proptest::sample::select(WORDS).prop_map(str::to_owned)
            ],
            0..3,
        ),
        prop_oneof![
            Just(DeferredStyle::Collapsed),
            Just(DeferredStyle::Compact),
            Just(DeferredStyle::Hidden)
        ],
        any::<bool>(),
    )
        .prop_map(|(core, style, defer_mcp_tools)| DisclosureConfig {
            core,
            style,
            defer_mcp_tools,
            ..DisclosureConfig::default()
        })
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

fn bytes(tools: &[ToolDefinition]) -> String {
    serde_json::to_string(tools).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn detached_rewriter_output_is_byte_identical_to_its_input(tools in arb_tools(), star in any::<bool>()) {
        let config = DisclosureConfig { core: if star { vec!["read*".into(), "*".into()] } else { vec![] }, ..DisclosureConfig::default() };
        let rewriter = ProgressiveDisclosureRewriter::new(config).unwrap();
        prop_assert!(rewriter.is_detached());
        prop_assert_eq!(bytes(&rewriter.rewrite(&tools).tools), bytes(&tools));
    }

    #[test]
    fn core_tools_are_unchanged_and_get_tool_schema_returns_the_pre_collapse_definition(tools in arb_tools(), config in arb_config()) {
        let rewriter = ProgressiveDisclosureRewriter::new(config).unwrap();
        let out = rewriter.rewrite(&tools);
        for t in &tools {
            if !rewriter.is_deferred(t) {
                prop_assert!(out.tools.contains(t), "core tool {} changed", t.name());
            }
        }
        let session = DisclosureSession::new(rewriter.clone(), Arc::new(RwLock::new(SearchIndex::new())));
        session.prepare(&tools);
        let rt = rt();
        for d in &out.deferred {
            let result = rt.block_on(session.get_tool_schema().call(json!({"names": [d.name()]}), &CallContext::new("c"))).unwrap();
            let got = &result.structured.unwrap()["tools"][0];
            prop_assert_eq!(got, &json!({"name": d.name(), "description": d.description(), "input_schema": d.input_schema()}));
            prop_assert_eq!(tools.iter().find(|t| t.name() == d.name()).unwrap(), d);
        }
    }

    #[test]
    fn tool_search_never_returns_a_tool_outside_the_visible_set(tools in arb_tools(), hide in proptest::collection::vec(any::<bool>(), 12), query in proptest::collection::vec(proptest::sample::select(WORDS), 1..4)) {
        let index = Arc::new(RwLock::new(SearchIndex::build(&tools)));
        let visible: Vec<ToolDefinition> = tools.iter().zip(hide.iter().chain(std::iter::repeat(&false))).filter(|(_, h)| !**h).map(|(t, _)| t.clone()).collect();
        let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig { core: vec!["nothing".into()], ..DisclosureConfig::default() }).unwrap();
        let session = DisclosureSession::new(rewriter, index);
        session.prepare(&visible);
        let out = rt().block_on(session.tool_search().call(json!({"query": query.join(" "), "limit": 20}), &CallContext::new("c"))).unwrap();
        for hit in out.structured.unwrap()["tools"].as_array().unwrap() {
            let name = hit["name"].as_str().unwrap();
            prop_assert!(visible.iter().any(|v| v.name() == name), "{name} is not visible");
        }
    }

    #[test]
    fn promotion_is_idempotent_and_append_only(tools in arb_tools(), queries in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(WORDS), 1..3), 1..5)) {
        let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig { core: vec!["read*".into()], style: DeferredStyle::Hidden, ..DisclosureConfig::default() }).unwrap();
        let session = DisclosureSession::new(rewriter, Arc::new(RwLock::new(SearchIndex::new())));
        let rt = rt();
        let mut previous = session.prepare(&tools);
        for q in queries {
            let args = json!({"query": q.join(" ")});
            rt.block_on(session.tool_search().call(args.clone(), &CallContext::new("c"))).unwrap();
            let once = session.prepare(&tools);
            rt.block_on(session.tool_search().call(args, &CallContext::new("c"))).unwrap();
            let twice = session.prepare(&tools);
            prop_assert_eq!(bytes(&once), bytes(&twice), "promoting twice changes nothing");
            let before = bytes(&previous);
            let after = bytes(&once);
            prop_assert!(after.starts_with(&before[..before.len() - 1]), "earlier list is a byte prefix");
            previous = once;
        }
    }

    #[test]
    fn search_results_are_identical_across_runs_and_rebuilt_vs_incremental(
        tools in arb_tools(),
        removals in proptest::collection::vec(any::<prop::sample::Index>(), 0..4),
        query in proptest::collection::vec(proptest::sample::select(WORDS), 1..4),
    ) {
        let mut incremental = SearchIndex::new();
        for t in tools.iter().rev() {
            incremental.add(t);
        }
        let mut kept = tools.clone();
        for r in &removals {
            if kept.is_empty() { break; }
            let t = kept.remove(r.index(kept.len()));
            prop_assert!(incremental.remove(t.name()));
        }
        let rebuilt = SearchIndex::build(&kept);
        let q = query.join(" ");
        let a = incremental.search(&q, 10, |_| true);
        let b = rebuilt.search(&q, 10, |_| true);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &incremental.search(&q, 10, |_| true));
        prop_assert_eq!(&a, &rebuilt.search_naive(&q, 10));
    }
}

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/tool-retrieval")
}

#[test]
fn search_quality_on_the_shared_queries() {
    let catalog = load_catalog(&shared().join("catalog.json"))
        .expect("shared catalog (../shared/data/tool-retrieval)");
    let queries = load_queries(&shared().join("dev.jsonl")).expect("shared queries");
    assert_eq!(catalog.len(), 1437);
    assert_eq!(queries.len(), 1250);
    let c = compare_with_baseline(&catalog, &queries);
    println!("toolstack {:?}\nbaseline  {:?}", c.toolstack, c.baseline);
    assert!(
        c.toolstack.recall_at_5 >= 0.85,
        "recall@5 fell to {}",
        c.toolstack.recall_at_5
    );
    assert!(c.toolstack.ndcg_at_10 > c.baseline.ndcg_at_10 + 0.1);
}

#[test]
fn compact_style_is_at_least_85_percent_smaller() {
    let catalog = load_catalog(&shared().join("catalog.json")).unwrap();
    let core: Vec<String> = catalog
        .iter()
        .take(8)
        .map(|t| t.name().to_owned())
        .collect();
    let full = tool_core::render_tools_bytes(
        tool_core::Provider::OpenAiChat,
        &catalog,
        tool_core::RenderOptions::default(),
    )
    .unwrap()
    .len();
    let rewriter = ProgressiveDisclosureRewriter::new(DisclosureConfig {
        core,
        style: DeferredStyle::Compact,
        ..DisclosureConfig::default()
    })
    .unwrap();
    let compact = tool_core::render_tools_bytes(
        tool_core::Provider::OpenAiChat,
        &rewriter.rewrite(&catalog).tools,
        tool_core::RenderOptions::default(),
    )
    .unwrap()
    .len();
    assert!(
        (compact as f64) <= 0.15 * full as f64,
        "compact {compact} vs full {full}"
    );
}

#[test]
fn bad_query_lines_and_catalog_entries_are_named() {
    let dir = std::env::temp_dir().join(format!("disclosure-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let q = dir.join("q.jsonl");
    std::fs::write(&q, "{\"query\": \"a\", \"relevant\": []}\n{oops\n").unwrap();
    let err = load_queries(&q).unwrap_err();
    assert!(err.to_string().contains("line 2"), "{err}");
    let c = dir.join("c.json");
    std::fs::write(
        &c,
        "[{\"name\": \"ok\", \"parameters\": {}}, {\"what\": 1}]",
    )
    .unwrap();
    let err = load_catalog(&c).unwrap_err();
    assert!(err.to_string().contains("/1"), "{err}");
}
