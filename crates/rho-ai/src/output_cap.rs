//! pi 1.6's output cap: a request asks for the cap the caller set, else the model's whole
//! `maxTokens`, fitted into the context window with room left for the input being counted
//! higher than estimated (pi-ai's `clampMaxTokensToContext` over `estimateContextTokens`).
//! The input is the last reply's reported usage plus an estimate of what came after it
//! (3.5 characters a token, as pi-ai counts them: UTF-16 units), or an estimate of all of it
//! before any reply reported usage.

use crate::{
    ContentBlock, Context, Message, Model, StopReason, ThinkingBudgets, ThinkingLevel, Usage,
    UserContent,
};

/// The margin always kept below the window.
const CONTEXT_SAFETY_TOKENS: u64 = 4096;
/// The share of the input kept as a margin while it leaves enough output (OpenRouter counts
/// prose up to 12 % above the provider's count).
const CONTEXT_SAFETY_RATIO: f64 = 0.15;
/// Below this much output only the fixed margin is kept, and the output is capped at it.
const MIN_OUTPUT_WITH_RATIO_MARGIN: u64 = 32_768;
const CHARS_PER_TOKEN: f64 = 3.5;
/// What an image counts as.
const ESTIMATED_IMAGE_CHARS: usize = 4800;

/// `max_tokens` fitted into `model`'s context window for `context` (at least 1).
pub fn clamp_to_context(model: &Model, context: &Context, max_tokens: u64) -> u64 {
    if model.context_window == 0 {
        return max_tokens.max(1);
    }
    let window = model.context_window as i128;
    let input = estimate_context_tokens(context) as i128;
    let ratio_margin = (input as f64 * CONTEXT_SAFETY_RATIO).ceil() as i128;
    let margin = ratio_margin.max(CONTEXT_SAFETY_TOKENS as i128);
    let mut room = window - input - margin;
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN as i128 {
        let fixed = window - input - CONTEXT_SAFETY_TOKENS as i128;
        room = fixed.min(MIN_OUTPUT_WITH_RATIO_MARGIN as i128);
    }
    (max_tokens as i128).min(room.max(1)) as u64
}

/// The output cap and thinking budget of a budget-thinking request (Anthropic, Bedrock's
/// Claude) at `level`: `base` plus the level's budget within the model's cap, fitted to the
/// context, with room for the answer left under it ([`ThinkingBudgets::within`]).
pub fn with_thinking_budget(
    model: &Model,
    context: &Context,
    base: u64,
    (budgets, level): (&ThinkingBudgets, ThinkingLevel),
) -> (u64, u64) {
    let total = base
        .saturating_add(budgets.for_level(level))
        .min(model.max_tokens);
    let max_tokens = clamp_to_context(model, context, total);
    (max_tokens, budgets.within(level, max_tokens))
}

/// pi-ai's `estimateContextTokens`: the last usable reply's usage plus estimates of the
/// messages after it, else estimates of everything (the system prompt and tools included).
pub fn estimate_context_tokens(context: &Context) -> u64 {
    let messages = &context.messages;
    if let Some((usage, at)) = last_usage(messages) {
        let trailing: u64 = messages[at + 1..].iter().map(estimate_message).sum();
        return context_tokens(usage) + trailing;
    }
    let system = context.system_prompt.as_deref().map_or(0, text_tokens);
    let tools = match context.tools.is_empty() {
        true => 0,
        false => serde_json::to_string(&context.tools).map_or(0, |json| text_tokens(&json)),
    };
    system + tools + messages.iter().map(estimate_message).sum::<u64>()
}

/// The context a reply's usage reports.
fn context_tokens(usage: &Usage) -> u64 {
    match usage.total_tokens {
        0 => usage.input + usage.output + usage.cache_read + usage.cache_write,
        total => total,
    }
}

/// The last reply whose usage describes the messages before it: not aborted or failed, with
/// usage, and not older than a message before it (a summary inserted later).
fn last_usage(messages: &[Message]) -> Option<(&Usage, usize)> {
    let mut latest = i64::MIN;
    let mut found = None;
    for (i, message) in messages.iter().enumerate() {
        if let Message::Assistant(a) = message {
            let applies = a.timestamp >= latest;
            let usable = !matches!(a.stop_reason, StopReason::Aborted | StopReason::Error);
            if applies && usable && context_tokens(&a.usage) > 0 {
                found = Some((&a.usage, i));
            }
        }
        latest = latest.max(message.timestamp());
    }
    found
}

fn estimate_message(message: &Message) -> u64 {
    match message {
        Message::User(u) => match &u.content {
            UserContent::Text(text) => text_tokens(text),
            UserContent::Blocks(blocks) => chars_tokens(blocks_chars(blocks)),
        },
        Message::ToolResult(r) => chars_tokens(blocks_chars(&r.content)),
        Message::Assistant(a) => {
            let chars = a.content.iter().map(|block| match block {
                ContentBlock::Text(t) => utf16_len(&t.text),
                ContentBlock::Thinking(t) => utf16_len(&t.thinking),
                ContentBlock::ToolCall(call) => {
                    let arguments = serde_json::to_string(&call.arguments).unwrap_or_default();
                    utf16_len(&call.name) + utf16_len(&arguments)
                }
                ContentBlock::Image(_) => 0,
            });
            chars_tokens(chars.sum())
        }
    }
}

fn blocks_chars(blocks: &[ContentBlock]) -> usize {
    let chars = blocks.iter().map(|block| match block {
        ContentBlock::Text(t) => utf16_len(&t.text),
        _ => ESTIMATED_IMAGE_CHARS,
    });
    chars.sum()
}

fn text_tokens(text: &str) -> u64 {
    chars_tokens(utf16_len(text))
}

fn chars_tokens(chars: usize) -> u64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as u64
}

/// A string's length as JavaScript counts it.
fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests;
