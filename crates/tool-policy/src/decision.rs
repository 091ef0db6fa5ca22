//! [`Policy`] and [`Decision`]: what may run, what must ask, and why.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use tool_core::{ToolDefinition, ToolFacts};

use crate::rules::{EntryMatch, TierRules};
use crate::{Action, CommandFloor, ExecTier, FloorHit, PolicyConfig, PolicyError};

/// What decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Basis {
    /// A permission entry (the most restrictive across tiers).
    PermissionEntry {
        /// The deciding entry.
        entry: EntryMatch,
    },
    /// No entry named the tool: the exec tier decided from facts.
    ExecTier {
        /// The tier.
        tier: ExecTier,
        /// The row of the decision table that applied.
        row: &'static str,
    },
    /// The command floor.
    CommandFloor {
        /// The rule that fired.
        hit: FloorHit,
    },
}

/// Where a decision came from: the deciding basis, every entry that
/// matched at any tier, and the facts it read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// What decided.
    pub basis: Basis,
    /// Every tier's matching entry (global, agent, channel), in that order.
    pub matched_entries: Vec<EntryMatch>,
    /// The exec tier in force.
    pub exec_tier: ExecTier,
    /// The tool's facts as read.
    pub facts: ToolFacts,
    /// True when the facts were unknown (nobody described the tool).
    pub facts_unknown: bool,
}

/// A decision about one tool (and, at execution, one call).
///
/// ```
/// use tool_core::{ToolDefinition, ToolFacts};
/// use tool_policy::{Action, Policy};
/// let policy = Policy::from_toml_str(r#"
/// [policies.tool_permissions]
/// "read_*" = "allow"
/// "#).unwrap();
/// let read = ToolDefinition::builder("read_file", "Read.").build().unwrap();
/// let d = policy.scope(None, None).decide(&read, None);
/// assert_eq!(d.action(), Action::Allow);
/// assert!(d.explain().contains("read_*"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// May run.
    Allow {
        /// Why.
        provenance: Provenance,
    },
    /// Must ask a person first.
    Ask {
        /// A readable reason.
        reason: String,
        /// Why.
        provenance: Provenance,
    },
    /// Must not run (and is not shown).
    Deny {
        /// A readable reason.
        reason: String,
        /// Why.
        provenance: Provenance,
    },
}

impl Decision {
    /// The action.
    pub fn action(&self) -> Action {
        match self {
            Self::Allow { .. } => Action::Allow,
            Self::Ask { .. } => Action::Ask,
            Self::Deny { .. } => Action::Deny,
        }
    }
    /// The provenance.
    pub fn provenance(&self) -> &Provenance {
        match self {
            Self::Allow { provenance }
            | Self::Ask { provenance, .. }
            | Self::Deny { provenance, .. } => provenance,
        }
    }
    /// The reason (for `Allow`, the basis in words).
    pub fn reason(&self) -> String {
        match self {
            Self::Allow { provenance } => basis_text(provenance),
            Self::Ask { reason, .. } | Self::Deny { reason, .. } => reason.clone(),
        }
    }
    /// True when the command floor decided: remembered approvals must not
    /// satisfy it.
    pub fn is_from_floor(&self) -> bool {
        matches!(self.provenance().basis, Basis::CommandFloor { .. })
    }

    /// One short paragraph for a person.
    pub fn explain(&self) -> String {
        let p = self.provenance();
        let mut text = format!(
            "{}: {}.",
            self.action().as_str().to_uppercase(),
            self.reason()
        );
        let others: Vec<String> = p
            .matched_entries
            .iter()
            .filter(|e| !matches!(&p.basis, Basis::PermissionEntry { entry } if entry == *e))
            .map(|e| format!("{} `{}` = {}", e.tier, e.entry, e.action))
            .collect();
        if !others.is_empty() {
            text.push_str(&format!(" Also matched: {}.", others.join("; ")));
        }
        text.push_str(&format!(
            " Exec tier `{}`; facts {}.",
            p.exec_tier.as_str(),
            if p.facts_unknown {
                "unknown".to_owned()
            } else {
                facts_text(p.facts)
            }
        ));
        text
    }
}

