//! The events extensions receive and the results they may return (session-behavior §18,
//! EXT-3). Plain serde data: in-process Rust extensions and out-of-process ones (JSON over
//! stdio) see the same shapes, so one runner serves both; the host sends them in the `event`
//! request of [`super::ToExtension`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::AgentMessage;
use crate::{ContentBlock, ImageContent, Model, ThinkingLevel, ToolResultMessage};

/// One event, tagged by `type` (snake_case) with camelCase fields. [`Self::type_name`] is
/// derived by the same rule.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ExtensionEvent {
    /// pi 1.6's `project_trust`: the folder `cwd` has project resources and nothing decided
    /// their trust yet; the user's and the command line's extensions may decide it
    /// ([`ProjectTrustResult`]) before the project's own load.
    ProjectTrust { cwd: String },
    /// Extensions may contribute resource paths.
    ResourcesDiscover { cwd: String, reason: String },
    /// A session became active.
    SessionStart {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous_session_file: Option<String>,
    },
    /// About to switch sessions; may cancel.
    SessionBeforeSwitch {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// About to fork; may cancel.
    SessionBeforeFork { entry_id: String, position: String },
    /// About to compact; may cancel or supply the summary. `reason`: `manual`, `threshold`
    /// or `overflow`; `willRetry`: the interrupted turn is retried afterwards.
    SessionBeforeCompact {
        preparation: Value,
        branch_entries: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<String>,
        #[serde(default)]
        reason: String,
        #[serde(default)]
        will_retry: bool,
    },
    /// A compaction entry was saved.
    SessionCompact {
        compaction_entry: Value,
        from_extension: bool,
        #[serde(default)]
        reason: String,
        #[serde(default)]
        will_retry: bool,
    },
    /// A compaction failed or was aborted (pi 1.6): `errorMessage` unless aborted.
    SessionCompactFailed {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error_message: Option<String>,
        aborted: bool,
        will_retry: bool,
        from_extension: bool,
    },
    /// About to move the leaf in the session tree; may cancel, supply the branch summary,
    /// or override the instructions and label. `preparation` is a [`TreePreparation`].
    SessionBeforeTree { preparation: TreePreparation },
    /// The leaf moved (`summaryEntry` and `fromExtension` only when a summary was written).
    SessionTree {
        new_leaf_id: Option<String>,
        old_leaf_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary_entry: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from_extension: Option<bool>,
    },
    /// The session's name was set or cleared (pi 1.6): the name now, absent when cleared.
    SessionInfoChanged {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The session is going away.
    SessionShutdown {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// Before every LLM request: a copy of the messages without the system messages (pi
    /// 1.6), replaceable. A result's `errors` (each a
    /// [`super::boundary::BoundaryHandlerError`]) are failures of handlers inside the
    /// extension process that it went on past, as pi goes on past a failing handler.
    Context { messages: Vec<AgentMessage> },
    /// pi 1.6: before each call, after every `context` handler, the whole transcript with
    /// its system messages (a leading one carries the prompt and the tool declarations); the
    /// returned messages are what the request is made of, prompt and tools included.
    ContextWithSystem { messages: Vec<AgentMessage> },
    /// The request's headers were assembled (pi 1.6): `headers` maps each name to its value
    /// (credentials left out); a handler returns the map with names set to a string (added or
    /// replaced) or to null (removed), which later handlers see.
    BeforeProviderHeaders { headers: Value },
    /// The provider payload was built; a handler may return a replacement (chained).
    BeforeProviderRequest { payload: Value },
    /// The provider's response headers arrived.
    AfterProviderResponse { status: u16, headers: Value },
    /// One parsed event of the provider's stream, before rho folds it into the reply (pi
    /// 1.6): notification only, awaited in stream order. `data` is the event's JSON.
    ProviderStreamEvent {
        provider: String,
        api: String,
        model: String,
        data: Value,
    },
    /// Before an accepted prompt's run.
    BeforeAgentStart {
        prompt: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
        system_prompt: String,
        system_prompt_options: Value,
    },
    /// A run began.
    AgentStart,
    /// A run ended.
    AgentEnd { messages: Vec<AgentMessage> },
    /// The session will not run on by itself (retries, compaction, follow-ups are done): pi
    /// 1.x's notification-only `agent_settled`.
    AgentSettled { aborted: bool },
    /// A turn began.
    TurnStart { turn_index: u32, timestamp: i64 },
    /// A turn ended, its reply and tool results in the session file (pi 1.6's actionable
    /// boundary, see [`crate::extension::boundary`]): `entries` and `continue` are what the
    /// handlers before this one proposed, `context` the model context with those entries.
    TurnEnd {
        turn_index: u32,
        message: AgentMessage,
        tool_results: Vec<ToolResultMessage>,
        message_entry_id: String,
        tool_result_entry_ids: Vec<String>,
        /// `completed`, `aborted` or `error`.
        outcome: String,
        entries: Vec<Value>,
        #[serde(rename = "continue")]
        continue_: bool,
        context: Value,
    },
    /// The run is about to settle (pi 1.6): the last boundary where handlers may append
    /// entries and ask for one more provider request (fields as for `turn_end`).
    AgentBeforeSettle {
        outcome: String,
        entries: Vec<Value>,
        #[serde(rename = "continue")]
        continue_: bool,
        context: Value,
    },
    /// A message entered the conversation.
    MessageStart { message: AgentMessage },
    /// The streaming assistant message changed.
    MessageUpdate {
        message: AgentMessage,
        assistant_message_event: Value,
    },
    /// A message is final; may be replaced (same role).
    MessageEnd { message: AgentMessage },
    /// A tool call began.
    ToolExecutionStart {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        /// The call that made this one (a codemode script's), for a nested call.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A tool reported progress.
    ToolExecutionUpdate {
        tool_call_id: String,
        tool_name: String,
        args: Value,
        partial_result: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// A tool call finished.
    ToolExecutionEnd {
        tool_call_id: String,
        tool_name: String,
        result: Value,
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
    },
    /// The model changed.
    ModelSelect {
        model: Model,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous_model: Option<Model>,
        source: String,
    },
    /// The thinking level changed.
    ThinkingLevelSelect {
        level: ThinkingLevel,
        previous_level: ThinkingLevel,
    },
    /// The user ran `!cmd`; a handler may supply the result.
    UserBash {
        command: String,
        exclude_from_context: bool,
        cwd: String,
    },
    /// User input before expansion.
    Input {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
        source: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<String>,
    },
    /// A tool is about to run; may block.
    ToolCall {
        tool_name: String,
        tool_call_id: String,
        input: Value,
    },
    /// A tool finished; may replace its result.
    ToolResult {
        tool_name: String,
        tool_call_id: String,
        input: Value,
        content: Vec<ContentBlock>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
        is_error: bool,
    },
}

impl ExtensionEvent {
    /// The `type` string handlers are registered under.
    pub fn type_name(&self) -> &'static str {
        self.into()
    }
}

/// `input` handler result (IN-3..5). Anything unparsable counts as `continue`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum InputResult {
    /// Consumed: nothing further happens.
    Handled,
    /// Replace the text (and images when given).
    Transform {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        images: Option<Vec<ImageContent>>,
    },
    /// No change.
    Continue,
}

/// A message a `before_agent_start` handler injects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InjectedMessage {
    /// The custom type.
    pub custom_type: String,
    /// What the model sees.
    pub content: crate::UserContent,
    /// Whether UIs show it.
    #[serde(default)]
    pub display: bool,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// `before_agent_start` result (MSG-5).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeAgentStartResult {
    /// A message to inject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<InjectedMessage>,
    /// A replacement system prompt (chained).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

/// `tool_call` result (EXT-10).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    /// Stop the call.
    #[serde(default)]
    pub block: bool,
    /// Why (the model reads it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `tool_result` result (EXT-11): each given field replaces the current one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultPatch {
    /// New content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentBlock>>,
    /// New details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// New error flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

/// A `project_trust` handler's answer: `yes` or `no` decides (the first such answer wins),
/// `undecided` leaves it to later handlers and the built-in flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectTrustResult {
    /// The answer.
    pub trusted: TrustAnswer,
    /// Save a yes/no to trust.json; otherwise it holds for this process only.
    #[serde(default)]
    pub remember: bool,
}

/// pi's `ProjectTrustEventDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrustAnswer {
    /// Trust the folder.
    Yes,
    /// Do not trust it.
    No,
    /// Let someone else decide.
    Undecided,
}

