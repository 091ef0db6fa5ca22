//! [`GatewayHost`]: what all clients of one gateway share.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::watch;
use tool_disclosure::{DisclosureSession, ProgressiveDisclosureRewriter, SearchIndex, SharedIndex};
use tool_policy::{Policy, ScopedPolicy};
use tool_registry::ChangeSubscription;

use super::session::Gateway;
use crate::{McpConfig, McpError, McpHub};

/// What every client of one gateway shares: the upstream servers (one
/// connection each, whatever the number of clients), the policy, the
/// disclosure settings and search index, and a signal that fires each time
/// the catalog publishes a new snapshot.
///
/// Each client gets its own [`Gateway`] from [`GatewayHost::session`]:
/// promotions and remembered approvals belong to one client.
///
/// ```
/// use tool_service::ToolService; // list()
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let config = tool_mcp::McpConfig::from_toml_str("[tools]\ndefer_mcp_tools = true\n").unwrap();
/// let host = tool_mcp::GatewayHost::start(&config).await.unwrap(); // no servers yet
/// let (alice, bob) = (host.session(), host.session());
/// assert!(alice.hub().names().is_empty());
/// assert_eq!(alice.service().list(), bob.service().list());
/// # });
/// ```
#[derive(Clone)]
pub struct GatewayHost {
    inner: Arc<HostInner>,
}

struct HostInner {
    hub: McpHub,
    policy: ScopedPolicy,
    rewriter: ProgressiveDisclosureRewriter,
    index: SharedIndex,
    approval_timeout: Duration,
    changes: watch::Receiver<u64>,
    _subscription: ChangeSubscription,
}

impl std::fmt::Debug for GatewayHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayHost")
            .field("hub", &self.inner.hub)
            .finish_non_exhaustive()
    }
}

impl GatewayHost {
    /// Connect every configured server and prepare the policy and
    /// disclosure. A server that fails to start is an error naming it.
    pub async fn start(config: &McpConfig) -> Result<Self, McpError> {
        let policy = Policy::new(&config.policy())
            .map_err(McpError::Config)?
            .scope(None, None);
        let rewriter = ProgressiveDisclosureRewriter::new(config.tools.clone()).map_err(|e| {
            McpError::BadServer {
                server: "[tools]".into(),
                reason: e.to_string(),
            }
        })?;
        let hub = McpHub::new(tool_registry::ToolCatalog::new())?;
        for server in &config.servers {
            hub.attach(server.clone()).await?;
        }
        let (sender, changes) = watch::channel(hub.catalog().snapshot().version());
        let subscription = hub.catalog().on_change(move |version| {
            sender.send_replace(version);
        });
        Ok(Self {
            inner: Arc::new(HostInner {
                hub,
                policy,
                rewriter,
                index: Arc::new(RwLock::new(SearchIndex::new())),
                approval_timeout: Duration::from_secs(300),
                changes,
                _subscription: subscription,
            }),
        })
    }

    /// The hub of upstream servers.
    pub fn hub(&self) -> &McpHub {
        &self.inner.hub
    }

    /// A new client's view: no promotions, no remembered approvals yet.
    pub fn session(&self) -> Gateway {
        let disclosure =
            DisclosureSession::new(self.inner.rewriter.clone(), Arc::clone(&self.inner.index));
        Gateway::new(self.clone(), disclosure)
    }

    pub(super) fn policy(&self) -> &ScopedPolicy {
        &self.inner.policy
    }

    pub(super) fn approval_timeout(&self) -> Duration {
        self.inner.approval_timeout
    }

    /// A receiver of catalog versions, as of now.
    pub(super) fn changes(&self) -> watch::Receiver<u64> {
        let mut changes = self.inner.changes.clone();
        changes.mark_unchanged();
        changes
    }

    /// Mark dead upstream servers unhealthy and reconnect them with
    /// backoff, for as long as the host lives.
    pub fn spawn_supervisor(&self) -> tokio::task::JoinHandle<()> {
        self.inner
            .hub
            .spawn_supervisor(Duration::from_secs(2), Duration::from_secs(60))
    }
}
