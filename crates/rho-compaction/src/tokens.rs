//! Token accounting without a tokenizer: provider-reported usage where it exists, and the
//! ⌈chars/4⌉ heuristic for everything after it (COMP-2, COMP-11, COMP-18).
//!
//! Characters are counted as JavaScript counts them (UTF-16 code units), so the estimates
//! and therefore the cut points equal pi's for the same session.

use std::borrow::Borrow;
use std::io;

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, StopReason, Usage, UserContent};

/// What an image block counts as: 4800 characters (1200 tokens).
pub const IMAGE_CHARS: u64 = 4_800;

/// COMP-2: `totalTokens` if non-zero, else `input + output + cacheRead + cacheWrite`.
pub fn context_tokens(usage: &Usage) -> u64 {
    if usage.total_tokens != 0 {
        return usage.total_tokens;
    }
    usage.input + usage.output + usage.cache_read + usage.cache_write
}

/// Length of `s` in UTF-16 code units (JavaScript's `string.length`).
pub fn js_len(s: &str) -> u64 {
    utf16_units(s.as_bytes())
}

/// UTF-16 code units of UTF-8 bytes: one per character start, two for 4-byte characters.
fn utf16_units(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .map(|&b| u64::from(b & 0xC0 != 0x80) + u64::from(b >= 0xF0))
        .sum()
}

/// Counts the UTF-16 length of whatever is written to it (JSON serialization without a buffer).
#[derive(Default)]
struct Utf16Counter(u64);

impl io::Write for Utf16Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += utf16_units(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `JSON.stringify(value).length`.
fn json_len(value: &serde_json::Value) -> u64 {
    let mut counter = Utf16Counter::default();
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

fn blocks_chars(blocks: &[ContentBlock]) -> u64 {
    blocks
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => js_len(&t.text),
            ContentBlock::Image(_) => IMAGE_CHARS,
            _ => 0,
        })
        .sum()
}

fn content_chars(content: &UserContent) -> u64 {
    match content {
        UserContent::Text(t) => js_len(t),
        UserContent::Blocks(b) => blocks_chars(b),
    }
}

/// The characters pi attributes to one message. User, custom and tool-result messages count
/// their text and each image as [`IMAGE_CHARS`]; assistant messages count text, thinking,
/// and each tool call's name plus its JSON arguments; bash executions their command and
/// output; summaries their summary; pi 1.x system messages their text and added tools.
pub fn message_chars(message: &AgentMessage) -> u64 {
    match message {
        // pi 1.x: its content, the text of each section it sets and its tools as JSON.
        AgentMessage::System(s) => {
            let sections = s.sections.iter().flatten();
            content_chars(&s.content)
                + sections
                    .filter_map(|(_, v)| v.as_str())
                    .map(js_len)
                    .sum::<u64>()
                + s.tools_added
                    .as_ref()
                    .map_or(0, |t| json_len(&serde_json::Value::from(t.clone())))
        }
        AgentMessage::User(u) => content_chars(&u.content),
        AgentMessage::Assistant(a) => a
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::Text(t) => js_len(&t.text),
                ContentBlock::Thinking(t) => js_len(&t.thinking),
                ContentBlock::ToolCall(tc) => js_len(&tc.name) + json_len(&tc.arguments),
                ContentBlock::Image(_) => 0,
            })
            .sum(),
        AgentMessage::ToolResult(t) => blocks_chars(&t.content),
        AgentMessage::Custom(c) => content_chars(&c.content),
        AgentMessage::BashExecution(b) => js_len(&b.command) + js_len(&b.output),
        AgentMessage::BranchSummary(b) => js_len(&b.summary),
        AgentMessage::CompactionSummary(c) => js_len(&c.summary),
    }
}

/// ⌈chars/4⌉ of one message.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    message_chars(message).div_ceil(4)
}

/// The usage of an assistant message that has a trustworthy one (not `error`, not `aborted`).
pub fn assistant_usage(message: &AgentMessage) -> Option<&Usage> {
    let a = message.as_assistant()?;
    match a.stop_reason {
        StopReason::Error | StopReason::Aborted => None,
        _ => Some(&a.usage),
    }
}

/// An estimate of the tokens a context occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextEstimate {
    /// `usage_tokens + trailing_tokens`.
    pub tokens: u64,
    /// COMP-2 tokens of the last trustworthy assistant usage (0 without one).
    pub usage_tokens: u64,
    /// ⌈chars/4⌉ of every message after that assistant (of all messages without one).
    pub trailing_tokens: u64,
    /// Index of the assistant whose usage anchors the estimate.
    pub last_usage_index: Option<usize>,
}