/// `session_before_*` result (EXT-4).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionBeforeResult {
    /// Cancel the operation (short-circuits later handlers).
    #[serde(default)]
    pub cancel: bool,
    /// For compaction: a ready summary `{summary, firstKeptEntryId, tokensBefore, details?}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Value>,
    /// For fork: skip restoring the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_conversation_restore: Option<bool>,
    /// For tree navigation: a ready branch summary `{summary, details?}`, used instead of
    /// the model when the user asked for a summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
    /// For tree navigation: replaces the user's custom instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// For tree navigation: replaces the user's replace-instructions choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    /// For tree navigation: replaces the user's label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// What `session_before_tree` handlers see (EXT-3): where the leaf moves from and to, and
/// the entries of the branch being left, so a handler can summarise them itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePreparation {
    /// The entry the user selected.
    pub target_id: String,
    /// The leaf before navigating (`null` for an empty branch).
    pub old_leaf_id: Option<String>,
    /// The deepest entry shared by the old branch and the target's path.
    pub common_ancestor_id: Option<String>,
    /// The old branch after the common ancestor, as stored entries, oldest first.
    pub entries_to_summarize: Vec<Value>,
    /// Whether the user asked for a branch summary.
    pub user_wants_summary: bool,
    /// The user's extra summariser instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
    /// Whether the custom instructions replace the built-in prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    /// The label the user gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_with_snake_type_and_camel_fields() {
        let e = ExtensionEvent::ToolCall {
            tool_name: "bash".into(),
            tool_call_id: "t1".into(),
            input: json!({"command": "ls"}),
        };
        assert_eq!(
            serde_json::to_value(&e).expect("serializes"),
            json!({"type": "tool_call", "toolName": "bash", "toolCallId": "t1", "input": {"command": "ls"}})
        );
        assert_eq!(e.type_name(), "tool_call");
        let input = ExtensionEvent::Input {
            text: "hi".into(),
            images: None,
            source: "rpc".into(),
            streaming_behavior: None,
        };
        assert_eq!(
            serde_json::to_value(&input).expect("serializes"),
            json!({"type": "input", "text": "hi", "source": "rpc"})
        );
    }

    #[test]
    fn results_parse_from_extension_json() {
        let r: InputResult =
            serde_json::from_value(json!({"action": "transform", "text": "x"})).expect("parses");
        assert_eq!(
            r,
            InputResult::Transform {
                text: "x".into(),
                images: None
            }
        );
        let r: InputResult = serde_json::from_value(json!({"action": "handled"})).expect("parses");
        assert_eq!(r, InputResult::Handled);
        let b: ToolCallResult =
            serde_json::from_value(json!({"block": true, "reason": "no"})).expect("parses");
        assert!(b.block);
    }
}
