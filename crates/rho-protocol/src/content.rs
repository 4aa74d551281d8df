//! Content blocks: the pieces messages are made of (`text`, `thinking`, `image`, `toolCall`).
//!
//! Field names follow pi's JSON exactly (camelCase, `type` tag), so session files and RPC
//! payloads written by pi deserialize unchanged.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Plain text. `textSignature` is opaque replay data some APIs need to resume a conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text itself.
    pub text: String,
    /// Opaque replay data (Responses message item id, Google thought signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
}

/// Model reasoning. When `redacted` is true the payload lives in the signature and the
/// text is a placeholder; the signature must be replayed verbatim to the same API.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The (summarised) reasoning text.
    pub thinking: String,
    /// Opaque per-API replay data (see providers spec §1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// True when the provider returned encrypted reasoning only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
}

/// A base64 image (no `data:` prefix). Only user messages and tool results carry images.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// e.g. `image/png`.
    pub mime_type: String,
}

/// A tool invocation requested by the model. `arguments` is always a JSON object once final.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-issued call id; tool results refer to it.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Parsed arguments (an object).
    pub arguments: Value,
    /// Google thought signature or OpenRouter encrypted reasoning details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// pi 1.x: the OpenAI Responses namespace of a namespaced tool (kept so copies keep it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl Default for ToolCall {
    fn default() -> Self {
        Self {
            id: String::new(),
            name: String::new(),
            arguments: Value::Object(Default::default()),
            thought_signature: None,
            namespace: None,
        }
    }
}

/// Any content block, tagged by `type` as pi writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ContentBlock {
    /// `{"type":"text",...}`
    Text(TextContent),
    /// `{"type":"thinking",...}`
    Thinking(ThinkingContent),
    /// `{"type":"image",...}`
    Image(ImageContent),
    /// `{"type":"toolCall",...}`
    ToolCall(ToolCall),
}

impl ContentBlock {
    /// A text block without signature.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })
    }

    /// The text of a text block, `None` for other kinds.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}
