//! The streaming event protocol (providers spec §2): one event of an assistant reply.
//!
//! Events carry deltas, not snapshots of the partial message: copying a growing message per
//! token would make long replies quadratic. The channel that carries them and the fold into
//! the partial message live with the providers (`crate::event`).

use crate::content::{TextContent, ThinkingContent, ToolCall};
use crate::message::AssistantMessage;
use crate::usage::StopReason;

/// One event of an assistant reply. `content_index` indexes the message's `content`.
#[derive(Debug, Clone, PartialEq)]
pub enum AssistantMessageEvent {
    /// The response headers arrived with a 2xx status; `partial` is the empty message.
    Start {
        /// The empty message (api, provider, model filled).
        partial: AssistantMessage,
    },
    /// A text block opened.
    TextStart {
        /// Index into `content`.
        content_index: usize,
    },
    /// More text.
    TextDelta {
        /// Index into `content`.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A text block closed; `text` is the final block.
    TextEnd {
        /// Index into `content`.
        content_index: usize,
        /// The whole block, signature included.
        text: TextContent,
    },
    /// A thinking block opened.
    ThinkingStart {
        /// Index into `content`.
        content_index: usize,
    },
    /// More thinking.
    ThinkingDelta {
        /// Index into `content`.
        content_index: usize,
        /// The new text.
        delta: String,
    },
    /// A thinking block closed; `thinking` is the final block.
    ThinkingEnd {
        /// Index into `content`.
        content_index: usize,
        /// The whole block, signature included.
        thinking: ThinkingContent,
    },
    /// A tool call opened.
    ToolCallStart {
        /// Index into `content`.
        content_index: usize,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A raw fragment of the arguments' JSON (may be empty).
    ToolCallDelta {
        /// Index into `content`.
        content_index: usize,
        /// Raw JSON fragment.
        delta: String,
    },
    /// A tool call closed with its parsed arguments.
    ToolCallEnd {
        /// Index into `content`.
        content_index: usize,
        /// The final call.
        tool_call: ToolCall,
    },
    /// The reply ended normally (`stop`, `length` or `toolUse`).
    Done {
        /// The stop reason.
        reason: StopReason,
        /// The final message.
        message: AssistantMessage,
    },
    /// The reply failed (`error`) or was aborted (`aborted`); `error` keeps what streamed.
    Error {
        /// `error` or `aborted`.
        reason: StopReason,
        /// The message so far, with `stop_reason` and `error_message` set.
        error: AssistantMessage,
    },
}

impl AssistantMessageEvent {
    /// The wire name of the event (`text_delta`, `done`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Start { .. } => "start",
            Self::TextStart { .. } => "text_start",
            Self::TextDelta { .. } => "text_delta",
            Self::TextEnd { .. } => "text_end",
            Self::ThinkingStart { .. } => "thinking_start",
            Self::ThinkingDelta { .. } => "thinking_delta",
            Self::ThinkingEnd { .. } => "thinking_end",
            Self::ToolCallStart { .. } => "toolcall_start",
            Self::ToolCallDelta { .. } => "toolcall_delta",
            Self::ToolCallEnd { .. } => "toolcall_end",
            Self::Done { .. } => "done",
            Self::Error { .. } => "error",
        }
    }

    /// Whether this event ends the stream.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Done { .. } | Self::Error { .. })
    }
}
