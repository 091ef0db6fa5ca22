//! # tool-policy
//!
//! Decide what an agent may see and run: allow / ask / deny permissions by
//! exact name or glob at three tiers (global, agent, channel), the exec
//! tier's table for tools no entry names, a command floor for shell tools
//! that nothing can lower, and an approval gate.
//!
//! ## A complete policy file
//!
//! ```toml
//! [policies.exec]
//! tier = "auto"                      # ask | auto | full
//!
//! [policies.tool_permissions]        # global tier: name or glob = action
//! "read_*" = "allow"
//! "bash" = "ask"
//! "mcp_*_delete_*" = "deny"
//!
//! [policies.agents.coder.tool_permissions]
//! "bash" = "allow"
//!
//! [policies.channels.public.tool_permissions]
//! "write_*" = "deny"
//!
//! [sandbox.command_policy]
//! deny = ["git push --force*", "terraform destroy*"]   # added to the default floor
//! ask = ["npm publish*"]
//! ```
//!
//! ## Decisions
//!
//! 1. Each tier's deciding entry: an exact name beats a glob; among globs
//!    the longest literal prefix wins; ties go to the more restrictive.
//! 2. Across tiers the most restrictive wins (deny > ask > allow).
//! 3. An entry beats the exec tier. Where no entry names the tool, the tier
//!    decides from facts alone, never from the name:
//!
//! | tool's facts | ask | auto | full |
//! |---|---|---|---|
//! | idempotent, no approval required | allow | allow | allow |
//! | not idempotent, no approval required | ask | allow | allow |
//! | requires approval | ask | ask | ask |
//! | facts unknown (a tool nobody described) | ask | ask | ask |
//!
//! 4. For shell-category tools, the [`CommandFloor`] checks every simple
//!    command of the call; its deny beats any allow, its ask beats allow.
//! 5. Denied tools are hidden from the model; `ask` tools stay visible.
//!
//! ```
//! use serde_json::json;
//! use tool_core::{ToolCategory, ToolDefinition};
//! use tool_policy::{Action, Policy};
//!
//! let policy = Policy::from_toml_str(r#"
//! [policies.tool_permissions]
//! "bash" = "ask"
//! [policies.agents.coder.tool_permissions]
//! "bash" = "allow"
//! "#)?;
//! let bash = ToolDefinition::builder("bash", "Run a command.")
//!     .category(ToolCategory::Shell { command_arg: "command".into() })
//!     .build()
//!     .unwrap();
//! let coder = policy.scope(Some("coder"), None);
//! // Most restrictive across tiers: the global ask stands.
//! assert_eq!(coder.decide(&bash, None).action(), Action::Ask);
//! // The floor denies whatever the entries say.
//! let d = coder.decide(&bash, Some(&json!({"command": "echo hi && rm -rf /"})));
//! assert_eq!(d.action(), Action::Deny);
//! println!("{}", d.explain());
//! # Ok::<(), tool_policy::PolicyError>(())
//! ```

mod approval;
mod config;
mod decision;
mod error;
mod floor;
mod rules;

pub use approval::{
    ApprovalAnswer, ApprovalGate, ApprovalRequest, ApprovalRequester, GateOutcome, Remember,
    ScriptedAnswer, ScriptedRequester,
};
pub use config::{
    Action, CommandPolicyConfig, ExecConfig, ExecTier, PoliciesConfig, PolicyConfig, SandboxConfig,
    TierConfig,
};
pub use decision::{Basis, Decision, Policy, Provenance, ScopedPolicy};
pub use error::{PolicyError, PolicyErrorKind};
pub use floor::{CommandFloor, FloorHit};
pub use rules::EntryMatch;
