//! Cross-provider message transformation (providers spec §4), applied to a context's messages
//! before a provider builds its request.
//!
//! A session may switch models mid-conversation, so the history holds replies from other
//! providers and APIs. Their opaque replay data (signatures, encrypted reasoning) means
//! nothing to the target and their tool-call ids may break its id rules; images break
//! text-only models; and interrupted turns leave tool calls without results, which every API
//! rejects. This pass fixes all of that in one place so the per-API converters stay simple.

use std::collections::{HashMap, HashSet};

use crate::content::{ContentBlock, TextContent, ToolCall};
use crate::message::{now_ms, AssistantMessage, Message, ToolResultMessage, UserContent};
use crate::model::Model;
use crate::tool_call_id::{normalizer_for, IdNormalizer};
use crate::usage::StopReason;

/// Replaces images in user messages sent to a text-only model.
pub const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
/// Replaces images in tool results sent to a text-only model.
pub const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";
/// The text of the synthetic result given to a tool call that never got one.
pub const NO_RESULT_TEXT: &str = "No result provided";

/// The messages as `model` should receive them, with `model.api`'s tool-call id rule.
pub fn transform_messages(messages: &[Message], model: &Model) -> Vec<Message> {
    transform_messages_with(messages, model, normalizer_for(&model.api))
}

/// [`transform_messages`] with an explicit id normaliser (`None` keeps foreign ids as they are).
pub fn transform_messages_with(
    messages: &[Message],
    model: &Model,
    normalize: Option<IdNormalizer>,
) -> Vec<Message> {
    let text_only = !model.supports_images();
    let mut renamed: HashMap<String, String> = HashMap::new();
    let converted = messages.iter().map(|message| match message {
        Message::User(user) => {
            let mut user = user.clone();
            if text_only {
                if let UserContent::Blocks(blocks) = &user.content {
                    user.content =
                        UserContent::Blocks(replace_images(blocks, USER_IMAGE_PLACEHOLDER));
                }
            }
            Message::User(user)
        }
        Message::ToolResult(result) => {
            let mut result = result.clone();
            if let Some(new_id) = renamed.get(&result.tool_call_id) {
                result.tool_call_id = new_id.clone();
            }
            if text_only {
                result.content = replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER);
            }
            Message::ToolResult(result)
        }
        Message::Assistant(reply) => {
            Message::Assistant(convert_assistant(reply, model, normalize, &mut renamed))
        }
    });
    let converted: Vec<Message> = converted.collect();
    repair_replay(converted)
}

/// Each run of adjacent images becomes one `placeholder` text block, unless the block right
/// before the run already is that placeholder.
fn replace_images(blocks: &[ContentBlock], placeholder: &str) -> Vec<ContentBlock> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut after_placeholder = false;
    for block in blocks {
        if let ContentBlock::Image(_) = block {
            if !after_placeholder {
                out.push(ContentBlock::text(placeholder));
            }
            after_placeholder = true;
            continue;
        }
        after_placeholder = block.as_text() == Some(placeholder);
        out.push(block.clone());
    }
    out
}

/// Whether `reply` came from exactly the target: same provider, API and model id.
pub fn is_same_model(reply: &AssistantMessage, model: &Model) -> bool {
    reply.provider == model.provider && reply.api == model.api && reply.model == model.id
}

/// Step 2 of §4 for one assistant message; records renamed tool-call ids in `renamed`.
fn convert_assistant(
    reply: &AssistantMessage,
    model: &Model,
    normalize: Option<IdNormalizer>,
    renamed: &mut HashMap<String, String>,
) -> AssistantMessage {
    let same = is_same_model(reply, model);
    let content = reply
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Thinking(thinking) => {
                let signed = thinking
                    .thinking_signature
                    .as_deref()
                    .is_some_and(|s| !s.is_empty());
                if thinking.redacted == Some(true) {
                    same.then(|| block.clone())
                } else if same && signed {
                    Some(block.clone())
                } else if thinking.thinking.trim().is_empty() {
                    None
                } else if same {
                    Some(block.clone())
                } else {
                    Some(ContentBlock::text(thinking.thinking.clone()))
                }
            }
            ContentBlock::Text(text) if !same => Some(ContentBlock::Text(TextContent {
                text: text.text.clone(),
                text_signature: None,
            })),
            ContentBlock::ToolCall(call) if !same => Some(ContentBlock::ToolCall(
                foreign_tool_call(call, reply, model, normalize, renamed),
            )),
            _ => Some(block.clone()),
        })
        .collect();
    AssistantMessage {
        content,
        ..clone_without_content(reply)
    }
}

/// A foreign tool call without its thought signature and with its id normalised.
fn foreign_tool_call(
    call: &ToolCall,
    reply: &AssistantMessage,
    model: &Model,
    normalize: Option<IdNormalizer>,
    renamed: &mut HashMap<String, String>,
) -> ToolCall {
    let mut call = ToolCall {
        thought_signature: None,
        ..call.clone()
    };
    if let Some(normalize) = normalize {
        let new_id = normalize(&call.id, model, reply);
        if new_id != call.id {
            renamed.insert(std::mem::replace(&mut call.id, new_id.clone()), new_id);
        }
    }
    call
}

/// Step 3 of §4: drops errored/aborted replies and answers orphaned tool calls.
fn repair_replay(messages: Vec<Message>) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    for message in messages {
        match message {
            Message::Assistant(reply) => {
                answer_orphans(&mut out, &mut pending, &answered);
                if matches!(reply.stop_reason, StopReason::Error | StopReason::Aborted) {
                    continue;
                }
                let calls: Vec<(String, String)> = reply
                    .tool_calls()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect();
                if !calls.is_empty() {
                    pending = calls;
                    answered.clear();
                }
                out.push(Message::Assistant(reply));
            }
            Message::ToolResult(result) => {
                answered.insert(result.tool_call_id.clone());
                out.push(Message::ToolResult(result));
            }
            Message::User(user) => {
                answer_orphans(&mut out, &mut pending, &answered);
                out.push(Message::User(user));
            }
        }
    }
    answer_orphans(&mut out, &mut pending, &answered);
    out
}

/// Appends a synthetic error result for every pending call not in `answered`, then clears
/// the pending list.
fn answer_orphans(
    out: &mut Vec<Message>,
    pending: &mut Vec<(String, String)>,
    answered: &HashSet<String>,
) {
    for (id, name) in pending.drain(..) {
        if answered.contains(&id) {
            continue;
        }
        out.push(Message::ToolResult(ToolResultMessage {
            duration_ms: None,
            usage: None,
            nested_calls: None,
            tool_call_id: id,
            tool_name: name,
            content: vec![ContentBlock::text(NO_RESULT_TEXT)],
            details: None,
            is_error: true,
            timestamp: now_ms(),
        }));
    }
}

/// A copy of every field but `content` (left empty), to rebuild a message cheaply.
fn clone_without_content(reply: &AssistantMessage) -> AssistantMessage {
    AssistantMessage {
        duration_ms: None,
        provider_thinking_level: None,
        thinking_level: None,
        deferred: None,
        raw_stop_reason: None,
        end_turn: None,
        content: Vec::new(),
        api: reply.api.clone(),
        provider: reply.provider.clone(),
        model: reply.model.clone(),
        response_model: reply.response_model.clone(),
        response_id: reply.response_id.clone(),
        diagnostics: reply.diagnostics.clone(),
        usage: reply.usage,
        stop_reason: reply.stop_reason,
        error_message: reply.error_message.clone(),
        timestamp: reply.timestamp,
    }
}

#[cfg(test)]
#[path = "transform_tests.rs"]
mod tests;
