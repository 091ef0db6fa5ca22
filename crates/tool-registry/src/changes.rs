//! Change listeners: code that must react when the catalog publishes a new
//! snapshot (a gateway telling its client that the tool list changed, a
//! host rebuilding a cached view) subscribes instead of polling.

use std::sync::{Arc, Mutex, PoisonError, Weak};

type Listener = Arc<dyn Fn(u64) + Send + Sync>;

/// The listeners of one catalog.
#[derive(Default)]
pub(crate) struct Listeners {
    next_id: Mutex<u64>,
    listeners: Mutex<Vec<(u64, Listener)>>,
}

impl Listeners {
    pub(crate) fn add(self: &Arc<Self>, listener: Listener) -> ChangeSubscription {
        let id = {
            let mut next = self.next_id.lock().unwrap_or_else(PoisonError::into_inner);
            *next += 1;
            *next
        };
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, listener));
        ChangeSubscription {
            listeners: Arc::downgrade(self),
            id,
        }
    }

    /// Call every listener with the new snapshot version. The list is
    /// copied first, so a listener may subscribe or unsubscribe.
    pub(crate) fn notify(&self, version: u64) {
        let listeners: Vec<Listener> = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(_, l)| Arc::clone(l))
            .collect();
        for listener in listeners {
            listener(version);
        }
    }

    fn remove(&self, id: u64) {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(i, _)| *i != id);
    }

    pub(crate) fn len(&self) -> usize {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// A subscription made with [`crate::ToolCatalog::on_change`]; dropping it
/// (or calling [`ChangeSubscription::cancel`]) stops the calls.
#[must_use = "dropping the subscription stops the change calls"]
pub struct ChangeSubscription {
    listeners: Weak<Listeners>,
    id: u64,
}

impl ChangeSubscription {
    /// Stop the calls now.
    pub fn cancel(self) {}
}

impl std::fmt::Debug for ChangeSubscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeSubscription")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Drop for ChangeSubscription {
    fn drop(&mut self) {
        if let Some(listeners) = self.listeners.upgrade() {
            listeners.remove(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use tool_core::{FnTool, ToolOutput, ToolSource};

    use crate::{Health, SourceConfig, ToolCatalog};

    fn echo(name: &str) -> tool_core::SharedTool {
        FnTool::builder(name, "Echo.")
            .handler(|_, _| async { Ok(ToolOutput::text("hi")) })
            .unwrap()
    }

    #[test]
    fn every_published_snapshot_is_announced_once_until_the_subscription_drops() {
        let catalog = ToolCatalog::new();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&calls);
        let subscription = catalog.on_change(move |v| seen.lock().unwrap().push(v));
        catalog
            .add_source(SourceConfig::new("a", ToolSource::mcp("a")))
            .unwrap();
        catalog.set_source_tools("a", vec![echo("x")]).unwrap();
        let gone = || Health::Unhealthy {
            reason: "gone".into(),
        };
        catalog.set_health("a", gone()).unwrap();
        // Same health again publishes nothing, so nothing is announced.
        catalog.set_health("a", gone()).unwrap();
        let version = catalog.snapshot().version();
        assert_eq!(*calls.lock().unwrap(), vec![version - 1, version]);
        assert_eq!(catalog.change_subscribers(), 1);
        drop(subscription);
        assert_eq!(catalog.change_subscribers(), 0);
        catalog.set_health("a", Health::Healthy).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_listener_may_read_the_new_snapshot_and_subscriptions_outlive_the_catalog() {
        let catalog = ToolCatalog::new();
        let reader = catalog.clone();
        let visible = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&visible);
        let subscription = catalog.on_change(move |_| {
            count.store(reader.snapshot().len(), Ordering::SeqCst);
        });
        catalog
            .add_source(SourceConfig::new("a", ToolSource::mcp("a")))
            .unwrap();
        catalog
            .set_source_tools("a", vec![echo("x"), echo("y")])
            .unwrap();
        assert_eq!(visible.load(Ordering::SeqCst), 2);
        drop(catalog);
        subscription.cancel();
    }
}
