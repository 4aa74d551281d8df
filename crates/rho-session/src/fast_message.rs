//! A single-pass decoder for stored messages, the hot path of loading.
//!
//! `AgentMessage` and `ContentBlock` are tagged enums (`role`, `type`), which serde decodes by
//! buffering every field first and decoding a second time; on a 50 MB session that doubles the
//! load time. Here every field of every role (and of every block type) is read into one flat
//! struct in one pass and the typed value is assembled afterwards. Each struct is built field
//! by field without `..Default::default()`, so a field added to the message model fails to
//! compile here instead of being dropped. When this decoder rejects a message, the caller falls
//! back to serde's own decoding, which stays the authority on what is valid.

use std::fmt;

use rho_protocol::agent::{
    AgentMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
    CustomMessage, SystemMessage,
};
use rho_protocol::{
    AssistantMessage, ContentBlock, ImageContent, StopReason, TextContent, ThinkingContent,
    ToolCall, ToolResultMessage, Usage, UserContent, UserMessage,
};
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Every field any stored message role has.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMessage {
    role: String,
    content: Option<RawContent>,
    timestamp: Option<i64>,
    duration_ms: Option<u64>,
    api: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    response_model: Option<String>,
    response_id: Option<String>,
    provider_thinking_level: Option<String>,
    thinking_level: Option<String>,
    diagnostics: Option<Vec<Value>>,
    usage: Option<Usage>,
    stop_reason: Option<StopReason>,
    deferred: Option<Value>,
    error_message: Option<String>,
    raw_stop_reason: Option<String>,
    end_turn: Option<bool>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    details: Option<Value>,
    nested_calls: Option<Value>,
    is_error: Option<bool>,
    command: Option<String>,
    output: Option<String>,
    exit_code: Option<i32>,
    cancelled: Option<bool>,
    truncated: Option<bool>,
    full_output_path: Option<String>,
    exclude_from_context: Option<bool>,
    custom_type: Option<String>,
    display: Option<bool>,
    summary: Option<String>,
    from_id: Option<String>,
    tokens_before: Option<u64>,
    sections: Option<Map<String, Value>>,
    tools_added: Option<Vec<Value>>,
    tools_removed: Option<Vec<Value>>,
}

/// Every field any content block has.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawBlock {
    #[serde(rename = "type")]
    block_type: String,
    text: Option<String>,
    text_signature: Option<String>,
    thinking: Option<String>,
    thinking_signature: Option<String>,
    redacted: Option<bool>,
    data: Option<String>,
    mime_type: Option<String>,
    id: Option<String>,
    name: Option<String>,
    arguments: Option<Value>,
    thought_signature: Option<String>,
    namespace: Option<String>,
}

/// `content`: a string or an array of blocks, told apart without buffering.
enum RawContent {
    Text(String),
    Blocks(Vec<RawBlock>),
}