fn facts_text(f: ToolFacts) -> String {
    format!(
        "read_only={}, destructive={}, idempotent={}, open_world={}, requires_approval={}",
        f.read_only(),
        f.destructive(),
        f.idempotent(),
        f.open_world(),
        f.requires_approval()
    )
}

fn basis_text(p: &Provenance) -> String {
    match &p.basis {
        Basis::PermissionEntry { entry } => format!(
            "{} entry `{}` ({}) says {}",
            entry.tier,
            entry.entry,
            if entry.exact { "exact name" } else { "glob" },
            entry.action
        ),
        Basis::ExecTier { tier, row } => format!(
            "no permission entry names the tool; exec tier `{}` gives {row}",
            tier.as_str()
        ),
        Basis::CommandFloor { hit } => format!(
            "command floor rule `{}` fired on `{}`",
            hit.rule, hit.command
        ),
    }
}

struct Inner {
    exec_tier: ExecTier,
    global: TierRules,
    agents: std::collections::HashMap<String, TierRules>,
    channels: std::collections::HashMap<String, TierRules>,
    floor: CommandFloor,
}

/// A compiled policy: globs compiled once, cheap to clone.
#[derive(Clone)]
pub struct Policy {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policy")
            .field("exec_tier", &self.inner.exec_tier)
            .finish_non_exhaustive()
    }
}

impl Default for Policy {
    fn default() -> Self {
        Self::new(&PolicyConfig::default()).expect("the empty policy compiles")
    }
}

impl Policy {
    /// Compile a configuration.
    pub fn new(config: &PolicyConfig) -> Result<Self, PolicyError> {
        let p = &config.policies;
        let tiers = |kind: &str, map: &std::collections::BTreeMap<String, crate::TierConfig>| {
            map.iter()
                .map(|(name, t)| {
                    TierRules::compile(
                        &format!("{kind}:{name}"),
                        &format!("policies.{kind}s.{name}.tool_permissions"),
                        &t.tool_permissions,
                    )
                    .map(|r| (name.clone(), r))
                })
                .collect::<Result<std::collections::HashMap<_, _>, _>>()
        };
        Ok(Self {
            inner: Arc::new(Inner {
                exec_tier: p.exec.tier,
                global: TierRules::compile(
                    "global",
                    "policies.tool_permissions",
                    &p.tool_permissions,
                )?,
                agents: tiers("agent", &p.agents)?,
                channels: tiers("channel", &p.channels)?,
                floor: CommandFloor::new(&config.sandbox.command_policy)?,
            }),
        })
    }
    /// Parse and compile TOML text.
    pub fn from_toml_str(text: &str) -> Result<Self, PolicyError> {
        Self::new(&PolicyConfig::from_toml_str(text)?)
    }
    /// Load and compile a TOML file.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self, PolicyError> {
        Self::new(&PolicyConfig::load(path)?)
    }
    /// The exec tier.
    pub fn exec_tier(&self) -> ExecTier {
        self.inner.exec_tier
    }
    /// The command floor.
    pub fn floor(&self) -> &CommandFloor {
        &self.inner.floor
    }
    /// The policy merged for one agent and channel (either may be absent).
    pub fn scope(&self, agent: Option<&str>, channel: Option<&str>) -> ScopedPolicy {
        ScopedPolicy {
            policy: self.clone(),
            agent: agent.map(str::to_owned),
            channel: channel.map(str::to_owned),
        }
    }
}

/// The policy for one agent and channel: what a request uses.
#[derive(Debug, Clone)]
pub struct ScopedPolicy {
    policy: Policy,
    agent: Option<String>,
    channel: Option<String>,
}

/// The exec tier's table (no entry names the tool), from facts alone.
fn tier_decides(tier: ExecTier, facts: ToolFacts) -> (Action, &'static str) {
    if facts.is_unknown() {
        return (Action::Ask, "ask for a tool whose facts are unknown");
    }
    if facts.requires_approval() {
        return (Action::Ask, "ask for a tool that requires approval");
    }
    if facts.idempotent() {
        return (Action::Allow, "allow for an idempotent tool");
    }
    match tier {
        ExecTier::Ask => (Action::Ask, "ask for a tool that is not idempotent"),
        ExecTier::Auto | ExecTier::Full => (
            Action::Allow,
            "allow for a described tool needing no approval",
        ),
    }
}

