//! Approvals: the host asks a person; the gate enforces the deadline and
//! remembers what may be remembered.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tool_core::{CallContext, ToolError};

use crate::Decision;

/// What a person is asked about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalRequest {
    /// The call's id.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// The call's arguments.
    pub arguments: Value,
    /// Why the policy asks.
    pub reason: String,
    /// The answer is needed before this instant.
    #[serde(skip)]
    pub deadline: Instant,
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This call only.
    Once,
    /// This tool, for the rest of the session.
    ToolForSession,
    /// This tool with exactly these arguments, for the session.
    ExactArgumentsForSession,
}

/// A person's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ApprovalAnswer {
    /// Go ahead.
    Approved {
        /// How far the approval reaches.
        remember: Remember,
    },
    /// Do not.
    Declined {
        /// What the person said, passed to the model.
        feedback: Option<String>,
    },
}

/// Implemented by the host: a terminal prompt, a chat button. The gate
/// enforces the deadline; an implementation may simply never answer.
#[async_trait]
pub trait ApprovalRequester: Send + Sync + 'static {
    /// Ask, and answer when the person has.
    async fn request(&self, request: &ApprovalRequest) -> ApprovalAnswer;
}

/// One scripted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptedAnswer {
    /// Answer this.
    Answer(ApprovalAnswer),
    /// Never answer (the gate's deadline expires).
    Silence,
}

/// A requester that answers from a script, in order, and records every
/// request: for tests and examples. When the script runs out it declines.
///
/// ```
/// use tool_policy::{ApprovalAnswer, Remember, ScriptedRequester};
/// let requester = ScriptedRequester::new([
///     ApprovalAnswer::Approved { remember: Remember::Once },
///     ApprovalAnswer::Declined { feedback: Some("not on main".into()) },
/// ]);
/// assert_eq!(requester.requests().len(), 0);
/// ```
#[derive(Debug, Default)]
pub struct ScriptedRequester {
    script: Mutex<VecDeque<ScriptedAnswer>>,
    seen: Mutex<Vec<ApprovalRequest>>,
}

impl ScriptedRequester {
    /// Answer these, in order.
    pub fn new(answers: impl IntoIterator<Item = ApprovalAnswer>) -> Self {
        Self::scripted(answers.into_iter().map(ScriptedAnswer::Answer))
    }
    /// Answer (or stay silent) as scripted.
    pub fn scripted(script: impl IntoIterator<Item = ScriptedAnswer>) -> Self {
        Self {
            script: Mutex::new(script.into_iter().collect()),
            seen: Mutex::new(Vec::new()),
        }
    }
    /// Every request received so far.
    pub fn requests(&self) -> Vec<ApprovalRequest> {
        self.seen.lock().expect("lock").clone()
    }
}

#[async_trait]
impl ApprovalRequester for ScriptedRequester {
    async fn request(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.seen.lock().expect("lock").push(request.clone());
        let next = self.script.lock().expect("lock").pop_front();
        match next {
            Some(ScriptedAnswer::Answer(a)) => a,
            Some(ScriptedAnswer::Silence) => std::future::pending().await,
            None => ApprovalAnswer::Declined {
                feedback: Some("no scripted answer left".into()),
            },
        }
    }
}

/// How a call got through the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateOutcome {
    /// The policy allowed it; nobody was asked.
    Allowed,
    /// A remembered approval covered it.
    Remembered,
    /// A person approved it now.
    Approved(Remember),
}

#[derive(Default)]
struct Memory {
    tools: HashSet<String>,
    exact: HashSet<(String, String)>,
}

