//! What a `/tree` row says about its entry, as pi 1.6 writes it: `user: …`, `assistant: …`, a
//! tool result as the call that produced it (`[read: ~/src/x.rs:10-20]`), `[compaction: 12k
//! tokens]`, `[model: …]` and the other bookkeeping entries; what typing searches in it; and
//! what copying it copies.

use std::collections::HashMap;

use rho_protocol::agent::AgentMessage;
use rho_protocol::session::{EntryData, SessionEntry};
use rho_protocol::{ContentBlock, StopReason};
use serde_json::Value;

use crate::theme::{italic, Color, Palette, Theme};

/// A tool call, found by id for the result that answers it.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub name: String,
    pub arguments: Value,
}

/// The tool calls of every assistant message, by id.
pub(super) fn tool_calls(entries: &[SessionEntry]) -> HashMap<String, Call> {
    let mut calls = HashMap::new();
    for entry in entries {
        let EntryData::Message(m) = &entry.data else {
            continue;
        };
        if m.role() != "assistant" {
            continue;
        }
        if let Ok(message) = m.get() {
            if let AgentMessage::Assistant(a) = &*message {
                for block in &a.content {
                    if let ContentBlock::ToolCall(c) = block {
                        let call = Call {
                            name: c.name.clone(),
                            arguments: c.arguments.clone(),
                        };
                        calls.insert(c.id.clone(), call);
                    }
                }
            }
        }
    }
    calls
}

/// Text with line breaks and tabs as spaces, trimmed (pi's row text).
fn one_line(s: &str) -> String {
    s.replace(['\n', '\t'], " ").trim().to_string()
}

/// The first 200 characters of `s` (pi cuts row text there).
fn head(s: &str) -> String {
    s.chars().take(200).collect()
}

/// How a part of a row's text is drawn.
#[derive(Clone, Copy)]
pub(super) enum Tone {
    /// The terminal's text colour.
    Plain,
    /// A palette colour.
    Color(fn(&Palette) -> Color),
    /// Dim and italic (an empty session title).
    DimItalic,
}

/// A row's text in parts, each with how it is drawn.
pub(super) type Styled = Vec<(Tone, String)>;

fn part(color: fn(&Palette) -> Color, text: impl Into<String>) -> (Tone, String) {
    (Tone::Color(color), text.into())
}

fn plain(text: impl Into<String>) -> (Tone, String) {
    (Tone::Plain, text.into())
}

/// Whether an assistant message gets a row: it has text, was aborted or failed, or is the
/// current leaf (pi hides replies that only called tools).
pub(super) fn assistant_shown(entry: &SessionEntry) -> bool {
    let EntryData::Message(m) = &entry.data else {
        return true;
    };
    if m.role() != "assistant" {
        return true;
    }
    match m.get().as_deref() {
        Ok(AgentMessage::Assistant(a)) => {
            !a.text().trim().is_empty()
                || !matches!(a.stop_reason, StopReason::Stop | StopReason::ToolUse)
        }
        _ => true,
    }
}

/// The row text of `entry`.
pub(super) fn display(
    entry: &SessionEntry,
    calls: &HashMap<String, Call>,
    home: Option<&str>,
) -> Styled {
    match &entry.data {
        EntryData::Message(m) => match m.get() {
            Ok(message) => message_display(&message, calls, home),
            Err(e) => vec![part(|c| c.dim, format!("[{}: {e}]", m.role()))],
        },
        EntryData::CustomMessage {
            custom_type,
            content,
            ..
        } => vec![
            part(|c| c.custom_message_label, format!("[{custom_type}]: ")),
            plain(one_line(&content.text())),
        ],
        EntryData::Compaction(c) => {
            let tokens = (c.tokens_before as f64 / 1000.0).round();
            vec![part(
                |c| c.border_accent,
                format!("[compaction: {tokens}k tokens]"),
            )]
        }
        EntryData::BranchSummary { summary, .. } => vec![
            part(|c| c.warning, "[branch summary]: "),
            plain(one_line(summary)),
        ],
        EntryData::ModelChange { model_id, .. } => {
            vec![part(|c| c.dim, format!("[model: {model_id}]"))]
        }
        EntryData::ThinkingLevelChange { thinking_level } => {
            vec![part(|c| c.dim, format!("[thinking: {thinking_level}]"))]
        }
        EntryData::Custom { custom_type, .. } => {
            vec![part(|c| c.dim, format!("[custom: {custom_type}]"))]
        }
        EntryData::ContextEdit {
            target_id,
            replacement,
        } => {
            let what = if replacement.is_none() {
                "omit"
            } else {
                "replace"
            };
            vec![part(|c| c.dim, format!("[context {what}: {target_id}]"))]
        }
        EntryData::Label { label, .. } => {
            let label = label.as_deref().unwrap_or("(cleared)");
            vec![part(|c| c.dim, format!("[label: {label}]"))]
        }
        EntryData::SessionInfo { name: Some(name) } => {
            vec![part(|c| c.dim, format!("[title: {name}]"))]
        }
        EntryData::SessionInfo { name: None } => vec![
            part(|c| c.dim, "[title: "),
            (Tone::DimItalic, "empty".into()),
            part(|c| c.dim, "]"),
        ],
        EntryData::Usage(_) => Vec::new(),
        EntryData::Unknown { entry_type, .. } => vec![part(|c| c.dim, format!("[{entry_type}]"))],
    }
}

