//! What session listeners (RPC, JSON mode, the TUI) receive: every agent event, plus the
//! session's own events (interfaces spec §1.5), serialized exactly as pi writes them.

use std::sync::Arc;

use crate::agent::AgentEvent;
use crate::ThinkingLevel;
use serde::{Serialize, Serializer};

use super::compaction::{CompactionAfter, CompactionResult};
use super::entry::SessionEntry;

/// Why a compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// `/compact` or the RPC `compact` command.
    Manual,
    /// The context passed the threshold.
    Threshold,
    /// The provider reported a context overflow.
    Overflow,
}

/// What a retried summary request summarises (pi 1.x's `summarization_retry_attempt_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum SummarySource {
    /// A compaction's summary.
    Compaction,
    /// A branch summary (`/tree`).
    BranchSummary,
}

/// Events only the session emits (listeners see them; extension handlers do not, SE-7).
/// [`SessionEventKind`] names them without serializing, by the same rule as serde's tag.
#[derive(Debug, Clone, PartialEq, Serialize, strum::EnumDiscriminants)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[strum_discriminants(
    name(SessionEventKind),
    derive(Hash, strum::IntoStaticStr, strum::EnumIter),
    strum(serialize_all = "snake_case"),
    doc = "The kind of a [`SessionOnlyEvent`]; converts into its wire `type` string."
)]
pub enum SessionOnlyEvent {
    /// The queued texts changed (full lists).
    QueueUpdate {
        steering: Vec<String>,
        follow_up: Vec<String>,
    },
    /// A compaction began.
    CompactionStart { reason: CompactionReason },
    /// A compaction ended (successfully, cancelled or failed).
    CompactionEnd {
        reason: CompactionReason,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<CompactionResult>,
        aborted: bool,
        will_retry: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
        /// With a result: what pi 1.x adds to it. Only the 1.x dialect writes it
        /// ([`super::pi1::CompactionEnd`]); pi 0.73.1's event has neither field.
        #[serde(skip)]
        after: Option<Box<CompactionAfter>>,
    },
    /// A retryable error: waiting `delayMs` before retry `attempt`.
    AutoRetryStart {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    /// Retrying ended.
    AutoRetryEnd {
        success: bool,
        attempt: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// A summary request (compaction, branch summary) failed in a way worth retrying and is
    /// sent again after `delay_ms` (pi 1.x; pi 0.73.1's dialect does not write it).
    SummarizationRetryScheduled {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    /// The retried summary request starts; a compaction's carries its `reason`.
    SummarizationRetryAttemptStart {
        source: SummarySource,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<CompactionReason>,
    },
    /// Retrying the summary request ended (it succeeded, failed for good or was aborted).
    SummarizationRetryFinished,
    /// The session name changed (`None` when cleared).
    SessionInfoChanged {
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The effective thinking level changed.
    ThinkingLevelChanged { level: ThinkingLevel },
    /// An extension handler (or a skill file, or a command) failed; the session went on.
    ExtensionError {
        extension_path: String,
        event: String,
        error: String,
    },
    /// A prompt's run loop is over: no retry, compaction recovery or queued message follows
    /// automatically (pi 1.x's `agent_settled`). `aborted` when an abort ended it. Emitted
    /// once per run loop, after its last event; pi 0.73.1's dialect does not write it.
    AgentSettled { aborted: bool },
    /// An extension appended a custom entry (`pi.appendEntry()`; pi 1.x's `entry_appended`,
    /// which pi 0.73.1's dialect does not write).
    EntryAppended { entry: Box<SessionEntry> },
}

/// One event for listeners.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// An event of the agent loop.
    Agent(Arc<AgentEvent>),
    /// An event of the session itself.
    Session(SessionOnlyEvent),
}

impl SessionEvent {
    /// The wire `type` string.
    pub fn type_name(&self) -> &'static str {
        match self {
            SessionEvent::Agent(e) => e.type_name(),
            SessionEvent::Session(e) => SessionEventKind::from(e).into(),
        }
    }
}

impl Serialize for SessionEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SessionEvent::Agent(e) => e.serialize(serializer),
            SessionEvent::Session(e) => e.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::EntryData;
    use serde_json::json;
    use strum::IntoEnumIterator;

    #[test]
    fn the_kind_names_the_serialized_type_of_every_session_event() {
        let reason = CompactionReason::Manual;
        let entry = SessionEntry {
            id: "e1".into(),
            parent_id: None,
            timestamp: "t".into(),
            data: EntryData::SessionInfo { name: None },
        };
        let events = [
            SessionOnlyEvent::QueueUpdate {
                steering: vec![],
                follow_up: vec![],
            },
            SessionOnlyEvent::CompactionStart { reason },
            SessionOnlyEvent::CompactionEnd {
                reason,
                result: None,
                aborted: true,
                will_retry: false,
                error_message: None,
                after: None,
            },
            SessionOnlyEvent::AutoRetryStart {
                attempt: 1,
                max_attempts: 3,
                delay_ms: 1,
                error_message: "x".into(),
            },
            SessionOnlyEvent::AutoRetryEnd {
                success: true,
                attempt: 1,
                final_error: None,
            },
            SessionOnlyEvent::SummarizationRetryScheduled {
                attempt: 1,
                max_attempts: 3,
                delay_ms: 1,
                error_message: "x".into(),
            },
            SessionOnlyEvent::SummarizationRetryAttemptStart {
                source: SummarySource::Compaction,
                reason: Some(reason),
            },
            SessionOnlyEvent::SummarizationRetryFinished,
            SessionOnlyEvent::SessionInfoChanged { name: None },
            SessionOnlyEvent::ThinkingLevelChanged {
                level: ThinkingLevel::High,
            },
            SessionOnlyEvent::ExtensionError {
                extension_path: "p".into(),
                event: "input".into(),
                error: "e".into(),
            },
            SessionOnlyEvent::AgentSettled { aborted: false },
            SessionOnlyEvent::EntryAppended {
                entry: Box::new(entry),
            },
        ];
        assert_eq!(events.len(), SessionEventKind::iter().count());
        for event in events {
            let event = SessionEvent::Session(event);
            let v = serde_json::to_value(&event).expect("serializes");
            assert_eq!(v["type"], event.type_name(), "{v}");
        }
    }

    #[test]
    fn session_events_serialize_as_pi_writes_them() {
        let e = SessionEvent::Session(SessionOnlyEvent::AutoRetryStart {
            attempt: 1,
            max_attempts: 3,
            delay_ms: 2000,
            error_message: "503".into(),
        });
        assert_eq!(
            serde_json::to_value(&e).expect("serializes"),
            json!({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "503"})
        );
        let end = SessionEvent::Session(SessionOnlyEvent::CompactionEnd {
            reason: CompactionReason::Overflow,
            result: None,
            aborted: false,
            will_retry: false,
            error_message: Some("x".into()),
            after: None,
        });
        assert_eq!(
            serde_json::to_value(&end).expect("serializes"),
            json!({"type": "compaction_end", "reason": "overflow", "aborted": false, "willRetry": false, "errorMessage": "x"})
        );
        let settled = SessionEvent::Session(SessionOnlyEvent::AgentSettled { aborted: true });
        assert_eq!(settled.type_name(), "agent_settled");
        assert_eq!(
            serde_json::to_value(&settled).expect("serializes"),
            json!({"type": "agent_settled", "aborted": true})
        );
        let agent = SessionEvent::Agent(Arc::new(AgentEvent::AgentStart));
        assert_eq!(
            serde_json::to_value(&agent).expect("serializes"),
            json!({"type": "agent_start"})
        );
    }
}
