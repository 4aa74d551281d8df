//! The values extensions hand to rho: content blocks, tool results, custom messages and how
//! they are delivered. Field names are those of the wire (camelCase, `type` tags).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A block of a tool result or custom message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A base64 image (no `data:` prefix).
    Image {
        /// Base64-encoded bytes.
        data: String,
        /// e.g. `image/png`.
        mime_type: String,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// What a tool returns (and what a streamed update carries): blocks for the model, details
/// for UIs, and whether it failed. Generic over the block type so rho can read the blocks
/// straight into its own message content; extensions use [`Content`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult<C = Content> {
    /// Text and image blocks the model reads.
    #[serde(default = "Vec::new")]
    pub content: Vec<C>,
    /// Structured data for UIs and session files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// True when the tool failed (the model sees the content as an error).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl<C> Default for ToolResult<C> {
    fn default() -> Self {
        Self {
            content: Vec::new(),
            details: None,
            is_error: false,
        }
    }
}

impl ToolResult {
    /// A successful result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(text)],
            ..Self::default()
        }
    }

    /// A failed result of one text block.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            is_error: true,
            ..Self::text(text)
        }
    }

    /// The same result with `details` attached.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// A custom message for the session (`send_message`): the model sees its content as user
/// input; `custom_type` lets renderers and other extensions recognise it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's own tag.
    pub custom_type: String,
    /// A string or an array of blocks.
    pub content: Value,
    /// Whether UIs show it (default true).
    pub display: bool,
    /// Extra data kept with the message, not sent to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl CustomMessage {
    /// A displayed text message.
    pub fn new(custom_type: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            custom_type: custom_type.into(),
            content: Value::String(text.into()),
            display: true,
            details: None,
        }
    }

    /// A displayed message made of blocks.
    pub fn blocks(custom_type: impl Into<String>, blocks: Vec<Content>) -> Self {
        Self {
            custom_type: custom_type.into(),
            content: serde_json::to_value(blocks).unwrap_or(Value::Null),
            display: true,
            details: None,
        }
    }

    /// The same message, hidden from UIs.
    pub fn hidden(mut self) -> Self {
        self.display = false;
        self
    }

    /// The same message with `details` attached.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// Where a message goes while the agent is streaming (CM-2..6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeliverAs {
    /// Interrupts the running turn.
    Steer,
    /// Runs after the run would stop.
    FollowUp,
    /// Rides along with the next prompt.
    NextTurn,
}

/// How `send_message` delivers. The five routes: [`SendOptions::append`] (idle: appended,
/// no turn), [`SendOptions::trigger_turn`] (idle: starts a turn), and
/// [`SendOptions::deliver_as`] with [`DeliverAs::Steer`], [`DeliverAs::FollowUp`] or
/// [`DeliverAs::NextTurn`]. Both fields may be set, as on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SendOptions {
    /// Start a turn when the agent is idle.
    pub trigger_turn: bool,
    /// The queue to use while streaming.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deliver_as: Option<DeliverAs>,
}

impl SendOptions {
    /// Appended to the session without a turn.
    pub fn append() -> Self {
        Self::default()
    }

    /// Starts a turn (the call returns when the turn has finished).
    pub fn trigger_turn() -> Self {
        Self {
            trigger_turn: true,
            deliver_as: None,
        }
    }

    /// Queued as `route` (steer, follow-up or next turn).
    pub fn deliver_as(route: DeliverAs) -> Self {
        Self {
            trigger_turn: false,
            deliver_as: Some(route),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_use_the_wire_names() {
        let r = ToolResult::text("3 words").with_details(json!({"words": 3}));
        assert_eq!(
            serde_json::to_value(&r).expect("encodes"),
            json!({"content": [{"type": "text", "text": "3 words"}], "details": {"words": 3}})
        );
        assert_eq!(
            serde_json::to_value(ToolResult::error("no")).expect("encodes")["isError"],
            true
        );
        let img = Content::Image {
            data: "AA==".into(),
            mime_type: "image/png".into(),
        };
        assert_eq!(
            serde_json::to_value(img).expect("encodes"),
            json!({"type": "image", "data": "AA==", "mimeType": "image/png"})
        );
        assert_eq!(
            serde_json::to_value(SendOptions::deliver_as(DeliverAs::FollowUp)).expect("encodes"),
            json!({"triggerTurn": false, "deliverAs": "followUp"})
        );
        let m = CustomMessage::new("note", "hi").hidden();
        assert_eq!(
            serde_json::to_value(m).expect("encodes"),
            json!({"customType": "note", "content": "hi", "display": false})
        );
    }
}