/// The approval gate of one session: asks for `Ask` decisions with a
/// deadline, refuses `Deny` decisions, and remembers session approvals.
/// Remembered approvals never lift a deny, and never satisfy the command
/// floor (a floor `ask` is asked every time).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use std::time::Duration;
/// use serde_json::json;
/// use tool_core::{CallContext, ToolDefinition};
/// use tool_policy::{ApprovalAnswer, ApprovalGate, GateOutcome, Policy, Remember, ScriptedRequester};
///
/// let policy = Policy::from_toml_str("[policies.tool_permissions]\nwrite_file = \"ask\"\n").unwrap();
/// let def = ToolDefinition::builder("write_file", "Write.").build().unwrap();
/// let decision = policy.scope(None, None).decide(&def, None);
/// let requester = Arc::new(ScriptedRequester::new([ApprovalAnswer::Approved { remember: Remember::ToolForSession }]));
/// let gate = ApprovalGate::new(requester.clone(), Duration::from_secs(5));
/// let ctx = CallContext::new("c1");
/// assert_eq!(gate.authorize(&decision, "write_file", &json!({}), &ctx).await.unwrap(), GateOutcome::Approved(Remember::ToolForSession));
/// assert_eq!(gate.authorize(&decision, "write_file", &json!({"x": 1}), &ctx).await.unwrap(), GateOutcome::Remembered);
/// assert_eq!(requester.requests().len(), 1);
/// # });
/// ```
pub struct ApprovalGate {
    requester: Arc<dyn ApprovalRequester>,
    timeout: Duration,
    memory: Mutex<Memory>,
}

impl std::fmt::Debug for ApprovalGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalGate")
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ApprovalGate {
    /// A gate asking `requester`, waiting at most `timeout` per request.
    pub fn new(requester: Arc<dyn ApprovalRequester>, timeout: Duration) -> Self {
        Self {
            requester,
            timeout,
            memory: Mutex::new(Memory::default()),
        }
    }

    /// Let the call through, or say why not: `PermissionDenied` for a deny,
    /// `ApprovalDeclined` with the person's feedback, `ApprovalExpired` at
    /// the deadline, `Cancelled` when the call's token fires while waiting.
    pub async fn authorize(
        &self,
        decision: &Decision,
        tool: &str,
        arguments: &Value,
        ctx: &CallContext,
    ) -> Result<GateOutcome, ToolError> {
        let reason = match decision {
            Decision::Allow { .. } => return Ok(GateOutcome::Allowed),
            Decision::Deny { reason, .. } => {
                return Err(ToolError::PermissionDenied {
                    tool: tool.to_owned(),
                    reason: reason.clone(),
                })
            }
            Decision::Ask { reason, .. } => reason.clone(),
        };
        let key = (tool.to_owned(), arguments.to_string());
        if !decision.is_from_floor() {
            let memory = self.memory.lock().expect("lock");
            if memory.tools.contains(tool) || memory.exact.contains(&key) {
                return Ok(GateOutcome::Remembered);
            }
        }
        let started = Instant::now();
        let mut deadline = started + self.timeout;
        if let Some(call_deadline) = ctx.deadline() {
            deadline = deadline.min(call_deadline);
        }
        let request = ApprovalRequest {
            call_id: ctx.call_id().to_owned(),
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            reason,
            deadline,
        };
        let answer = tokio::select! {
            answer = self.requester.request(&request) => answer,
            () = tokio::time::sleep_until(deadline.into()) => {
                return Err(ToolError::ApprovalExpired { tool: tool.to_owned(), waited: started.elapsed() });
            }
            () = ctx.cancellation().cancelled() => {
                return Err(ToolError::Cancelled { tool: tool.to_owned() });
            }
        };
        match answer {
            ApprovalAnswer::Approved { remember } => {
                if !decision.is_from_floor() {
                    let mut memory = self.memory.lock().expect("lock");
                    match remember {
                        Remember::Once => {}
                        Remember::ToolForSession => {
                            memory.tools.insert(tool.to_owned());
                        }
                        Remember::ExactArgumentsForSession => {
                            memory.exact.insert(key);
                        }
                    }
                }
                Ok(GateOutcome::Approved(remember))
            }
            ApprovalAnswer::Declined { feedback } => Err(ToolError::ApprovalDeclined {
                tool: tool.to_owned(),
                feedback,
            }),
        }
    }
}
