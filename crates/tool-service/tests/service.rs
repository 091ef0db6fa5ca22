//! tool-service end to end: properties of batches and policies, the call
//! pipeline's typed errors, and the ledger.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Value};
use tool_core::{
    CallContext, ErrorKind, FnTool, SharedTool, ToolError, ToolFacts, ToolOutput, ToolSource,
};
use tool_policy::{
    Action, ApprovalAnswer, ApprovalGate, Policy, PolicyConfig, Remember, ScriptedRequester,
};
use tool_registry::{SourceConfig, ToolCatalog};
use tool_service::{
    verify_ledger, BatchCall, JsonlSink, LedgerError, Limits, MemorySink, OutputBudget, Overflow,
    RetryPolicy, ScopedToolService, ToolService, FOOTPRINT_KEY,
};

/// (path, start, end) of each run of a scripted tool.
type RunLog = Arc<Mutex<Vec<(String, Instant, Instant)>>>;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn catalog_with(tools: Vec<SharedTool>) -> ToolCatalog {
    let catalog = ToolCatalog::new();
    catalog
        .add_source(SourceConfig::new("host", ToolSource::Host))
        .unwrap();
    catalog.set_source_tools("host", tools).unwrap();
    catalog
}

/// What a scripted tool does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    Ok,
    Fail,
    Panic,
    Hang,
}

fn scripted_tool(name: &str, behaviour: Behaviour, log: RunLog) -> SharedTool {
    let tool_name = name.to_owned();
    FnTool::builder(name, "A scripted tool.")
        .input_schema(json!({"type": "object", "properties": {"path": {"type": "string"}, "ms": {"type": "integer"}}}))
        .facts(ToolFacts::default().with_read_only(false).with_idempotent(true))
        .metadata(FOOTPRINT_KEY, json!({"paths": ["path"]}))
        .handler(move |args: Value, ctx: CallContext| {
            let log = Arc::clone(&log);
            let tool_name = tool_name.clone();
            async move {
                let start = Instant::now();
                let ms = args["ms"].as_u64().unwrap_or(1);
                match behaviour {
                    Behaviour::Hang => {
                        ctx.cancellation().cancelled().await;
                        return Err(ToolError::Cancelled { tool: tool_name });
                    }
                    Behaviour::Panic => panic!("scripted panic"),
                    _ => tokio::time::sleep(Duration::from_millis(ms)).await,
                }
                log.lock().unwrap().push((args["path"].as_str().unwrap_or("").to_owned(), start, Instant::now()));
                match behaviour {
                    Behaviour::Fail => Err(ToolError::execution(tool_name, "scripted failure")),
                    _ => Ok(ToolOutput::text("done")),
                }
            }
        })
        .unwrap()
}

fn batch_service(log: &RunLog, timeout: Duration) -> ScopedToolService {
    let tools = vec![
        scripted_tool("ok", Behaviour::Ok, Arc::clone(log)),
        scripted_tool("fail", Behaviour::Fail, Arc::clone(log)),
        scripted_tool("boom", Behaviour::Panic, Arc::clone(log)),
        scripted_tool("hang", Behaviour::Hang, Arc::clone(log)),
    ];
    let mut config = PolicyConfig::default();
    config
        .policies
        .tool_permissions
        .insert("*".into(), Action::Allow);
    ScopedToolService::builder(catalog_with(tools).snapshot())
        .policy(Policy::new(&config).unwrap().scope(None, None))
        .limits(Limits {
            call_timeout: timeout,
            retry: RetryPolicy::none(),
            max_in_flight: Some(3),
            ..Limits::default()
        })
        .build()
}

const PATHS: &[&str] = &["a", "a/x", "b", "c", "b/y"];