/// Estimates a context: the usage of the last assistant that is neither error nor aborted,
/// plus ⌈chars/4⌉ of every later message; without such an assistant, ⌈chars/4⌉ of all.
pub fn estimate_context_tokens<M: Borrow<AgentMessage>>(messages: &[M]) -> ContextEstimate {
    let anchor = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| assistant_usage(m.borrow()).map(|u| (i, context_tokens(u))));
    let (first_trailing, usage_tokens, last_usage_index) = match anchor {
        Some((i, tokens)) => (i + 1, tokens, Some(i)),
        None => (0, 0, None),
    };
    let trailing_tokens = messages[first_trailing..]
        .iter()
        .map(|m| estimate_tokens(m.borrow()))
        .sum();
    ContextEstimate {
        tokens: usage_tokens + trailing_tokens,
        usage_tokens,
        trailing_tokens,
        last_usage_index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;

    #[test]
    fn comp_2_usage_total_or_sum() {
        let mut u = Usage {
            input: 100,
            output: 5,
            ..Default::default()
        };
        assert_eq!(context_tokens(&u), 105);
        u.total_tokens = 7;
        assert_eq!(context_tokens(&u), 7);
        u = Usage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            ..Default::default()
        };
        assert_eq!(context_tokens(&u), 10);
    }

    #[test]
    fn chars_over_four_rounded_up() {
        assert_eq!(estimate_tokens(&user("abcde")), 2);
        assert_eq!(estimate_tokens(&user("abcd")), 1);
        assert_eq!(estimate_tokens(&user("")), 0);
    }

    #[test]
    fn js_length_counts_utf16_units() {
        assert_eq!(js_len("héllo"), 5);
        assert_eq!(js_len("😀"), 2);
        assert_eq!(js_len("日本"), 2);
    }

    #[test]
    fn assistant_counts_text_thinking_and_tool_calls() {
        let a = assistant_with(
            vec![
                text("abcd"),
                thinking("efgh"),
                tool_call("c1", "read", serde_json::json!({"path": "a.rs"})),
            ],
            0,
        );
        // 4 + 4 + "read" (4) + {"path":"a.rs"} (15)
        assert_eq!(message_chars(&a), 27);
        assert_eq!(estimate_tokens(&a), 7);
    }

    #[test]
    fn images_count_as_4800_chars() {
        assert_eq!(
            message_chars(&tool_result_with_image("c1", "ab")),
            2 + IMAGE_CHARS
        );
        assert_eq!(message_chars(&user_with_image("ab")), 2 + IMAGE_CHARS);
    }

    #[test]
    fn bash_and_summaries() {
        assert_eq!(message_chars(&bash("ls", "a\nb")), 5);
        assert_eq!(message_chars(&compaction_summary("xyz")), 3);
    }

    #[test]
    fn system_messages_count_their_sections_and_tools_as_pi_1x() {
        let system: AgentMessage = serde_json::from_value(serde_json::json!({
            "role": "system", "content": "ab", "sections": {"preamble": "cde", "skills": null},
            "toolsAdded": [{"name": "x"}], "timestamp": 1
        }))
        .expect("a system message");
        // "ab" + "cde" + [{"name":"x"}] (14)
        assert_eq!(message_chars(&system), 19);
    }

    #[test]
    fn context_estimate_uses_last_valid_usage_plus_trailing() {
        let msgs = vec![
            user("x".repeat(400).as_str()),
            assistant("ok", 1_000),
            user("y".repeat(40).as_str()),
            error_assistant("boom", 50_000),
            tool_result("c", "z".repeat(8).as_str()),
        ];
        let e = estimate_context_tokens(&msgs);
        assert_eq!(e.last_usage_index, Some(1));
        assert_eq!(e.usage_tokens, 1_000);
        // user 10 + error assistant "boom" 1 + tool result 2
        assert_eq!(e.trailing_tokens, 13);
        assert_eq!(e.tokens, 1_013);
    }

    #[test]
    fn context_estimate_without_usage_sums_everything() {
        let msgs = vec![user("abcdefgh"), error_assistant("abcd", 99)];
        let e = estimate_context_tokens(&msgs);
        assert_eq!(e.last_usage_index, None);
        assert_eq!(e.tokens, 3);
    }
}
