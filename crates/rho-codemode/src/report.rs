//! The tool result the model reads (pi's format): a `Script completed` / `Script failed` header
//! with the wall time, then the output in order. Several text items are numbered
//! `==> text N/M <==`; `console` lines follow in one `<console_output>` block; a failure adds
//! `Script error:` with the error and the calls made before it. Text beyond the token budget
//! keeps its start and end and goes whole to a temp file; every image is saved to a temp file
//! whose path precedes it.

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine as _;
use rho_protocol::{ContentBlock, ImageContent};
use rho_tools::spill::{cut_middle, save_temp};
use rho_tools::truncate::format_size;
use serde_json::Value;

use crate::run::{CallRecord, ScriptError, ScriptResult};
use crate::vm::OutputItem;

/// Default budget of the output, in estimated tokens.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u64 = 10_000;
const CHARS_PER_TOKEN: usize = 4;
const TEMP_PREFIX: &str = "rho-codemode";

/// The model-facing result: its content and, when the text was cut, the full text's file.
pub struct Report {
    pub content: Vec<ContentBlock>,
    pub full_output_path: Option<String>,
    pub is_error: bool,
}

/// Lays out a finished script for the model.
pub fn report(result: &ScriptResult, wall: Duration, max_output_tokens: Option<u64>) -> Report {
    let ok = result.outcome.is_ok();
    let mut output = result.output.clone();
    if let Ok((Some(value), _)) = &result.outcome {
        output.push(OutputItem::Text(value_text(value)));
    }
    let mut items = numbered(&output);
    if let Err(error) = &result.outcome {
        items.push(Item::Text(format!(
            "Script error:\n{}",
            error_text(error, &result.calls)
        )));
    }
    let budget = max_output_tokens.unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS) as usize * CHARS_PER_TOKEN;
    let (items, full_output_path) = truncate(join_text(items), budget);
    let header = format!(
        "{}\nWall time {:.1} seconds\nOutput:\n",
        if ok {
            "Script completed"
        } else {
            "Script failed"
        },
        wall.as_secs_f64()
    );
    let mut content = vec![ContentBlock::text(header)];
    content.extend(join_text(save_images(items)).into_iter().map(Item::block));
    Report {
        content,
        full_output_path,
        is_error: !ok,
    }
}

/// What `text()` and `return` add: strings as they are, other values as JSON.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Item {
    Text(String),
    Image { data: String, mime_type: String },
}

impl Item {
    fn block(self) -> ContentBlock {
        match self {
            Item::Text(t) => ContentBlock::text(t),
            Item::Image { data, mime_type } => {
                ContentBlock::Image(ImageContent { data, mime_type })
            }
        }
    }
}

/// Numbers the text items when there are several; console lines go last, in one block.
fn numbered(output: &[OutputItem]) -> Vec<Item> {
    let total = output
        .iter()
        .filter(|i| matches!(i, OutputItem::Text(_)))
        .count();
    let (mut items, mut console, mut n) = (Vec::new(), Vec::new(), 0);
    for item in output {
        match item {
            OutputItem::Image { data, mime_type } => items.push(Item::Image {
                data: data.clone(),
                mime_type: mime_type.clone(),
            }),
            OutputItem::Console(line) => console.push(line.as_str()),
            OutputItem::Text(text) if total > 1 => {
                n += 1;
                items.push(Item::Text(format!("==> text {n}/{total} <==\n{text}")));
            }
            OutputItem::Text(text) => items.push(Item::Text(text.clone())),
        }
    }
    if !console.is_empty() {
        items.push(Item::Text(format!(
            "<console_output>\n{}\n</console_output>",
            console.join("\n")
        )));
    }
    items
}

fn error_text(error: &ScriptError, calls: &[CallRecord]) -> String {
    let head = match error {
        ScriptError::Script(stack) => stack.clone(),
        ScriptError::Timeout(m) => format!("Script timed out: {m}"),
        ScriptError::Aborted(m) => format!("Script aborted: {m}"),
        ScriptError::Sandbox(m) => format!("Script sandbox failed: {m}"),
        ScriptError::NotStarted(m) => return format!("{m}\n\nThe script did not start."),
    };
    let summary = if calls.is_empty() {
        "No tool calls were made.".to_string()
    } else {
        let list: Vec<String> = calls
            .iter()
            .map(|c| format!("{} ({})", c.name, c.status.as_str()))
            .collect();
        format!(
            "Tool calls made before the failure (they are not undone): {}",
            list.join(", ")
        )
    };
    format!("{head}\n\n{summary}")
}

/// Adjacent text items become one, each part on its own line.
fn join_text(items: Vec<Item>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        match (out.last_mut(), item) {
            (Some(Item::Text(prev)), Item::Text(next)) => {
                if !prev.is_empty() && !prev.ends_with('\n') {
                    prev.push('\n');
                }
                prev.push_str(&next);
            }
            (_, item) => out.push(item),
        }
    }
    out
}

