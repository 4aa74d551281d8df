//! Which pi release's encoding the RPC and JSON event streams speak (D15). Both dialects
//! carry the same session data; they differ in shapes (pi 1.x sends deltas in
//! `message_update`, acknowledges prompts with a `disposition`, adds `agent_settled`, ...).

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use super::command::Command;
use super::pi1_replies::{BashExecutionUpdate, Disposition, DispositionReply};
use super::replies::{CompactReply, LastText};
use super::stats::StatsScope;
use super::{pi073, pi1};
use crate::session::CompactionResult;
use crate::{AssistantMessage, Usage};

/// The encoding of `--mode rpc` and `--mode json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// pi 0.73.1's (`@mariozechner/pi-coding-agent`), the shapes of `shared/spec/interfaces.md`.
    Pi073,
    /// pi 1.x's (`@earendil-works/pi-coding-agent`), as pi 1.6.0's `docs/rpc*.md` and
    /// `docs/json.md` define it: the default (D15), since pi 1.x is what pi users run.
    #[default]
    Pi1,
}

impl Dialect {
    /// The name users write (`--rpc-dialect`, settings key `rpcDialect`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Pi073 => "0.73",
            Dialect::Pi1 => "1.x",
        }
    }
}

/// Where the dialects' responses differ; each answer comes from the dialect's own file
/// (`pi073.rs`, `pi1.rs`).
impl Dialect {
    /// Whether the dialect has `command` (else it is answered `Unknown command`).
    pub fn knows(self, command: &Command) -> bool {
        match self {
            Dialect::Pi073 => pi073::knows(command),
            Dialect::Pi1 => pi1::knows(command),
        }
    }

    /// The `data` of an accepted `prompt`, `steer` or `follow_up` (none: no `data`).
    pub fn accepted(self, disposition: Disposition) -> Option<DispositionReply> {
        match self {
            Dialect::Pi073 => pi073::accepted(disposition),
            Dialect::Pi1 => pi1::accepted(disposition),
        }
    }

    /// `get_last_assistant_text`'s `data`.
    pub fn last_text(self, text: Option<String>) -> LastText {
        match self {
            Dialect::Pi073 => pi073::last_text(text),
            Dialect::Pi1 => pi1::last_text(text),
        }
    }

    /// Whether `get_last_assistant_text` reads `reply` (else it looks further back).
    pub fn answers_last_text(self, reply: &AssistantMessage) -> bool {
        match self {
            Dialect::Pi073 => pi073::answers_last_text(reply),
            Dialect::Pi1 => pi1::answers_last_text(reply),
        }
    }

    /// What `get_session_stats` counts.
    pub fn stats_scope(self) -> StatsScope {
        match self {
            Dialect::Pi073 => pi073::stats_scope(),
            Dialect::Pi1 => pi1::stats_scope(),
        }
    }

    /// Whether the dialect shows pi 1.x's `system` messages (D18): in events, `get_messages`
    /// and the message counts. pi 0.73.1 has no such role.
    pub fn shows_system_messages(self) -> bool {
        matches!(self, Dialect::Pi1)
    }

    /// Whether `get_commands` lists the commands of pi's built-in extensions (`/mcp`,
    /// `/llama`): pi 1.x has them, pi 0.73.1 had none.
    pub fn lists_builtin_commands(self) -> bool {
        matches!(self, Dialect::Pi1)
    }

    /// Whether `new_session` starts the session with its model and thinking level entries
    /// (pi 1.6 does; pi 0.73.1 started it empty).
    pub fn records_new_session_state(self) -> bool {
        matches!(self, Dialect::Pi1)
    }

    /// The refusal of `fork` and `clone` while the session file is not written yet, where the
    /// dialect has one.
    pub fn unsaved_fork_error(self) -> Option<&'static str> {
        match self {
            Dialect::Pi073 => pi073::unsaved_fork_error(),
            Dialect::Pi1 => pi1::unsaved_fork_error(),
        }
    }

    /// `compact`'s `data`.
    pub fn compact_reply(
        self,
        result: CompactionResult,
        estimated_tokens_after: u64,
        usage: Option<Usage>,
    ) -> CompactReply {
        match self {
            Dialect::Pi073 => pi073::compact_reply(result, estimated_tokens_after, usage),
            Dialect::Pi1 => pi1::compact_reply(result, estimated_tokens_after, usage),
        }
    }

    /// The event for a piece of a `bash` command's output, if the dialect sends one.
    pub fn bash_update(self, id: Option<&Value>, delta: String) -> Option<BashExecutionUpdate> {
        match self {
            Dialect::Pi073 => pi073::bash_update(id, delta),
            Dialect::Pi1 => pi1::bash_update(id, delta),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name rho does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown RPC dialect \"{}\": use \"1.x\" (pi 1.x) or \"0.73\" (pi 0.73.1)",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// Accepts the names and the versions users are likely to write: `1`, `1.x`, `1.6`,
    /// `1.6.0`; `0.73`, `0.73.1`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        if t == "1" || t == "1.x" || t.starts_with("1.") {
            Ok(Dialect::Pi1)
        } else if t == "0.73" || t.starts_with("0.73.") || t == "0.x" {
            Ok(Dialect::Pi073)
        } else {
            Err(UnknownDialect(text.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions_parse() {
        for t in ["1", "1.x", "1.6", "1.6.0", "v1.6.0"] {
            assert_eq!(t.parse(), Ok(Dialect::Pi1), "{t}");
        }
        for t in ["0.73", "0.73.1", "0.x"] {
            assert_eq!(t.parse(), Ok(Dialect::Pi073), "{t}");
        }
        for d in [Dialect::Pi1, Dialect::Pi073] {
            assert_eq!(d.name().parse(), Ok(d));
        }
    }

    #[test]
    fn last_text_skips_what_each_dialect_skips() {
        use crate::{ContentBlock, StopReason};
        let reply = |stop_reason, content: Vec<ContentBlock>| AssistantMessage {
            stop_reason,
            content,
            ..AssistantMessage::empty("api", "provider", "model")
        };
        let tool_only = reply(StopReason::ToolUse, Vec::new());
        let aborted_empty = reply(StopReason::Aborted, Vec::new());
        let aborted_text = reply(StopReason::Aborted, vec![ContentBlock::text("partial")]);
        let failed_blank = reply(StopReason::Error, vec![ContentBlock::text("  ")]);
        let answers = |d: Dialect| {
            [&tool_only, &aborted_empty, &aborted_text, &failed_blank]
                .map(|r| d.answers_last_text(r))
        };
        assert_eq!(answers(Dialect::Pi1), [false, false, true, false]);
        assert_eq!(answers(Dialect::Pi073), [true, false, true, true]);
    }

    #[test]
    fn an_unknown_name_says_what_is_accepted() {
        let e = "2".parse::<Dialect>().unwrap_err().to_string();
        assert!(
            e.contains("\"2\"") && e.contains("1.x") && e.contains("0.73"),
            "{e}"
        );
    }
}