fn arb_calls() -> impl Strategy<Value = Vec<(usize, usize, u64)>> {
    proptest::collection::vec((0usize..5, 0usize..PATHS.len(), 1u64..15), 0..10)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn one_result_per_call_id_in_order_whatever_fails_panics_times_out_or_is_cancelled(
        calls in arb_calls(),
        cancel_after_ms in proptest::option::of(1u64..30),
    ) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let service = batch_service(&log, Duration::from_millis(40));
        let names = ["ok", "fail", "boom", "hang", "missing"];
        let batch: Vec<BatchCall> = calls.iter().enumerate().map(|(i, (t, p, ms))| BatchCall {
            id: format!("c{i}"),
            name: names[*t].into(),
            arguments: json!({"path": PATHS[*p], "ms": ms}),
            depends_on: vec![],
        }).collect();
        let ids: Vec<String> = batch.iter().map(|c| c.id.clone()).collect();
        let results = rt().block_on(async {
            let ctx = CallContext::new("turn");
            if let Some(ms) = cancel_after_ms {
                let token = ctx.cancellation().clone();
                tokio::spawn(async move { tokio::time::sleep(Duration::from_millis(ms)).await; token.cancel(); });
            }
            service.execute_batch(batch, &ctx).await
        });
        prop_assert_eq!(results.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), ids);
        for (r, (t, _, _)) in results.iter().zip(&calls) {
            match (names[*t], &r.result) {
                ("ok", Ok(_)) => {}
                ("ok", Err(e)) => prop_assert!(matches!(e.kind(), ErrorKind::Cancelled | ErrorKind::Timeout), "{e}"),
                ("fail", Err(e)) => prop_assert!(matches!(e.kind(), ErrorKind::Execution | ErrorKind::Cancelled)),
                ("boom", Err(e)) => prop_assert!(matches!(e.kind(), ErrorKind::Panicked | ErrorKind::Cancelled)),
                ("hang", Err(e)) => prop_assert!(matches!(e.kind(), ErrorKind::Timeout | ErrorKind::Cancelled)),
                ("missing", Err(e)) => prop_assert!(matches!(e.kind(), ErrorKind::NotFound | ErrorKind::Cancelled)),
                (n, r) => prop_assert!(false, "{n}: unexpected {r:?}"),
            }
        }
        // The service keeps serving after panics.
        let after = rt().block_on(service.execute("ok", json!({"path": "z"})));
        prop_assert!(after.is_ok());
    }

    #[test]
    fn instrumented_tools_show_no_two_conflicting_calls_ever_overlap(calls in arb_calls()) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let service = batch_service(&log, Duration::from_secs(5));
        let batch: Vec<BatchCall> = calls.iter().enumerate().map(|(i, (_, p, ms))| BatchCall {
            id: format!("c{i}"),
            name: "ok".into(),
            arguments: json!({"path": PATHS[*p], "ms": ms}),
            depends_on: vec![],
        }).collect();
        let results = rt().block_on(service.execute_batch(batch, &CallContext::new("turn")));
        prop_assert!(results.iter().all(|r| r.result.is_ok()));
        let log = log.lock().unwrap();
        for (i, (p1, s1, e1)) in log.iter().enumerate() {
            for (p2, s2, e2) in &log[i + 1..] {
                let a = tool_concurrency::ConcurrencyClaim::paths([p1.as_str()], None);
                let b = tool_concurrency::ConcurrencyClaim::paths([p2.as_str()], None);
                if a.conflicts_with(&b) {
                    prop_assert!(e1 <= s2 || e2 <= s1, "{p1} and {p2} overlapped");
                }
            }
        }
    }

    #[test]
    fn denied_tools_are_never_listed_and_never_run(denies in proptest::collection::vec(proptest::sample::select(&["alpha", "beta", "gam*", "*a"][..]), 0..3)) {
        let runs = Arc::new(AtomicUsize::new(0));
        let tool = |name: &str| {
            let runs = Arc::clone(&runs);
            FnTool::builder(name, "t").facts(ToolFacts::read_only_tool())
                .handler(move |_, _| { let runs = Arc::clone(&runs); async move { runs.fetch_add(1, Ordering::SeqCst); Ok(ToolOutput::text("ran")) } })
                .unwrap()
        };
        let catalog = catalog_with(vec![tool("alpha"), tool("beta"), tool("gamma")]);
        let mut config = PolicyConfig::default();
        for d in &denies {
            config.policies.tool_permissions.insert((*d).to_owned(), Action::Deny);
        }
        let policy = Policy::new(&config).unwrap().scope(None, None);
        let service = ScopedToolService::builder(catalog.snapshot()).policy(policy.clone()).build();
        let listed: Vec<String> = service.list().iter().map(|d| d.name().to_owned()).collect();
        for name in ["alpha", "beta", "gamma"] {
            let def = catalog.snapshot().get(name).unwrap().definition.clone();
            let denied = policy.decide(&def, None).action() == Action::Deny;
            prop_assert_eq!(listed.contains(&name.to_owned()), !denied);
            let before = runs.load(Ordering::SeqCst);
            let result = rt().block_on(service.execute(name, json!({})));
            if denied {
                prop_assert_eq!(result.unwrap_err().kind(), ErrorKind::PermissionDenied);
                prop_assert_eq!(runs.load(Ordering::SeqCst), before, "a denied tool ran");
            }
        }
    }

    #[test]
    fn metadata_schema_bytes_are_identical_across_calls_while_nothing_changed(n in 1usize..6) {
        let tools: Vec<SharedTool> = (0..n).map(|i| FnTool::builder(format!("t{i}"), "t").facts(ToolFacts::read_only_tool()).handler(|_, _| async { Ok(ToolOutput::text("x")) }).unwrap()).collect();
        let service = ScopedToolService::builder(catalog_with(tools).snapshot()).build();
        let a = serde_json::to_string(&*service.metadata_schema()).unwrap();
        rt().block_on(service.execute("t0", json!({}))).unwrap();
        let b = service.metadata_schema();
        prop_assert_eq!(a, serde_json::to_string(&*b).unwrap());
        prop_assert!(Arc::ptr_eq(&b, &service.metadata_schema()), "the cached list is reused");
    }
}