/// Applies the budget: text over it becomes one item keeping its start and end, images
/// follow, and the whole text goes to a temp file.
fn truncate(items: Vec<Item>, budget: usize) -> (Vec<Item>, Option<String>) {
    let texts: Vec<&str> = items
        .iter()
        .filter_map(|i| match i {
            Item::Text(t) => Some(t.as_str()),
            Item::Image { .. } => None,
        })
        .collect();
    let combined = texts.join("\n");
    let head = budget / 2;
    let Some((start, end, removed)) = cut_middle(&combined, head, budget - head) else {
        return (items, None);
    };
    let mut text = format!(
        "Warning: truncated output (original token count: {})\nTotal output lines: {}\n\n{start}…{} tokens truncated…{end}",
        combined.chars().count().div_ceil(CHARS_PER_TOKEN),
        combined.split('\n').count(),
        removed.div_ceil(CHARS_PER_TOKEN)
    );
    let path = match save_temp(TEMP_PREFIX, combined.as_bytes(), ".txt") {
        Ok(p) => {
            let p = p.display().to_string();
            text.push_str(&format!("\n\n[Full output: {p} (read with offset/limit)]"));
            Some(p)
        }
        Err(e) => {
            text.push_str(&format!("\n\n[Could not save the full output: {e}]"));
            None
        }
    };
    let mut out = vec![Item::Text(text)];
    out.extend(
        items
            .into_iter()
            .filter(|i| matches!(i, Item::Image { .. })),
    );
    (out, path)
}

fn extension(mime_type: &str) -> &'static str {
    match mime_type {
        "image/jpeg" => ".jpg",
        "image/gif" => ".gif",
        "image/webp" => ".webp",
        _ => ".png",
    }
}

/// Puts `[Image saved to <path> (<type>, <size>)]` before each image; an image shown twice
/// is saved once.
fn save_images(items: Vec<Item>) -> Vec<Item> {
    let mut labels: HashMap<String, String> = HashMap::new();
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if let Item::Image { data, mime_type } = &item {
            let label = labels.entry(data.clone()).or_insert_with(|| {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap_or_default();
                let kind = format!("{mime_type}, {}", format_size(bytes.len()));
                match save_temp(TEMP_PREFIX, &bytes, extension(mime_type)) {
                    Ok(p) => format!("[Image saved to {} ({kind})]", p.display()),
                    Err(e) => format!("[Image ({kind}) could not be saved: {e}]"),
                }
            });
            out.push(Item::Text(label.clone()));
        }
        out.push(item);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{CallStatus, StoreWrites};

    fn text_of(r: &Report) -> String {
        r.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn texts_are_numbered_and_console_lines_go_last() {
        let result = ScriptResult {
            outcome: Ok((Some(serde_json::json!({"a": 1})), StoreWrites::default())),
            output: vec![
                OutputItem::Console("log 1".into()),
                OutputItem::Text("first".into()),
                OutputItem::Console("log 2".into()),
            ],
            calls: Vec::new(),
        };
        let r = report(&result, Duration::from_millis(1234), None);
        assert_eq!(
            text_of(&r),
            "Script completed\nWall time 1.2 seconds\nOutput:\n|==> text 1/2 <==\nfirst\n==> text 2/2 <==\n{\"a\":1}\n<console_output>\nlog 1\nlog 2\n</console_output>"
        );
        assert!(!r.is_error);
    }

    #[test]
    fn failures_keep_partial_output_and_list_the_calls() {
        let result = ScriptResult {
            outcome: Err(ScriptError::Timeout(
                "Execution timed out after 50 ms".into(),
            )),
            output: vec![OutputItem::Text("partial".into())],
            calls: vec![CallRecord {
                name: "read".into(),
                status: CallStatus::Ok,
            }],
        };
        let r = report(&result, Duration::ZERO, None);
        assert_eq!(
            text_of(&r),
            "Script failed\nWall time 0.0 seconds\nOutput:\n|partial\nScript error:\nScript timed out: Execution timed out after 50 ms\n\nTool calls made before the failure (they are not undone): read (ok)"
        );
        assert!(r.is_error);
    }

    #[test]
    fn long_output_keeps_start_and_end_and_is_saved_whole() {
        let long = format!("{}MIDDLE{}", "a".repeat(100), "z".repeat(100));
        let result = ScriptResult {
            outcome: Ok((None, StoreWrites::default())),
            output: vec![OutputItem::Text(long.clone())],
            calls: Vec::new(),
        };
        let r = report(&result, Duration::ZERO, Some(10));
        let text = text_of(&r);
        assert!(text.contains(
            "Warning: truncated output (original token count: 52)\nTotal output lines: 1\n\n"
        ));
        assert!(text.contains(&format!(
            "{}…42 tokens truncated…{}",
            "a".repeat(20),
            "z".repeat(20)
        )));
        assert!(!text.contains("MIDDLE"));
        let path = r.full_output_path.expect("saved");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), long);
        std::fs::remove_file(path).unwrap();
    }
}