impl ScopedPolicy {
    /// The agent, if any.
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }
    /// The channel, if any.
    pub fn channel(&self) -> Option<&str> {
        self.channel.as_deref()
    }

    /// The tiers in force: global, then this agent's and channel's if
    /// configured.
    fn tiers(&self) -> impl Iterator<Item = &TierRules> {
        let inner = &self.policy.inner;
        let agent = self.agent.as_ref().and_then(|a| inner.agents.get(a));
        let channel = self.channel.as_ref().and_then(|c| inner.channels.get(c));
        [Some(&inner.global), agent, channel].into_iter().flatten()
    }

    /// Every tier's deciding entry for `name`: global, agent, channel.
    fn entries(&self, name: &str) -> Vec<EntryMatch> {
        self.tiers().filter_map(|t| t.lookup(name)).collect()
    }

    /// Decide for a tool; with `args`, shell-category tools also pass the
    /// command floor. Most restrictive entry across tiers wins; an entry
    /// beats the exec tier; the floor beats everything.
    pub fn decide(&self, def: &ToolDefinition, args: Option<&Value>) -> Decision {
        let facts = *def.facts();
        let matched_entries = self.entries(def.name());
        let exec_tier = self.policy.inner.exec_tier;
        let provenance = |basis: Basis| Provenance {
            basis,
            matched_entries: matched_entries.clone(),
            exec_tier,
            facts,
            facts_unknown: facts.is_unknown(),
        };
        let (action, basis) = match matched_entries.iter().max_by_key(|e| e.action) {
            Some(entry) => (
                entry.action,
                Basis::PermissionEntry {
                    entry: entry.clone(),
                },
            ),
            None => {
                let (action, row) = tier_decides(exec_tier, facts);
                (
                    action,
                    Basis::ExecTier {
                        tier: exec_tier,
                        row,
                    },
                )
            }
        };
        let floor_hit = match (def.category().and_then(|c| c.command_arg()), args) {
            (Some(arg), Some(args)) if action != Action::Deny => match args.get(arg) {
                Some(Value::String(command)) => self.policy.inner.floor.check(command),
                Some(_) | None => Some(FloorHit {
                    action: Action::Ask,
                    rule: "unparsed".into(),
                    command: format!("argument `{arg}` holds no command string"),
                }),
            },
            _ => None,
        };
        let (action, basis) = match floor_hit {
            Some(hit) if hit.action >= action => (hit.action, Basis::CommandFloor { hit }),
            _ => (action, basis),
        };
        let p = provenance(basis);
        match action {
            Action::Allow => Decision::Allow { provenance: p },
            Action::Ask => Decision::Ask {
                reason: basis_text(&p),
                provenance: p,
            },
            Action::Deny => Decision::Deny {
                reason: basis_text(&p),
                provenance: p,
            },
        }
    }

    /// True unless the tool is denied (asking tools stay visible).
    pub fn is_visible(&self, def: &ToolDefinition) -> bool {
        self.decide(def, None).action() != Action::Deny
    }

    /// The tools the model may be shown: denied ones removed, order kept.
    pub fn visible<'a>(
        &self,
        defs: impl IntoIterator<Item = &'a ToolDefinition>,
    ) -> Vec<ToolDefinition> {
        defs.into_iter()
            .filter(|d| self.is_visible(d))
            .cloned()
            .collect()
    }

    /// The naive decision action over every pattern one by one, for the
    /// benchmark's baseline (same answer as `decide(def, None).action()`).
    #[doc(hidden)]
    pub fn decide_naive(&self, def: &ToolDefinition) -> Action {
        let inner = &self.policy.inner;
        self.tiers()
            .filter_map(|t| t.lookup_naive(def.name()))
            .max()
            .unwrap_or_else(|| tier_decides(inner.exec_tier, *def.facts()).0)
    }
}