fn message_display(
    message: &AgentMessage,
    calls: &HashMap<String, Call>,
    home: Option<&str>,
) -> Styled {
    match message {
        AgentMessage::User(u) => vec![
            part(|c| c.accent, "user: "),
            plain(one_line(&head(&u.content.text()))),
        ],
        AgentMessage::Assistant(a) => {
            let text = one_line(&head(&a.text()));
            let rest = if !text.is_empty() {
                plain(text)
            } else if a.stop_reason == StopReason::Aborted {
                part(|c| c.muted, "(aborted)")
            } else if let Some(e) = &a.error_message {
                part(
                    |c| c.error,
                    one_line(e).chars().take(80).collect::<String>(),
                )
            } else {
                part(|c| c.muted, "(no content)")
            };
            vec![part(|c| c.success, "assistant: "), rest]
        }
        AgentMessage::ToolResult(r) => {
            let text = match calls.get(&r.tool_call_id) {
                Some(call) => format_call(&call.name, &call.arguments, home),
                None => format!("[{}]", r.tool_name),
            };
            vec![part(|c| c.muted, text)]
        }
        AgentMessage::BashExecution(b) => {
            vec![part(|c| c.dim, format!("[bash]: {}", one_line(&b.command)))]
        }
        AgentMessage::System(_) => vec![part(|c| c.dim, "[system]")],
        AgentMessage::Custom(c) => vec![part(|p| p.dim, format!("[{}]", c.custom_type))],
        AgentMessage::BranchSummary(_) => vec![part(|c| c.dim, "[branchSummary]")],
        AgentMessage::CompactionSummary(_) => vec![part(|c| c.dim, "[compactionSummary]")],
    }
}

/// `path` with the home folder written `~`.
fn short(path: &str, home: Option<&str>) -> String {
    match home.and_then(|h| path.strip_prefix(h)) {
        Some("") => "~".into(),
        Some(rest) if rest.starts_with('/') => format!("~{rest}"),
        _ => path.to_string(),
    }
}

/// pi's line range after a read path: `:10`, `:10-29`.
fn line_range(offset: Option<&Value>, limit: Option<&Value>) -> String {
    let number = |v: Option<&Value>| v.filter(|v| !v.is_null()).and_then(Value::as_u64);
    let (offset, limit) = (number(offset), number(limit));
    match (offset, limit) {
        (None, None) => String::new(),
        (start, None) => format!(":{}", start.unwrap_or(1)),
        (start, Some(count)) => {
            let start = start.unwrap_or(1);
            format!(":{start}-{}", start + count.saturating_sub(1))
        }
    }
}

/// A tool call as a result row shows it (pi's `formatToolCall`).
pub(super) fn format_call(name: &str, args: &Value, home: Option<&str>) -> String {
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
    let path = |key: &str| {
        let p = args
            .get(key)
            .or_else(|| args.get("file_path"))
            .and_then(Value::as_str)
            .unwrap_or(if key == "path" { "" } else { "." });
        short(p, home)
    };
    match name {
        "read" => format!(
            "[read: {}{}]",
            path("path"),
            line_range(args.get("offset"), args.get("limit"))
        ),
        "write" | "edit" => format!("[{name}: {}]", path("path")),
        "bash" => {
            let raw = text("command");
            let cmd: String = one_line(raw).chars().take(50).collect();
            let more = if raw.chars().count() > 50 { "..." } else { "" };
            format!("[bash: {cmd}{more}]")
        }
        "grep" => format!("[grep: /{}/ in {}]", text("pattern"), dot_path(args, home)),
        "find" => format!("[find: {} in {}]", text("pattern"), dot_path(args, home)),
        "ls" => format!("[ls: {}]", dot_path(args, home)),
        _ => {
            let json = args.to_string();
            let cut: String = json.chars().take(40).collect();
            let more = if json.chars().count() > 40 { "..." } else { "" };
            format!("[{name}: {cut}{more}]")
        }
    }
}

