//! Agent messages: the three LLM roles plus pi's own roles (bash results, extension messages,
//! branch and compaction summaries), as pi writes them in events and session files, and the
//! LLM form each one takes before a model call (interfaces spec §5.4-§5.5).

use crate::{AssistantMessage, ContentBlock, Message, ToolResultMessage, UserContent, UserMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The result of a user-run shell command (`!cmd`), kept in the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command line.
    pub command: String,
    /// Combined output (possibly truncated).
    pub output: String,
    /// Exit code, absent when killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True when the user cancelled it.
    #[serde(default)]
    pub cancelled: bool,
    /// True when `output` was truncated.
    #[serde(default)]
    pub truncated: bool,
    /// Where the full output was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// Unix ms.
    pub timestamp: i64,
    /// True for `!!cmd`: shown, never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
}

/// A message injected by an extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's message type.
    pub custom_type: String,
    /// What the model sees.
    pub content: UserContent,
    /// Whether UIs show it.
    #[serde(default)]
    pub display: bool,
    /// Extension data, never sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Unix ms.
    pub timestamp: i64,
}

/// pi 1.x's record of the system prompt and tool list (`role: "system"`). The first one carries
/// every prompt section and tool; later ones patch `sections` by name (`null` removes one) and
/// list tools added or removed. rho records them as pi 1.x does (D18) and sends the model
/// what they replay to ([`super::system::SystemState`]), never the messages themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    /// Free-form instructions: a string or text blocks.
    pub content: UserContent,
    /// Named prompt sections (`null` removes a section), in the order written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Map<String, Value>>,
    /// Tool declarations added (name, description, parameters, as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<Value>>,
    /// References (`{name}`) to tools removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<Value>>,
    /// Unix ms.
    pub timestamp: i64,
}

/// Summary of a branch the conversation returned from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// The leaf the abandoned branch ended at (`null` in pi 1.x when there was none).
    pub from_id: Option<String>,
    /// Unix ms.
    pub timestamp: i64,
}

/// Summary of history condensed by compaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// Unix ms.
    pub timestamp: i64,
}

/// Any message the agent keeps, tagged by `role` exactly as pi writes it. [`Self::role`]
/// names the role without serializing, derived by the same rule as serde's tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, strum::IntoStaticStr)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "role", rename_all = "camelCase")]
#[strum(serialize_all = "camelCase")]
pub enum AgentMessage {
    /// `system` (pi 1.x): the model gets what these replay to, not the messages.
    System(SystemMessage),
    /// `user`
    User(UserMessage),
    /// `assistant`
    Assistant(AssistantMessage),
    /// `toolResult`
    ToolResult(ToolResultMessage),
    /// `bashExecution`
    BashExecution(BashExecutionMessage),
    /// `custom`
    Custom(CustomMessage),
    /// `branchSummary`
    BranchSummary(BranchSummaryMessage),
    /// `compactionSummary`
    CompactionSummary(CompactionSummaryMessage),
}

/// An assistant message serialized as the [`AgentMessage`] holding it would be (`role`
/// first), without moving it into one: how a reply folded into a [`crate::PartialMessage`] is
/// written as pi 0.73.1's `message_update` partial.
pub struct AssistantAsAgent<'a>(pub &'a AssistantMessage);

impl Serialize for AssistantAsAgent<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The one variant of [`AgentMessage`]'s tagging this writes.
        #[derive(Serialize)]
        #[serde(tag = "role", rename_all = "camelCase")]
        enum Tagged<'a> {
            Assistant(&'a AssistantMessage),
        }
        Tagged::Assistant(self.0).serialize(serializer)
    }
}

impl From<Message> for AgentMessage {
    fn from(m: Message) -> Self {
        match m {
            Message::User(u) => AgentMessage::User(u),
            Message::Assistant(a) => AgentMessage::Assistant(a),
            Message::ToolResult(t) => AgentMessage::ToolResult(t),
        }
    }
}

impl AgentMessage {
    /// The `role` string.
    pub fn role(&self) -> &'static str {
        self.into()
    }

    /// Unix ms.
    pub fn timestamp(&self) -> i64 {
        match self {
            AgentMessage::System(m) => m.timestamp,
            AgentMessage::User(m) => m.timestamp,
            AgentMessage::Assistant(m) => m.timestamp,
            AgentMessage::ToolResult(m) => m.timestamp,
            AgentMessage::BashExecution(m) => m.timestamp,
            AgentMessage::Custom(m) => m.timestamp,
            AgentMessage::BranchSummary(m) => m.timestamp,
            AgentMessage::CompactionSummary(m) => m.timestamp,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            AgentMessage::Assistant(a) => Some(a),
            _ => None,
        }
    }

    /// The LLM form of this message (`None` when it never reaches the model).
    pub fn to_llm(&self) -> Option<Message> {
        let user = |content: Vec<ContentBlock>, timestamp| {
            Some(Message::User(UserMessage {
                content: UserContent::Blocks(content),
                timestamp,
            }))
        };
        match self {
            AgentMessage::System(_) => None,
            AgentMessage::User(m) => Some(Message::User(m.clone())),
            AgentMessage::Assistant(m) => Some(Message::Assistant(m.clone())),
            AgentMessage::ToolResult(m) => Some(Message::ToolResult(m.clone())),
            AgentMessage::BashExecution(b) => {
                if b.exclude_from_context == Some(true) {
                    return None;
                }
                user(vec![ContentBlock::text(bash_execution_text(b))], b.timestamp)
            }
            AgentMessage::Custom(c) => user(c.content.to_blocks(), c.timestamp),
            AgentMessage::BranchSummary(b) => user(
                vec![ContentBlock::text(format!(
                    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{}</summary>",
                    b.summary
                ))],
                b.timestamp,
            ),
            AgentMessage::CompactionSummary(c) => user(
                vec![ContentBlock::text(format!(
                    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>",
                    c.summary
                ))],
                c.timestamp,
            ),
        }
    }
}

/// The text a bash execution shows the model (interfaces spec §5.5).
pub fn bash_execution_text(b: &BashExecutionMessage) -> String {
    let mut text = format!("Ran `{}`\n", b.command);
    if b.output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str("```\n");
        text.push_str(&b.output);
        text.push_str("\n```");
    }
    if b.cancelled {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = b.exit_code.filter(|c| *c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if b.truncated {
        if let Some(path) = &b.full_output_path {
            text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_execution_layout() {
        let mut b = BashExecutionMessage {
            command: "ls".into(),
            output: "a\nb".into(),
            exit_code: Some(2),
            cancelled: false,
            truncated: true,
            full_output_path: Some("/tmp/x".into()),
            timestamp: 1,
            exclude_from_context: None,
        };
        assert_eq!(
            bash_execution_text(&b),
            "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/x]"
        );
        b.output.clear();
        b.cancelled = true;
        b.truncated = false;
        assert_eq!(
            bash_execution_text(&b),
            "Ran `ls`\n(no output)\n\n(command cancelled)"
        );
        b.exclude_from_context = Some(true);
        assert!(AgentMessage::BashExecution(b).to_llm().is_none());
    }

    #[test]
    fn roles_round_trip_as_pi_writes_them() {
        let json =
            r#"{"role":"custom","customType":"note","content":"hi","display":true,"timestamp":5}"#;
        let m: AgentMessage = serde_json::from_str(json).expect("custom parses");
        assert_eq!(m.role(), "custom");
        assert_eq!(serde_json::to_string(&m).expect("serializes"), json);
    }
}
