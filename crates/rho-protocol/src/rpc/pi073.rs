//! pi 0.73.1's encoding of the command responses (interfaces spec §1.4): the commands pi
//! 1.x added are unknown; accepted prompts, steers and follow-ups carry no `data`;
//! `get_last_assistant_text` answers `{}` when there is no text; `bash` sends no events;
//! `compact` returns the result alone.

use serde_json::Value;

use crate::{AssistantMessage, StopReason, Usage};

use super::command::Command;
use super::pi1_replies::{BashExecutionUpdate, Disposition, DispositionReply};
use super::replies::CompactReply;
use super::replies::{LastAssistantText, LastText};
use super::stats::StatsScope;
use crate::session::CompactionResult;

/// False for the commands pi 1.x added.
pub fn knows(command: &Command) -> bool {
    !command.is_pi1_only()
}

/// No `data` on an accepted `prompt`, `steer` or `follow_up`.
pub fn accepted(_disposition: Disposition) -> Option<DispositionReply> {
    None
}

/// `get_last_assistant_text`'s `data`.
pub fn last_text(text: Option<String>) -> LastText {
    LastText::Omitted(LastAssistantText { text })
}

/// No events for `bash` output.
pub fn bash_update(_id: Option<&Value>, _delta: String) -> Option<BashExecutionUpdate> {
    None
}

/// What `get_session_stats` counts.
pub fn stats_scope() -> StatsScope {
    StatsScope::Context
}

/// pi 0.73.1 forks and clones a session whether or not its file is written yet.
pub fn unsaved_fork_error() -> Option<&'static str> {
    None
}

/// `compact`'s `data`.
pub fn compact_reply(
    result: CompactionResult,
    _estimated_tokens_after: u64,
    _usage: Option<Usage>,
) -> CompactReply {
    CompactReply {
        result,
        estimated_tokens_after: None,
        usage: None,
    }
}

/// Which reply `get_last_assistant_text` reads: the last one, unless it was aborted before
/// any content.
pub fn answers_last_text(reply: &AssistantMessage) -> bool {
    !(reply.stop_reason == StopReason::Aborted && reply.content.is_empty())
}