#[test]
fn names_are_repaired_and_ambiguity_is_not_found_with_candidates() {
    let t = |n: &str| {
        FnTool::builder(n, "t")
            .facts(ToolFacts::read_only_tool())
            .handler(|_, _| async { Ok(ToolOutput::text("x")) })
            .unwrap()
    };
    let catalog = ToolCatalog::new();
    catalog
        .add_source(
            SourceConfig::new("gh", ToolSource::mcp("gh"))
                .namespace("github")
                .separator("__"),
        )
        .unwrap();
    catalog
        .add_source(
            SourceConfig::new("gl", ToolSource::mcp("gl"))
                .namespace("gitlab")
                .separator("__"),
        )
        .unwrap();
    catalog
        .set_source_tools("gh", vec![t("create_issue"), t("list_repos")])
        .unwrap();
    catalog
        .set_source_tools("gl", vec![t("create_issue")])
        .unwrap();
    let mut config = PolicyConfig::default();
    config
        .policies
        .tool_permissions
        .insert("*".into(), Action::Allow);
    let service = ScopedToolService::builder(catalog.snapshot())
        .policy(Policy::new(&config).unwrap().scope(None, None))
        .build();
    let rt = rt();
    assert!(
        rt.block_on(service.execute("list_repos", json!({})))
            .is_ok(),
        "missing namespace repaired"
    );
    assert!(
        rt.block_on(service.execute("GitHub__List-Repos", json!({})))
            .is_ok(),
        "case and dash repaired"
    );
    let err = rt
        .block_on(service.execute("create_issue", json!({})))
        .unwrap_err();
    match err {
        ToolError::NotFound { suggestions, .. } => assert_eq!(
            suggestions,
            vec!["github__create_issue", "gitlab__create_issue"]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn approvals_deadlines_and_the_floor_run_through_the_gate() {
    let rt = rt();
    let tools = tool_service::builtins::builtin_tools().unwrap();
    let catalog = catalog_with(tools);
    let dir = tempfile::tempdir().unwrap();
    let mut ext = tool_core::Extensions::new();
    ext.insert(tool_service::builtins::WorkspaceRoot(dir.path().to_owned()));
    let policy = Policy::from_toml_str("[policies.exec]\ntier = \"auto\"\n[policies.tool_permissions]\nshell = \"allow\"\nwrite_file = \"ask\"\n").unwrap();
    let requester = Arc::new(ScriptedRequester::new([
        ApprovalAnswer::Approved {
            remember: Remember::Once,
        },
        ApprovalAnswer::Declined {
            feedback: Some("not that file".into()),
        },
    ]));
    let events = Arc::new(MemorySink::default());
    let service = ScopedToolService::builder(catalog.snapshot())
        .policy(policy.scope(None, None))
        .approvals(Arc::new(ApprovalGate::new(
            requester.clone(),
            Duration::from_secs(2),
        )))
        .extensions(ext)
        .events(events.clone())
        .build();
    let ok = rt
        .block_on(service.execute("write_file", json!({"path": "a.txt", "content": "hello"})))
        .unwrap();
    assert!(ok.to_text().contains("wrote 5 bytes"));
    let declined = rt
        .block_on(service.execute("write_file", json!({"path": "b.txt", "content": "x"})))
        .unwrap_err();
    assert_eq!(declined.kind(), ErrorKind::ApprovalDeclined);
    assert!(declined.model_message().contains("not that file"));
    let floor = rt
        .block_on(service.execute("shell", json!({"command": "echo hi && rm -rf /"})))
        .unwrap_err();
    assert_eq!(floor.kind(), ErrorKind::PermissionDenied);
    let shell = rt
        .block_on(service.execute("shell", json!({"command": "cat a.txt"})))
        .unwrap();
    assert!(shell.to_text().contains("hello"));
    let escaped = rt
        .block_on(service.execute("read_file", json!({"path": "../etc/passwd"})))
        .unwrap_err();
    assert_eq!(escaped.kind(), ErrorKind::InvalidArguments);
    let ev = events.events();
    assert_eq!(ev.len(), 5);
    assert_eq!(ev[0].approval.as_deref(), Some("approved:once"));
    assert_eq!(ev[2].decision.as_deref(), Some("deny"));
    assert!(ev[2]
        .provenance
        .as_ref()
        .unwrap()
        .to_string()
        .contains("recursive-delete-root"));
}

#[test]
fn output_budget_truncates_or_spills() {
    let rt = rt();
    let big = FnTool::builder("big", "Big output.")
        .facts(ToolFacts::read_only_tool())
        .handler(|_, _| async { Ok(ToolOutput::text("x".repeat(10_000))) })
        .unwrap();
    let catalog = catalog_with(vec![big]);
    let cut = ScopedToolService::builder(catalog.snapshot())
        .limits(Limits {
            output: OutputBudget {
                max_bytes: 100,
                overflow: Overflow::Truncate,
                shared_across_batch: false,
            },
            ..Limits::default()
        })
        .build();
    let out = rt.block_on(cut.execute("big", json!({}))).unwrap();
    assert!(
        out.to_text().contains("9900 bytes cut from the middle"),
        "{}",
        out.to_text()
    );
    let dir = tempfile::tempdir().unwrap();
    let spill = ScopedToolService::builder(catalog.snapshot())
        .limits(Limits {
            output: OutputBudget {
                max_bytes: 100,
                overflow: Overflow::Spill(dir.path().to_owned()),
                shared_across_batch: false,
            },
            ..Limits::default()
        })
        .build();
    let out = rt.block_on(spill.execute("big", json!({}))).unwrap();
    let text = out.to_text();
    let path = text
        .split("the rest is in ")
        .nth(1)
        .unwrap()
        .trim_end_matches(" ...]");
    assert_eq!(std::fs::read_to_string(path).unwrap().len(), 10_000);
}

#[test]
fn retries_back_off_for_retryable_kinds_only() {
    let rt = rt();
    let attempts = Arc::new(AtomicUsize::new(0));
    let a = Arc::clone(&attempts);
    let flaky = FnTool::builder("flaky", "Fails twice.")
        .facts(ToolFacts::read_only_tool())
        .handler(move |_, _| {
            let a = Arc::clone(&a);
            async move {
                if a.fetch_add(1, Ordering::SeqCst) < 2 {
                    Err(ToolError::Transport {
                        tool: "flaky".into(),
                        origin: "srv".into(),
                        message: "reset".into(),
                    })
                } else {
                    Ok(ToolOutput::text("ok"))
                }
            }
        })
        .unwrap();
    let service = ScopedToolService::builder(catalog_with(vec![flaky]).snapshot())
        .limits(Limits {
            retry: RetryPolicy {
                base_delay: Duration::from_millis(1),
                ..RetryPolicy::default()
            },
            ..Limits::default()
        })
        .build();
    assert!(rt.block_on(service.execute("flaky", json!({}))).is_ok());
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
}

#[test]
fn an_edited_or_truncated_ledger_fails_verification_naming_the_first_bad_record() {
    let rt = rt();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ledger.jsonl");
    let sink = Arc::new(JsonlSink::create(&path, true).unwrap());
    let t = FnTool::builder("t", "t")
        .facts(ToolFacts::read_only_tool())
        .handler(|_, _| async { Ok(ToolOutput::text("x")) })
        .unwrap();
    let service = ScopedToolService::builder(catalog_with(vec![t]).snapshot())
        .events(sink.clone())
        .build();
    for _ in 0..4 {
        rt.block_on(service.execute("t", json!({}))).unwrap();
    }
    let head = sink.head();
    assert_eq!(verify_ledger(&path, Some(&head)).unwrap(), 4);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text
        .replacen("\"outcome\":\"ok\"", "\"outcome\":\"no\"", 2)
        .replacen("\"outcome\":\"no\"", "\"outcome\":\"ok\"", 1);
    std::fs::write(&path, &edited).unwrap();
    assert_eq!(
        verify_ledger(&path, None).unwrap_err(),
        LedgerError::BadRecord {
            line: 2,
            reason: "hash does not match its contents (the record was edited)".into()
        }
    );
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&path, format!("{}\n", lines[..3].join("\n"))).unwrap();
    assert_eq!(
        verify_ledger(&path, Some(&head)).unwrap_err(),
        LedgerError::Truncated { records: 3 }
    );
    std::fs::write(&path, format!("{}\n{}\n", lines[0], lines[2])).unwrap();
    assert!(matches!(
        verify_ledger(&path, None).unwrap_err(),
        LedgerError::BadRecord { line: 2, .. }
    ));
}

#[test]
fn disclosure_and_activation_work_through_the_service() {
    use tool_disclosure::{
        DeferredStyle, DisclosureConfig, DisclosureSession, ProgressiveDisclosureRewriter,
        SearchIndex,
    };
    let rt = rt();
    let t = |n: &str, d: &str| {
        FnTool::builder(n, d)
            .input_schema(json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}))
            .facts(ToolFacts::read_only_tool())
            .handler(|_, _| async { Ok(ToolOutput::text("ran")) })
            .unwrap()
    };
    let catalog = catalog_with(vec![
        t("read_file", "Read a file."),
        t("send_email", "Send an email message."),
        t("get_weather", "Weather for a city."),
    ]);
    let session = DisclosureSession::new(
        ProgressiveDisclosureRewriter::new(DisclosureConfig {
            core: vec!["read_file".into()],
            style: DeferredStyle::Collapsed,
            ..DisclosureConfig::default()
        })
        .unwrap(),
        Arc::new(std::sync::RwLock::new(SearchIndex::new())),
    );
    let service = ScopedToolService::builder(catalog.snapshot())
        .disclosure(session)
        .build();
    let names: Vec<String> = service.list().iter().map(|d| d.name().to_owned()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "send_email",
            "get_weather",
            "get_tool_schema",
            "tool_search"
        ]
    );
    assert_eq!(
        service.list()[1].input_schema(),
        &json!({"type": "object", "additionalProperties": true}),
        "collapsed stub"
    );
    // A collapsed tool is still validated against its full schema.
    let err = rt
        .block_on(service.execute("send_email", json!({})))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArguments);
    let schema = rt
        .block_on(service.execute("get_tool_schema", json!({"names": ["send_email"]})))
        .unwrap();
    assert_eq!(
        schema.structured.unwrap()["tools"][0]["input_schema"]["required"],
        json!(["q"])
    );
    let found = rt
        .block_on(service.execute("tool_search", json!({"query": "weather in Oslo"})))
        .unwrap();
    assert_eq!(found.structured.unwrap()["tools"][0]["name"], "get_weather");

    // Shed-style activation: only `shed` is offered; found tools become callable.
    let activation = tool_registry::Activation::new(vec![
        t("send_email", "Send an email message."),
        t("get_weather", "Weather for a city."),
    ])
    .unwrap()
    .with_searcher(Arc::new(tool_service::Bm25ShedSearcher));
    let shed = ScopedToolService::builder(catalog.snapshot())
        .activation(activation)
        .build();
    assert_eq!(
        shed.list()
            .iter()
            .map(|d| d.name().to_owned())
            .collect::<Vec<_>>(),
        ["shed"]
    );
    let not_active = rt
        .block_on(shed.execute("get_weather", json!({"q": "Oslo"})))
        .unwrap_err();
    assert_eq!(not_active.kind(), ErrorKind::NotActive);
    rt.block_on(shed.execute("shed", json!({"query": "weather"})))
        .unwrap();
    assert_eq!(
        shed.list()
            .iter()
            .map(|d| d.name().to_owned())
            .collect::<Vec<_>>(),
        ["shed", "get_weather"]
    );
    assert_eq!(
        rt.block_on(shed.execute("get_weather", json!({"q": "Oslo"})))
            .unwrap()
            .to_text(),
        "ran"
    );
}
