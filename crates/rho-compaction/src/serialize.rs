//! The conversation as plain text for the summariser (COMP-19). Sending it as text rather
//! than as chat turns keeps the model from continuing the conversation instead of
//! summarising it.

use rho_ai::{ContentBlock, Message, UserContent};

/// Tool results longer than this (UTF-16 units, like pi) are cut for the summariser.
pub const TOOL_RESULT_MAX_CHARS: usize = 2_000;

/// Cuts `text` after `max` UTF-16 units and says how many were dropped.
fn truncate(text: &str, max: usize) -> String {
    let total: usize = text.chars().map(char::len_utf16).sum();
    if total <= max {
        return text.to_string();
    }
    let mut units = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > max {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    format!(
        "{}\n\n[... {} more characters truncated]",
        &text[..end],
        total - units
    )
}

fn joined_text(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(ContentBlock::as_text).collect()
}

/// One line per role part, separated by blank lines: `[User]:`, `[Assistant thinking]:`,
/// `[Assistant]:`, `[Assistant tool calls]: name(k=<json>, …); …`, `[Tool result]:`.
/// Empty parts are left out.
pub fn serialize_conversation(messages: &[Message]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for message in messages {
        match message {
            Message::User(u) => {
                let text = match &u.content {
                    UserContent::Text(t) => t.clone(),
                    UserContent::Blocks(b) => joined_text(b),
                };
                if !text.is_empty() {
                    parts.push(format!("[User]: {text}"));
                }
            }
            Message::Assistant(a) => {
                let mut texts = Vec::new();
                let mut thoughts = Vec::new();
                let mut calls = Vec::new();
                for block in &a.content {
                    match block {
                        ContentBlock::Text(t) => texts.push(t.text.as_str()),
                        ContentBlock::Thinking(t) => thoughts.push(t.thinking.as_str()),
                        ContentBlock::ToolCall(tc) => {
                            let args: Vec<String> = tc
                                .arguments
                                .as_object()
                                .into_iter()
                                .flatten()
                                .map(|(k, v)| format!("{k}={v}"))
                                .collect();
                            calls.push(format!("{}({})", tc.name, args.join(", ")));
                        }
                        ContentBlock::Image(_) => {}
                    }
                }
                if !thoughts.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thoughts.join("\n")));
                }
                if !texts.is_empty() {
                    parts.push(format!("[Assistant]: {}", texts.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Message::ToolResult(r) => {
                let text = joined_text(&r.content);
                if !text.is_empty() {
                    parts.push(format!(
                        "[Tool result]: {}",
                        truncate(&text, TOOL_RESULT_MAX_CHARS)
                    ));
                }
            }
        }
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use rho_agent::convert_to_llm;
    use serde_json::json;

    #[test]
    fn serializes_every_role() {
        let msgs = convert_to_llm(&[
            user("fix the bug"),
            assistant_with(
                vec![
                    thinking("let me look"),
                    text("Reading."),
                    tool_call("t1", "read", json!({"path": "a.rs", "limit": 5})),
                    tool_call("t2", "bash", json!({"command": "ls"})),
                ],
                0,
            ),
            tool_result("t1", "fn main() {}"),
            bash("ls", ""),
        ]);
        assert_eq!(
            serialize_conversation(&msgs),
            "[User]: fix the bug\n\n[Assistant thinking]: let me look\n\n[Assistant]: Reading.\n\n\
             [Assistant tool calls]: read(path=\"a.rs\", limit=5); bash(command=\"ls\")\n\n\
             [Tool result]: fn main() {}\n\n[User]: Ran `ls`\n(no output)"
        );
    }

    #[test]
    fn long_tool_results_are_truncated() {
        let long = "x".repeat(2_500);
        let msgs = convert_to_llm(&[tool_result("t1", &long)]);
        let s = serialize_conversation(&msgs);
        let expected = format!(
            "[Tool result]: {}\n\n[... 500 more characters truncated]",
            "x".repeat(2_000)
        );
        assert_eq!(s, expected);
    }

    #[test]
    fn truncation_never_splits_a_character() {
        let s = truncate(&"😀".repeat(3), 3);
        assert_eq!(s, "😀\n\n[... 4 more characters truncated]");
    }

    #[test]
    fn empty_parts_are_omitted() {
        let msgs = convert_to_llm(&[user(""), tool_result("t", "")]);
        assert_eq!(serialize_conversation(&msgs), "");
    }
}
