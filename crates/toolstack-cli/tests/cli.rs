//! The `toolstack` binary on the shared data and on bad input: every bad
//! input gets a clear message on stderr and a non-zero exit; none panics.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn shared(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/tool-retrieval")
        .join(file)
}

fn toolstack(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolstack"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn ok_json(args: &[&str]) -> Value {
    let out = toolstack(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document on stdout")
}

fn fails_with(args: &[&str], needle: &str) {
    fails_with_all(args, &[needle]);
}

/// The command fails cleanly and its stderr names every one of `needles`.
fn fails_with_all(args: &[&str], needles: &[&str]) {
    let out = toolstack(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{args:?}: stderr lacks {needle:?}:\n{stderr}"
        );
    }
    assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    assert!(
        !stderr.contains("RUST_BACKTRACE"),
        "{args:?} printed a backtrace:\n{stderr}"
    );
}

fn temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolstack-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn search_ranks_like_the_library() {
    let catalog = shared("catalog.json");
    let v = ok_json(&[
        "search",
        "--catalog",
        catalog.to_str().unwrap(),
        "--query",
        "Find the best local nurseries in Toronto",
        "--limit",
        "3",
        "--json",
    ]);
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0]["name"], "local_nursery_find");
    assert!(hits[0]["score"].as_f64().unwrap() >= hits[1]["score"].as_f64().unwrap());
}

#[test]
fn eval_search_reports_both_searches() {
    let v = ok_json(&[
        "eval-search",
        "--catalog",
        shared("catalog.json").to_str().unwrap(),
        "--queries",
        shared("dev.jsonl").to_str().unwrap(),
        "--k",
        "1,3,5,10",
        "--json",
    ]);
    for side in ["toolstack", "baseline"] {
        for key in [
            "recall_at_1",
            "recall_at_3",
            "recall_at_5",
            "recall_at_10",
            "mrr_at_10",
            "ndcg_at_10",
        ] {
            assert!(v[side][key].is_number(), "{side}.{key}");
        }
    }
    assert!(v["toolstack"]["recall_at_5"].as_f64().unwrap() >= 0.85);
    assert!(v["difference"]["recall_at_5"].as_f64().unwrap() > 0.1);
}

#[test]
fn render_with_disclosure_and_strict_report() {
    let catalog = shared("catalog.json");
    let c = catalog.to_str().unwrap();
    let full = ok_json(&[
        "render",
        "--catalog",
        c,
        "--provider",
        "openai-chat",
        "--json",
    ]);
    let compact = ok_json(&[
        "render",
        "--catalog",
        c,
        "--provider",
        "openai-chat",
        "--core",
        "calculate_triangle_area,math_*",
        "--style",
        "compact",
        "--json",
    ]);
    assert_eq!(full["provider"], "openai-chat");
    assert!(compact["bytes"].as_u64().unwrap() * 5 < full["bytes"].as_u64().unwrap());
    let strict = ok_json(&[
        "render",
        "--catalog",
        c,
        "--provider",
        "openai-responses",
        "--strict",
        "--defer-all",
        "--style",
        "hidden",
        "--json",
    ]);
    assert_eq!(
        strict["tools"].as_array().unwrap().len(),
        2,
        "only the meta tools are listed"
    );
    assert!(strict["strict"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["ok"].is_boolean()));
    let text = toolstack(&["render", "--catalog", c, "--provider", "text"]);
    assert!(text.status.success());
    for provider in ["anthropic", "gemini"] {
        ok_json(&["render", "--catalog", c, "--provider", provider, "--json"]);
    }
}

#[test]
fn plan_prints_groups_dag_and_makespans() {
    let calls = temp(
        "calls.json",
        r#"{"cwd": "/w", "calls": [
            {"id": "r", "claim": {"shared": ["docs"]}, "duration": 1},
            {"id": "w1", "claim": {"paths": ["a.txt"]}, "duration": 1},
            {"id": "w2", "claim": {"paths": ["b.txt"]}, "duration": 3},
            {"id": "w3", "claim": {"paths": ["a.txt"]}, "duration": 1, "depends_on": ["r"]}
        ]}"#,
    );
    let v = ok_json(&["plan", "--calls", calls.to_str().unwrap(), "--json"]);
    assert_eq!(v["groups"], serde_json::json!([["r", "w1", "w2"], ["w3"]]));
    assert_eq!(v["dag"]["w3"], serde_json::json!(["r", "w1"]));
    assert_eq!(
        v["makespan"],
        serde_json::json!({"serial": 6.0, "partition": 4.0, "scheduler": 3.0})
    );
    let catalog = temp(
        "fp.json",
        r#"[{"name": "file_ops", "input_schema": {"type": "object"}, "metadata": {"footprint": {"paths": ["path"], "operation": {"arg": "op", "read": ["read"], "write": ["write"]}}}}]"#,
    );
    let by_tool = temp(
        "bytool.json",
        r#"{"calls": [{"id": "a", "tool": "file_ops", "arguments": {"op": "read", "path": "x"}}, {"id": "b", "tool": "file_ops", "arguments": {"op": "read", "path": "x"}}]}"#,
    );
    let v = ok_json(&[
        "plan",
        "--calls",
        by_tool.to_str().unwrap(),
        "--catalog",
        catalog.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["groups"], serde_json::json!([["a", "b"]]));
}

