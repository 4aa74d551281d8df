//! pi 1.x's encoding of the command responses (pi 1.6's docs/rpc-commands.md): every
//! command is known; prompts, steers and follow-ups answer with a `disposition`;
//! `get_last_assistant_text` answers `{"text":null}` when there is none; `bash` streams
//! `bash_execution_update` events; `compact` adds `estimatedTokensAfter` and `usage`.

use serde_json::Value;

use crate::{AssistantMessage, StopReason, Usage};

use super::command::Command;
use super::pi1_replies::{BashExecutionUpdate, Disposition, DispositionReply, NullableText};
use super::replies::CompactReply;
use super::replies::LastText;
use super::stats::StatsScope;
use crate::session::CompactionResult;

/// pi 1.x knows every command rho parses.
pub fn knows(_command: &Command) -> bool {
    true
}

/// The `data` of an accepted `prompt`, `steer` or `follow_up`.
pub fn accepted(disposition: Disposition) -> Option<DispositionReply> {
    Some(DispositionReply { disposition })
}

/// `get_last_assistant_text`'s `data`.
pub fn last_text(text: Option<String>) -> LastText {
    LastText::Nullable(NullableText { text })
}

/// The event for a piece of `bash` output.
pub fn bash_update(id: Option<&Value>, delta: String) -> Option<BashExecutionUpdate> {
    Some(BashExecutionUpdate {
        kind: "bash_execution_update".into(),
        id: id.cloned(),
        delta,
    })
}

/// What `get_session_stats` counts.
pub fn stats_scope() -> StatsScope {
    StatsScope::File
}

/// pi 1.x refuses to fork or clone a session whose file is not written yet (it is written
/// with the first reply).
pub fn unsaved_fork_error() -> Option<&'static str> {
    Some("This session has not been saved yet. Send a message before cloning or forking it.")
}

/// `compact`'s `data`.
pub fn compact_reply(
    result: CompactionResult,
    estimated_tokens_after: u64,
    usage: Option<Usage>,
) -> CompactReply {
    CompactReply {
        result,
        estimated_tokens_after: Some(estimated_tokens_after),
        usage,
    }
}

/// Which reply `get_last_assistant_text` reads: the last one that ended normally or has text
/// (replies of an aborted or failed turn without text, and tool-call-only replies, are skipped).
pub fn answers_last_text(reply: &AssistantMessage) -> bool {
    reply.stop_reason == StopReason::Stop || !reply.text().trim().is_empty()
}
