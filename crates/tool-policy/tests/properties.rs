//! The invariants of tool-policy, each its own property test.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;
use tool_core::{CallContext, ToolCategory, ToolDefinition, ToolFacts};
use tool_policy::{
    Action, ApprovalAnswer, ApprovalGate, CommandPolicyConfig, ExecTier, Policy, PolicyConfig,
    Remember, ScriptedRequester, TierConfig,
};

const TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "bash",
    "mcp_gh_delete_repo",
    "mcp_gh_list",
    "search",
];
const PATTERNS: &[&str] = &[
    "read_file",
    "write_file",
    "bash",
    "read_*",
    "write_*",
    "mcp_*",
    "mcp_*_delete_*",
    "*",
    "search",
    "s*",
    "*_file",
];
const AGENTS: &[&str] = &["coder", "reviewer"];
const CHANNELS: &[&str] = &["public", "dm"];

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![Just(Action::Allow), Just(Action::Ask), Just(Action::Deny)]
}

fn arb_entries() -> impl Strategy<Value = BTreeMap<String, Action>> {
    proptest::collection::btree_map(
        proptest::sample::select(PATTERNS).prop_map(str::to_owned),
        arb_action(),
        0..4,
    )
}

fn arb_tier_map(
    names: &'static [&'static str],
) -> impl Strategy<Value = BTreeMap<String, TierConfig>> {
    proptest::collection::btree_map(
        proptest::sample::select(names).prop_map(str::to_owned),
        arb_entries().prop_map(|tool_permissions| TierConfig { tool_permissions }),
        0..2,
    )
}

fn arb_config() -> impl Strategy<Value = PolicyConfig> {
    (
        prop_oneof![
            Just(ExecTier::Ask),
            Just(ExecTier::Auto),
            Just(ExecTier::Full)
        ],
        arb_entries(),
        arb_tier_map(AGENTS),
        arb_tier_map(CHANNELS),
    )
        .prop_map(|(tier, global, agents, channels)| {
            let mut c = PolicyConfig::default();
            c.policies.exec.tier = tier;
            c.policies.tool_permissions = global;
            c.policies.agents = agents;
            c.policies.channels = channels;
            c
        })
}

fn arb_facts() -> impl Strategy<Value = ToolFacts> {
    proptest::option::of((any::<bool>(), any::<bool>(), any::<bool>())).prop_map(|f| match f {
        None => ToolFacts::default(),
        Some((ro, idem, appr)) => ToolFacts::default()
            .with_read_only(ro)
            .with_idempotent(idem)
            .with_requires_approval(appr),
    })
}

fn tool(name: &str, facts: ToolFacts) -> ToolDefinition {
    let mut b = ToolDefinition::builder(name, "t").facts(facts);
    if name == "bash" {
        b = b.category(ToolCategory::Shell {
            command_arg: "command".into(),
        });
    }
    b.build().unwrap()
}

fn arb_scope() -> impl Strategy<Value = (Option<&'static str>, Option<&'static str>)> {
    (
        proptest::option::of(proptest::sample::select(AGENTS)),
        proptest::option::of(proptest::sample::select(CHANNELS)),
    )
}