#[test]
fn policy_check_and_list() {
    let config = temp(
        "policy.toml",
        "[policies.exec]\ntier = \"auto\"\n[policies.tool_permissions]\n\"read_*\" = \"allow\"\n\"bash\" = \"allow\"\n\"mcp_*_delete_*\" = \"deny\"\n[policies.channels.public.tool_permissions]\n\"write_*\" = \"deny\"\n[sandbox.command_policy]\ndeny = [\"git push --force*\"]\n",
    );
    let c = config.to_str().unwrap();
    let v = ok_json(&[
        "policy",
        "check",
        "--config",
        c,
        "--tool",
        "bash",
        "--category",
        "shell",
        "--args",
        r#"{"command": "cd x && git push --force"}"#,
        "--json",
    ]);
    assert_eq!(v["decision"], "deny");
    assert!(v["reason"].as_str().unwrap().contains("git push --force*"));
    assert_eq!(v["provenance"]["basis"]["kind"], "command_floor");
    let v = ok_json(&[
        "policy",
        "check",
        "--config",
        c,
        "--tool",
        "write_notes",
        "--channel",
        "public",
        "--facts",
        r#"{"idempotent": true}"#,
        "--json",
    ]);
    assert_eq!(v["decision"], "deny");
    let v = ok_json(&[
        "policy", "check", "--config", c, "--tool", "mystery", "--json",
    ]);
    assert_eq!(v["decision"], "ask", "unknown facts never allow");
    let v = ok_json(&[
        "policy",
        "list",
        "--config",
        c,
        "--catalog",
        shared("catalog.json").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["scopes"].as_array().unwrap().len(), 2);
}

#[test]
#[allow(clippy::too_many_lines)]
fn bad_inputs_get_clear_messages_and_no_panic() {
    let catalog = shared("catalog.json");
    let c = catalog.to_str().unwrap();
    fails_with(
        &[
            "search",
            "--catalog",
            "/nonexistent/catalog.json",
            "--query",
            "x",
        ],
        "/nonexistent/catalog.json",
    );
    let bad_json = temp("bad.json", "[{\"name\": ");
    fails_with(
        &[
            "search",
            "--catalog",
            bad_json.to_str().unwrap(),
            "--query",
            "x",
        ],
        "invalid JSON at line 1",
    );
    fails_with(
        &["render", "--catalog", c, "--provider", "claude"],
        "unknown provider \"claude\"",
    );
    let odd = temp(
        "odd.json",
        r#"[{"type": "function", "function": {"name": "ok"}}, {"title": "no shape"}]"#,
    );
    fails_with(
        &[
            "render",
            "--catalog",
            odd.to_str().unwrap(),
            "--provider",
            "anthropic",
        ],
        "entry 1",
    );
    let policy = temp(
        "unknown-key.toml",
        "[policies.exec]\ntier = \"auto\"\nspeed = \"fast\"\n",
    );
    fails_with_all(
        &[
            "policy",
            "check",
            "--config",
            policy.to_str().unwrap(),
            "--tool",
            "x",
        ],
        &["line 3", "policies.exec.speed"],
    );
    let cycle = temp(
        "cycle.json",
        r#"{"calls": [{"id": "a", "claim": "shared", "depends_on": ["b"]}, {"id": "b", "claim": "shared", "depends_on": ["a"]}]}"#,
    );
    fails_with(
        &["plan", "--calls", cycle.to_str().unwrap()],
        "dependency cycle",
    );
    fails_with(
        &["eval-search", "--catalog", c, "--queries", c, "--k", "0,5"],
        "--k",
    );
    let good = temp("good.toml", "[policies.exec]\ntier = \"auto\"\n");
    fails_with(
        &[
            "policy",
            "check",
            "--config",
            good.to_str().unwrap(),
            "--tool",
            "bad name",
        ],
        "bad name",
    );
    fails_with(
        &[
            "policy",
            "check",
            "--config",
            good.to_str().unwrap(),
            "--tool",
            "x",
            "--args",
            "{nope",
        ],
        "--args",
    );
}

#[test]
fn demo_runs_end_to_end() {
    let v = ok_json(&["demo", "--json"]);
    let events = v["events"].as_array().unwrap();
    let outcome = |id: &str| {
        events
            .iter()
            .find(|e| e["call_id"] == id)
            .map(|e| e["outcome"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(outcome("b4").as_deref(), Some("ok"));
    assert!(events
        .iter()
        .any(|e| e["requested_tool"] == "tool_search" && e["outcome"] == "ok"));
    assert!(events
        .iter()
        .any(|e| e["requested_tool"] == "edit_file" && e["approval"] == "approved:once"));
    assert!(events
        .iter()
        .any(|e| e["requested_tool"] == "shell" && e["outcome"] == "permission_denied"));
    assert_eq!(v["ledger_records"].as_u64().unwrap() as usize, events.len());
    assert!(v["steps"].as_array().unwrap().iter().any(|s| s["text"]
        .as_str()
        .unwrap()
        .contains("notes/a.txt holds \"second\"")));
}
