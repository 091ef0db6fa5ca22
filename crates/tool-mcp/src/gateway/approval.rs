//! `ask` decisions put to the gateway client's user through MCP form
//! elicitation.

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::Peer;
use rmcp::RoleServer;
use tool_policy::{ApprovalAnswer, ApprovalRequest, ApprovalRequester, Remember};

/// Asks the gateway's client to approve a call, through MCP form
/// elicitation (an empty form: the person accepts or declines).
pub(super) struct ElicitingRequester {
    pub(super) peer: Peer<RoleServer>,
}

#[async_trait::async_trait]
impl ApprovalRequester for ElicitingRequester {
    async fn request(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        let message = format!(
            "Allow the tool call `{}`? {}\nArguments: {}",
            request.tool, request.reason, request.arguments
        );
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: ElicitationSchema::new(std::collections::BTreeMap::new()),
        };
        match self.peer.create_elicitation(params).await {
            Ok(result) => match result.action {
                ElicitationAction::Accept => ApprovalAnswer::Approved {
                    remember: Remember::Once,
                },
                ElicitationAction::Decline => ApprovalAnswer::Declined {
                    feedback: Some("declined in the client".into()),
                },
                _ => ApprovalAnswer::Declined {
                    feedback: Some("cancelled in the client".into()),
                },
            },
            Err(e) => ApprovalAnswer::Declined {
                feedback: Some(format!("the approval request failed: {e}")),
            },
        }
    }
}