const COMMANDS: &[&str] = &[
    "ls",
    "echo hi && rm -rf /",
    "echo $(id)",
    "cargo test",
    ":(){ :|:& };:",
    "curl x | sh",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn adding_a_deny_at_any_tier_never_makes_any_decision_less_restrictive(
        config in arb_config(),
        (agent, channel) in arb_scope(),
        name in proptest::sample::select(TOOLS),
        facts in arb_facts(),
        command in proptest::sample::select(COMMANDS),
        pattern in proptest::sample::select(PATTERNS),
        at in 0usize..3,
        tier_name in 0usize..2,
    ) {
        let def = tool(name, facts);
        let args = json!({"command": command});
        let before = Policy::new(&config).unwrap().scope(agent, channel).decide(&def, Some(&args)).action();
        let mut stricter = config.clone();
        let entries = match at {
            0 => &mut stricter.policies.tool_permissions,
            1 => &mut stricter.policies.agents.entry(AGENTS[tier_name].to_owned()).or_default().tool_permissions,
            _ => &mut stricter.policies.channels.entry(CHANNELS[tier_name].to_owned()).or_default().tool_permissions,
        };
        entries.insert(pattern.to_owned(), Action::Deny);
        let after = Policy::new(&stricter).unwrap().scope(agent, channel).decide(&def, Some(&args)).action();
        prop_assert!(after >= before, "{before:?} became {after:?} after adding {pattern} = deny");
    }

    #[test]
    fn an_explicit_deny_is_never_overridden_by_any_allow_tier_or_remembered_approval(
        mut config in arb_config(),
        (agent, channel) in arb_scope(),
        name in proptest::sample::select(TOOLS),
        facts in arb_facts(),
        at in 0usize..3,
    ) {
        let entries = match (at, agent, channel) {
            (1, Some(a), _) => &mut config.policies.agents.entry(a.to_owned()).or_default().tool_permissions,
            (2, _, Some(c)) => &mut config.policies.channels.entry(c.to_owned()).or_default().tool_permissions,
            _ => &mut config.policies.tool_permissions,
        };
        entries.insert(name.to_owned(), Action::Deny);
        let policy = Policy::new(&config).unwrap().scope(agent, channel);
        let def = tool(name, facts);
        let decision = policy.decide(&def, Some(&json!({"command": "ls"})));
        prop_assert_eq!(decision.action(), Action::Deny);
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let requester = Arc::new(ScriptedRequester::new([ApprovalAnswer::Approved { remember: Remember::ToolForSession }]));
        let gate = ApprovalGate::new(requester.clone(), Duration::from_secs(1));
        let result = rt.block_on(gate.authorize(&decision, name, &json!({}), &CallContext::new("c")));
        prop_assert_eq!(result.unwrap_err().kind(), tool_core::ErrorKind::PermissionDenied);
        prop_assert!(requester.requests().is_empty(), "nobody is asked about a denied call");
    }

    #[test]
    fn the_floor_cannot_be_lowered_by_any_configuration(
        mut config in arb_config(),
        (agent, channel) in arb_scope(),
        command in proptest::sample::select(&["rm -rf /", "echo x; sudo rm -fr ~", ":(){ :|:& };:", "curl u | sh", "mkfs.ext4 /dev/sda"][..]),
        extra_ask in proptest::collection::vec("[a-z *]{1,10}", 0..3),
        facts in arb_facts(),
    ) {
        config.policies.tool_permissions.insert("bash".into(), Action::Allow);
        config.policies.exec.tier = ExecTier::Full;
        config.sandbox.command_policy = CommandPolicyConfig { deny: vec![], ask: extra_ask };
        let policy = Policy::new(&config).unwrap().scope(agent, channel);
        let decision = policy.decide(&tool("bash", facts), Some(&json!({"command": command})));
        prop_assert_eq!(decision.action(), Action::Deny, "{}", decision.explain());
    }

    #[test]
    fn with_facts_unknown_and_no_matching_entry_no_tier_yields_allow(
        tier in prop_oneof![Just(ExecTier::Ask), Just(ExecTier::Auto), Just(ExecTier::Full)],
        name in "[a-z]{1,8}_unlisted",
    ) {
        let mut config = PolicyConfig::default();
        config.policies.exec.tier = tier;
        config.policies.tool_permissions.insert("read_*".into(), Action::Allow);
        let policy = Policy::new(&config).unwrap().scope(None, None);
        let decision = policy.decide(&tool(&name, ToolFacts::default()), None);
        prop_assert_ne!(decision.action(), Action::Allow);
    }

    #[test]
    fn a_denied_tool_never_appears_in_the_visible_list(
        config in arb_config(),
        (agent, channel) in arb_scope(),
        facts in arb_facts(),
    ) {
        let policy = Policy::new(&config).unwrap().scope(agent, channel);
        let defs: Vec<ToolDefinition> = TOOLS.iter().map(|n| tool(n, facts)).collect();
        let visible = policy.visible(&defs);
        for def in &defs {
            let denied = policy.decide(def, None).action() == Action::Deny;
            prop_assert_eq!(visible.iter().any(|v| v.name() == def.name()), !denied);
        }
    }
}

#[test]
fn the_decision_table_holds() {
    let described = |idempotent: bool, approval: bool| {
        ToolFacts::default()
            .with_read_only(false)
            .with_idempotent(idempotent)
            .with_requires_approval(approval)
    };
    let rows = [
        (
            described(true, false),
            [Action::Allow, Action::Allow, Action::Allow],
        ),
        (
            described(false, false),
            [Action::Ask, Action::Allow, Action::Allow],
        ),
        (
            described(true, true),
            [Action::Ask, Action::Ask, Action::Ask],
        ),
        (
            ToolFacts::default(),
            [Action::Ask, Action::Ask, Action::Ask],
        ),
    ];
    for (facts, expected) in rows {
        for (tier, want) in [ExecTier::Ask, ExecTier::Auto, ExecTier::Full]
            .into_iter()
            .zip(expected)
        {
            let mut config = PolicyConfig::default();
            config.policies.exec.tier = tier;
            let got = Policy::new(&config)
                .unwrap()
                .scope(None, None)
                .decide(&tool("x", facts), None)
                .action();
            assert_eq!(got, want, "{facts:?} under {tier:?}");
        }
    }
}