fn dot_path(args: &Value, home: Option<&str>) -> String {
    short(
        args.get("path").and_then(Value::as_str).unwrap_or("."),
        home,
    )
}

/// What typing searches in an entry (its label too).
pub(super) fn searchable(entry: &SessionEntry, label: Option<&str>) -> String {
    let mut parts: Vec<String> = label.map(str::to_string).into_iter().collect();
    match &entry.data {
        EntryData::Message(m) => {
            parts.push(m.role().to_string());
            if let Ok(message) = m.get() {
                parts.push(head(&message_text(&message)));
                if let AgentMessage::BashExecution(b) = &*message {
                    parts.push(b.command.clone());
                }
            }
        }
        EntryData::CustomMessage {
            custom_type,
            content,
            ..
        } => {
            parts.push(custom_type.clone());
            parts.push(content.text());
        }
        EntryData::Compaction(_) => parts.push("compaction".into()),
        EntryData::BranchSummary { summary, .. } => {
            parts.push("branch summary".into());
            parts.push(summary.clone());
        }
        EntryData::SessionInfo { name } => {
            parts.push("title".into());
            parts.extend(name.clone());
        }
        EntryData::ModelChange { model_id, .. } => {
            parts.push(format!("model {model_id}"));
        }
        EntryData::ThinkingLevelChange { thinking_level } => {
            parts.push(format!("thinking {thinking_level}"));
        }
        EntryData::Custom { custom_type, .. } => parts.push(format!("custom {custom_type}")),
        EntryData::ContextEdit {
            target_id,
            replacement,
        } => {
            let what = if replacement.is_none() {
                "omit"
            } else {
                "replace"
            };
            parts.push(format!("context edit {what} {target_id}"));
        }
        EntryData::Label { label, .. } => {
            parts.push(format!("label {}", label.as_deref().unwrap_or("")));
        }
        EntryData::Usage(_) | EntryData::Unknown { .. } => {}
    }
    parts.join(" ").to_lowercase()
}

/// The text a message's content holds (tool results and custom messages included).
fn message_text(message: &AgentMessage) -> String {
    match message {
        AgentMessage::User(u) => u.content.text(),
        AgentMessage::Assistant(a) => a.text(),
        AgentMessage::ToolResult(r) => rho_protocol::message::join_text(&r.content),
        AgentMessage::Custom(c) => c.content.text(),
        AgentMessage::BranchSummary(b) => b.summary.clone(),
        _ => String::new(),
    }
}

/// What copying an entry puts on the clipboard; `None` when it holds no text.
pub(super) fn copy_text(entry: &SessionEntry) -> Option<String> {
    let text = match &entry.data {
        EntryData::Message(m) => match &*m.get().ok()? {
            AgentMessage::BashExecution(b) => b.command.clone(),
            AgentMessage::Assistant(a) => {
                let text = a.text();
                if text.is_empty() {
                    a.error_message.clone().unwrap_or_default()
                } else {
                    text
                }
            }
            message => message_text(message),
        },
        EntryData::CustomMessage { content, .. } => content.text(),
        EntryData::Compaction(c) => c.summary.clone(),
        EntryData::BranchSummary { summary, .. } => summary.clone(),
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// Draws `styled` in `theme`.
pub(super) fn paint(styled: &Styled, theme: &Theme) -> String {
    styled
        .iter()
        .map(|(tone, text)| match tone {
            Tone::Color(color) => theme.fg(color(&theme.colors), text),
            Tone::Plain => text.clone(),
            Tone::DimItalic => italic(&theme.fg(theme.colors.dim, text)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_read_as_pi_writes_them() {
        let home = Some("/home/me");
        let call = |name: &str, args: Value| format_call(name, &args, home);
        assert_eq!(
            call(
                "read",
                serde_json::json!({"path": "/home/me/src/x.rs", "offset": 10, "limit": 20})
            ),
            "[read: ~/src/x.rs:10-29]"
        );
        assert_eq!(
            call("read", serde_json::json!({"path": "a.rs"})),
            "[read: a.rs]"
        );
        assert_eq!(
            call("grep", serde_json::json!({"pattern": "fn main"})),
            "[grep: /fn main/ in .]"
        );
        let long = "x".repeat(60);
        assert_eq!(
            call("bash", serde_json::json!({"command": long})),
            format!("[bash: {}...]", "x".repeat(50))
        );
        assert_eq!(
            call("deploy", serde_json::json!({"env": "prod"})),
            "[deploy: {\"env\":\"prod\"}]"
        );
    }
}
