//! Call events: one per call, to a sink; a JSON-lines sink whose records
//! can be chained by SHA-256 so that an edited or truncated ledger fails
//! [`verify_ledger`].

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Everything recorded about one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallEvent {
    /// The call id.
    pub call_id: String,
    /// The name the model used.
    pub requested_tool: String,
    /// The tool it resolved to (after repair), if any.
    pub tool: Option<String>,
    /// `allow`, `ask` or `deny`, when the policy was consulted.
    pub decision: Option<String>,
    /// The decision's provenance (tier, entry, rule, facts).
    pub provenance: Option<Value>,
    /// How the approval gate let it through, if it did.
    pub approval: Option<String>,
    /// Time queued in a batch before starting, ms.
    pub waiting_ms: f64,
    /// Time waiting for approval, ms.
    pub approval_ms: f64,
    /// Time running (all attempts), ms.
    pub running_ms: f64,
    /// Attempts made.
    pub attempts: u32,
    /// `ok`, or the error kind.
    pub outcome: String,
    /// The error message, if it failed.
    pub error: Option<String>,
    /// Bytes of the arguments.
    pub input_bytes: usize,
    /// Bytes of the output content sent back.
    pub output_bytes: usize,
    /// The arguments, unless redacted.
    pub arguments: Option<Value>,
}

/// Receives call events. Must not block for long: it runs on the call path.
pub trait EventSink: Send + Sync + 'static {
    /// Record one event.
    fn record(&self, event: &CallEvent);
}

/// Keeps events in memory (tests, traces).
#[derive(Debug, Default)]
pub struct MemorySink {
    events: Mutex<Vec<CallEvent>>,
}

impl MemorySink {
    /// Every event so far.
    pub fn events(&self) -> Vec<CallEvent> {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl EventSink for MemorySink {
    fn record(&self, event: &CallEvent) {
        self.events
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(event.clone());
    }
}

/// The hash before the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn chain_hash(prev: &str, record: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(record.as_bytes());
    h.finalize()
        .iter()
        .fold(String::with_capacity(64), |mut acc, b| {
            use std::fmt::Write as _;
            let _ = write!(acc, "{b:02x}");
            acc
        })
}

/// One ledger line: the event, and (when chained) the previous hash and
/// this record's hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct LedgerLine {
    event: CallEvent,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prev: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hash: Option<String>,
}

struct SinkState {
    file: File,
    head: String,
}

/// Appends one JSON line per event; optionally chains each record to the
/// previous one by SHA-256 of (previous hash, record). Write errors are
/// reported through `tracing`, never by failing the call.
///
/// ```
/// use tool_service::{verify_ledger, CallEvent, EventSink, JsonlSink};
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("ledger.jsonl");
/// let sink = JsonlSink::create(&path, true).unwrap();
/// # let event = CallEvent { call_id: "c1".into(), requested_tool: "t".into(), tool: None, decision: None, provenance: None, approval: None, waiting_ms: 0.0, approval_ms: 0.0, running_ms: 0.0, attempts: 1, outcome: "ok".into(), error: None, input_bytes: 2, output_bytes: 2, arguments: None };
/// sink.record(&event);
/// assert_eq!(verify_ledger(&path, Some(&sink.head())).unwrap(), 1);
/// ```
pub struct JsonlSink {
    path: PathBuf,
    chained: bool,
    redact_arguments: bool,
    state: Mutex<SinkState>,
}

impl std::fmt::Debug for JsonlSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonlSink")
            .field("path", &self.path)
            .field("chained", &self.chained)
            .finish_non_exhaustive()
    }
}

impl JsonlSink {
    /// Open (append) a ledger; with `chained`, continue the chain from its
    /// last record.
    pub fn create(path: impl AsRef<Path>, chained: bool) -> std::io::Result<Self> {
        let path = path.as_ref().to_owned();
        let head = if chained && path.exists() {
            last_hash(&path)?.unwrap_or_else(|| GENESIS.to_owned())
        } else {
            GENESIS.to_owned()
        };
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Self {
            path,
            chained,
            redact_arguments: false,
            state: Mutex::new(SinkState { file, head }),
        })
    }

    /// Leave arguments out of the records.
    pub fn redact_arguments(mut self, redact: bool) -> Self {
        self.redact_arguments = redact;
        self
    }

    /// The latest hash (store it elsewhere to detect a truncated tail).
    pub fn head(&self) -> String {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .head
            .clone()
    }
}

fn last_hash(path: &Path) -> std::io::Result<Option<String>> {
    let reader = BufReader::new(File::open(path)?);
    let mut last = None;
    for line in reader.lines() {
        let line = line?;
        if let Ok(l) = serde_json::from_str::<LedgerLine>(&line) {
            last = l.hash.or(last);
        }
    }
    Ok(last)
}

impl EventSink for JsonlSink {
    fn record(&self, event: &CallEvent) {
        let mut event = event.clone();
        if self.redact_arguments {
            event.arguments = None;
        }
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let line = if self.chained {
            let body = serde_json::to_string(&event).unwrap_or_default();
            let hash = chain_hash(&state.head, &body);
            let line = LedgerLine {
                event,
                prev: Some(state.head.clone()),
                hash: Some(hash.clone()),
            };
            state.head = hash;
            line
        } else {
            LedgerLine {
                event,
                prev: None,
                hash: None,
            }
        };
        let text = serde_json::to_string(&line).unwrap_or_default();
        if let Err(e) = writeln!(state.file, "{text}") {
            tracing::error!(path = %self.path.display(), error = %e, "cannot write the call ledger");
        }
    }
}

/// Why a ledger failed verification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    /// The file could not be read.
    #[error("cannot read ledger {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// The first record that does not verify (1-based line).
    #[error("ledger record {line} is bad: {reason}")]
    BadRecord {
        /// 1-based line.
        line: usize,
        /// Why.
        reason: String,
    },
    /// The ledger ends before the expected head: records were cut off.
    #[error(
        "ledger is truncated: it ends after record {records} without reaching the expected head"
    )]
    Truncated {
        /// Records present.
        records: usize,
    },
}

/// Verify a chained ledger: every record parses, links to the previous
/// hash, and hashes to what it claims. With `expected_head`, the last hash
/// must equal it (so a cut-off tail fails too). Returns the record count.
pub fn verify_ledger(path: &Path, expected_head: Option<&str>) -> Result<usize, LedgerError> {
    let file = File::open(path).map_err(|e| LedgerError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let mut prev = GENESIS.to_owned();
    let mut count = 0;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|e| LedgerError::BadRecord {
            line: n,
            reason: e.to_string(),
        })?;
        let record: LedgerLine =
            serde_json::from_str(&line).map_err(|e| LedgerError::BadRecord {
                line: n,
                reason: format!("not a ledger record: {e}"),
            })?;
        let (Some(p), Some(h)) = (record.prev, record.hash) else {
            return Err(LedgerError::BadRecord {
                line: n,
                reason: "record is not chained".into(),
            });
        };
        if p != prev {
            return Err(LedgerError::BadRecord {
                line: n,
                reason: "does not link to the previous record (a record was removed or reordered)"
                    .into(),
            });
        }
        let body = serde_json::to_string(&record.event).unwrap_or_default();
        if chain_hash(&p, &body) != h {
            return Err(LedgerError::BadRecord {
                line: n,
                reason: "hash does not match its contents (the record was edited)".into(),
            });
        }
        prev = h;
        count = n;
    }
    if let Some(head) = expected_head {
        if head != prev {
            return Err(LedgerError::Truncated { records: count });
        }
    }
    Ok(count)
}