#[test]
fn the_issue_example_file_loads_and_explains() {
    let policy = Policy::from_toml_str(
        r#"
[policies.exec]
tier = "auto"

[policies.tool_permissions]
"read_*" = "allow"
"bash" = "ask"
"mcp_*_delete_*" = "deny"

[policies.agents.coder.tool_permissions]
"bash" = "allow"

[policies.channels.public.tool_permissions]
"write_*" = "deny"

[sandbox.command_policy]
deny = ["git push --force*", "terraform destroy*"]
"#,
    )
    .unwrap();
    let public = policy.scope(Some("coder"), Some("public"));
    let write = tool("write_file", ToolFacts::default().with_idempotent(true));
    let d = public.decide(&write, None);
    assert_eq!(d.action(), Action::Deny);
    assert!(
        d.explain().contains("channel:public entry `write_*`"),
        "{}",
        d.explain()
    );
    assert_eq!(
        public
            .decide(
                &tool("mcp_gh_delete_repo", ToolFacts::read_only_tool()),
                None
            )
            .action(),
        Action::Deny
    );
    let push = public.decide(
        &tool("bash", ToolFacts::default()),
        Some(&json!({"command": "git push --force"})),
    );
    assert_eq!(push.action(), Action::Deny);
    assert!(
        push.explain().contains("git push --force*"),
        "{}",
        push.explain()
    );
}

#[test]
fn unknown_keys_and_bad_values_name_line_and_key() {
    let err =
        Policy::from_toml_str("[policies.tool_permissions]\n\"bash\" = \"maybe\"\n").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("line 2") && text.contains("policies.tool_permissions.bash"),
        "{text}"
    );
    let err = Policy::from_toml_str("[sandbox.command_policy]\ndeny = []\nallow = [\"x\"]\n")
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("line 3") && text.contains("allow"), "{text}");
    let err = Policy::from_toml_str("[policy]\n").unwrap_err();
    assert!(err.to_string().contains("policy"), "{err}");
}

#[test]
fn approval_expiry_and_decline_are_typed() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let policy = Policy::from_toml_str("[policies.tool_permissions]\nw = \"ask\"\n")
        .unwrap()
        .scope(None, None);
    let decision = policy.decide(&tool("w", ToolFacts::default()), None);
    let silent = Arc::new(ScriptedRequester::scripted([
        tool_policy::ScriptedAnswer::Silence,
    ]));
    let gate = ApprovalGate::new(silent, Duration::from_millis(20));
    let err = rt
        .block_on(gate.authorize(&decision, "w", &json!({}), &CallContext::new("c")))
        .unwrap_err();
    assert_eq!(err.kind(), tool_core::ErrorKind::ApprovalExpired);
    let no = Arc::new(ScriptedRequester::new([ApprovalAnswer::Declined {
        feedback: Some("use a branch".into()),
    }]));
    let gate = ApprovalGate::new(no, Duration::from_secs(1));
    let err = rt
        .block_on(gate.authorize(&decision, "w", &json!({}), &CallContext::new("c")))
        .unwrap_err();
    assert!(err.model_message().contains("use a branch"));
}

#[test]
fn remembered_approvals_never_satisfy_the_floor() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let policy = Policy::default().scope(None, None);
    let bash = tool(
        "bash",
        ToolFacts::default()
            .with_read_only(false)
            .with_idempotent(false),
    );
    let decision = policy.decide(&bash, Some(&json!({"command": "echo $(date)"})));
    assert!(decision.is_from_floor());
    let requester = Arc::new(ScriptedRequester::new([
        ApprovalAnswer::Approved {
            remember: Remember::ToolForSession,
        },
        ApprovalAnswer::Approved {
            remember: Remember::Once,
        },
    ]));
    let gate = ApprovalGate::new(requester.clone(), Duration::from_secs(1));
    let ctx = CallContext::new("c");
    rt.block_on(gate.authorize(&decision, "bash", &json!({}), &ctx))
        .unwrap();
    rt.block_on(gate.authorize(&decision, "bash", &json!({}), &ctx))
        .unwrap();
    assert_eq!(requester.requests().len(), 2, "the floor asks every time");
}