impl<'de> Deserialize<'de> for RawContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawContent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<RawContent, E> {
                Ok(RawContent::Text(s.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<RawContent, E> {
                Ok(RawContent::Text(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawContent, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(b) = seq.next_element()? {
                    blocks.push(b);
                }
                Ok(RawContent::Blocks(blocks))
            }
        }
        d.deserialize_any(V)
    }
}

/// `None` when a required field is missing or has the wrong shape (the caller then asks serde).
fn block(raw: RawBlock) -> Option<ContentBlock> {
    Some(match raw.block_type.as_str() {
        "text" => ContentBlock::Text(TextContent {
            text: raw.text?,
            text_signature: raw.text_signature,
        }),
        "thinking" => ContentBlock::Thinking(ThinkingContent {
            thinking: raw.thinking?,
            thinking_signature: raw.thinking_signature,
            redacted: raw.redacted,
        }),
        "image" => ContentBlock::Image(ImageContent {
            data: raw.data?,
            mime_type: raw.mime_type?,
        }),
        "toolCall" => ContentBlock::ToolCall(ToolCall {
            id: raw.id?,
            name: raw.name?,
            arguments: raw.arguments?,
            thought_signature: raw.thought_signature,
            namespace: raw.namespace,
        }),
        _ => return None,
    })
}

/// The blocks of an array `content`. Collected into a fresh, exactly sized vector: an iterator
/// `collect` would reuse the (three times larger) buffer of the raw blocks.
fn blocks(content: Option<RawContent>) -> Option<Vec<ContentBlock>> {
    let RawContent::Blocks(raw) = content? else {
        return None;
    };
    let mut out = Vec::with_capacity(raw.len());
    for b in raw {
        out.push(block(b)?);
    }
    Some(out)
}

fn user_content(content: Option<RawContent>) -> Option<UserContent> {
    match content? {
        RawContent::Text(t) => Some(UserContent::Text(t)),
        c => blocks(Some(c)).map(UserContent::Blocks),
    }
}

impl RawMessage {
    /// The typed message, or `None` if this decoder cannot vouch for it.
    pub(crate) fn into_message(self) -> Option<AgentMessage> {
        let timestamp = self.timestamp?;
        Some(match self.role.as_str() {
            "system" => AgentMessage::System(SystemMessage {
                content: user_content(self.content)?,
                sections: self.sections,
                tools_added: self.tools_added,
                tools_removed: self.tools_removed,
                timestamp,
            }),
            "user" => AgentMessage::User(UserMessage {
                content: user_content(self.content)?,
                timestamp,
            }),
            "assistant" => AgentMessage::Assistant(AssistantMessage {
                content: blocks(self.content)?,
                api: self.api?,
                provider: self.provider?,
                model: self.model?,
                response_model: self.response_model,
                response_id: self.response_id,
                provider_thinking_level: self.provider_thinking_level,
                thinking_level: self.thinking_level,
                diagnostics: self.diagnostics,
                usage: self.usage.unwrap_or_default(),
                stop_reason: self.stop_reason?,
                deferred: self.deferred,
                error_message: self.error_message,
                raw_stop_reason: self.raw_stop_reason,
                end_turn: self.end_turn,
                timestamp,
                duration_ms: self.duration_ms,
            }),
            "toolResult" => AgentMessage::ToolResult(ToolResultMessage {
                tool_call_id: self.tool_call_id?,
                tool_name: self.tool_name?,
                content: blocks(self.content)?,
                details: self.details,
                usage: self.usage,
                nested_calls: self.nested_calls,
                is_error: self.is_error?,
                timestamp,
                duration_ms: self.duration_ms,
            }),
            "bashExecution" => AgentMessage::BashExecution(BashExecutionMessage {
                command: self.command?,
                output: self.output?,
                exit_code: self.exit_code,
                cancelled: self.cancelled.unwrap_or(false),
                truncated: self.truncated.unwrap_or(false),
                full_output_path: self.full_output_path,
                timestamp,
                exclude_from_context: self.exclude_from_context,
            }),
            "custom" => AgentMessage::Custom(CustomMessage {
                custom_type: self.custom_type?,
                content: user_content(self.content)?,
                display: self.display.unwrap_or(false),
                details: self.details,
                timestamp,
            }),
            "branchSummary" => AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: self.summary?,
                from_id: self.from_id,
                timestamp,
            }),
            "compactionSummary" => AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: self.summary?,
                tokens_before: self.tokens_before?,
                timestamp,
            }),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast decoder must agree with serde's own decoding of the message model.
    #[test]
    fn agrees_with_serde_on_every_role_and_block() {
        let messages = [
            r#"{"role":"user","content":"plain","timestamp":1}"#,
            r#"{"role":"user","content":[{"type":"text","text":"t"},{"type":"image","data":"AAA=","mimeType":"image/png"}],"timestamp":2}"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig","redacted":false},{"type":"text","text":"a","textSignature":"ts"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"},"thoughtSignature":"th"}],"api":"anthropic-messages","provider":"anthropic","model":"m","responseId":"r","responseModel":"rm","diagnostics":[{"type":"x"}],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":0.2,"cacheRead":0.3,"cacheWrite":0.4,"total":1.0}},"stopReason":"toolUse","errorMessage":"e","timestamp":3,"extra":"ignored"}"#,
            r#"{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"r"}],"details":{"d":1},"isError":true,"timestamp":4}"#,
            r#"{"role":"bashExecution","command":"ls","output":"","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/p","timestamp":5,"excludeFromContext":true}"#,
            r#"{"role":"custom","customType":"n","content":[{"type":"text","text":"c"}],"display":true,"details":null,"timestamp":6}"#,
            r#"{"role":"branchSummary","summary":"s","fromId":"f","timestamp":7}"#,
            r#"{"role":"compactionSummary","summary":"s","tokensBefore":9,"timestamp":8}"#,
            r#"{"role":"system","content":"","sections":{"preamble":"p","skills":null},"toolsAdded":[{"name":"read","description":"d","parameters":{}}],"toolsRemoved":[{"name":"write"}],"timestamp":9}"#,
            r#"{"role":"system","content":[{"type":"text","text":"extra"}],"timestamp":10}"#,
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":{},"namespace":"ns"}],"api":"a","provider":"p","model":"m","providerThinkingLevel":"high","thinkingLevel":"medium","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":4,"cacheWrite1h":3,"reasoning":1,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"deferred","deferred":{"provider":"p","modelId":"m","api":"a","id":"x"},"rawStopReason":"end_turn","endTurn":true,"timestamp":11}"#,
            r#"{"role":"toolResult","toolCallId":"c","toolName":"n","content":[],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"nestedCalls":{"calls":[],"complete":true},"isError":false,"timestamp":12}"#,
            r#"{"role":"branchSummary","summary":"s","fromId":null,"timestamp":13}"#,
        ];
        for json in messages {
            let fast = serde_json::from_str::<RawMessage>(json)
                .expect("raw parses")
                .into_message()
                .expect("fast path accepts");
            let slow: AgentMessage = serde_json::from_str(json).expect("serde parses");
            assert_eq!(fast, slow, "{json}");
        }
    }

    #[test]
    fn declines_what_serde_rejects() {
        for json in [
            r#"{"role":"user","timestamp":1}"#,
            r#"{"role":"assistant","content":[],"api":"a","provider":"p","timestamp":1,"stopReason":"stop"}"#,
            r#"{"role":"user","content":[{"type":"video"}],"timestamp":1}"#,
            r#"{"role":"hookMessage","content":"x","timestamp":1}"#,
        ] {
            let raw = serde_json::from_str::<RawMessage>(json).expect("raw parses");
            assert!(raw.into_message().is_none(), "{json}");
            assert!(
                serde_json::from_str::<AgentMessage>(json).is_err(),
                "{json}"
            );
        }
    }
}
