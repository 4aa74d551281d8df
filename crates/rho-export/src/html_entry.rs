//! One session entry as a `<section>` of the page: messages with rendered markdown, thinking and
//! tool calls as collapsible `<details>`, tool results under the title of their call, and the
//! notes (model and thinking changes, compactions, branch summaries) between them.

use std::collections::HashMap;
use std::fmt::Write as _;

use rho_protocol::agent::{AgentMessage, SystemMessage};
use rho_protocol::{AssistantMessage, ContentBlock, StopReason, ToolResultMessage, UserContent};
use rho_session::{EntryData, SessionEntry};
use rho_tui::components::ToolCallView;

use super::escape;
use super::markdown::to_html;

/// Tool calls by id, so a result can show what it answers.
pub type Calls = HashMap<String, String>;

/// The titles (`$ ls`, `read src/main.rs`) of every tool call in `entries`.
pub fn call_titles(entries: &[SessionEntry]) -> Calls {
    let mut calls = Calls::new();
    for entry in entries {
        if entry.message_role() != Some("assistant") {
            continue;
        }
        let Some(message) = entry.message() else {
            continue;
        };
        let AgentMessage::Assistant(a) = &*message else {
            continue;
        };
        for block in &a.content {
            if let ContentBlock::ToolCall(c) = block {
                let view = ToolCallView::new(&c.id, &c.name, c.arguments.clone());
                calls.insert(c.id.clone(), view.plain_title());
            }
        }
    }
    calls
}

/// The body of `entry`'s section and its CSS class; `None` for entries a reader never sees
/// (labels, names, extension state).
pub fn render(entry: &SessionEntry, calls: &Calls) -> Option<(&'static str, String)> {
    Some(match &entry.data {
        EntryData::Message(m) => match m.get() {
            Ok(m) => return message(&m, calls),
            Err(e) => ("note", escape(&e.to_string())),
        },
        EntryData::ModelChange { provider, model_id } => (
            "note",
            format!("Model: {}", escape(&format!("{provider}/{model_id}"))),
        ),
        EntryData::ThinkingLevelChange { thinking_level } => (
            "note",
            format!("Thinking level: {}", escape(thinking_level)),
        ),
        EntryData::Compaction(c) => (
            "compaction",
            collapsible(
                "compaction",
                &format!("Compaction summary ({} tokens before)", c.tokens_before),
                &to_html(&c.summary),
                false,
            ),
        ),
        EntryData::BranchSummary { summary, .. } if !summary.is_empty() => (
            "branch-summary",
            collapsible("branch-summary", "Branch summary", &to_html(summary), false),
        ),
        EntryData::CustomMessage {
            custom_type,
            content,
            display: true,
            ..
        } => ("custom", labelled(custom_type, &user_content(content))),
        _ => return None,
    })
}

fn message(message: &AgentMessage, calls: &Calls) -> Option<(&'static str, String)> {
    Some(match message {
        AgentMessage::User(u) => ("user", labelled("User", &user_content(&u.content))),
        AgentMessage::Assistant(a) => ("assistant", assistant(a)),
        AgentMessage::ToolResult(t) => (
            if t.is_error {
                "tool-result error"
            } else {
                "tool-result"
            },
            tool_result(t, calls),
        ),
        AgentMessage::BashExecution(b) => {
            let mut title = format!("$ {}", b.command);
            match b.exit_code {
                Some(0) => {}
                Some(code) => {
                    let _ = write!(title, " (exit {code})");
                }
                None if b.cancelled => title.push_str(" (cancelled)"),
                None => {}
            }
            let body = format!("<pre>{}</pre>", escape(&b.output));
            ("bash", collapsible("bash", &title, &body, true))
        }
        AgentMessage::Custom(c) if c.display => (
            "custom",
            labelled(&c.custom_type, &user_content(&c.content)),
        ),
        AgentMessage::BranchSummary(b) => (
            "branch-summary",
            collapsible(
                "branch-summary",
                "Branch summary",
                &to_html(&b.summary),
                false,
            ),
        ),
        AgentMessage::CompactionSummary(c) => (
            "compaction",
            collapsible(
                "compaction",
                "Compaction summary",
                &to_html(&c.summary),
                false,
            ),
        ),
        AgentMessage::System(s) => ("system", system(s)),
        AgentMessage::Custom(_) => return None,
    })
}

/// A pi 1.x system message, folded: the whole prompt and its tools for the one that starts a
/// transcript (it declares the `preamble`), what changes for a later one (pi's export
/// renders them the same way).
fn system(s: &SystemMessage) -> String {
    let sections = s.sections.iter().flatten();
    let mut parts: Vec<String> = vec![s.content.text()];
    let mut changes: Vec<String> = Vec::new();
    let leading = system_starts_prompt(s);
    for (name, value) in sections {
        match value.as_str() {
            Some(text) if leading => parts.push(text.to_string()),
            Some(text) => {
                parts.push(format!(
                    "Updated system prompt section \"{name}\":\n\n{text}"
                ));
                changes.push(name.clone());
            }
            None => {
                parts.push(format!("Removed system prompt section \"{name}\"."));
                changes.push(format!("-{name}"));
            }
        }
    }
    let tool_names = |tools: &Option<Vec<serde_json::Value>>| -> Vec<String> {
        let names = tools.iter().flatten();
        names
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let (added, removed) = (tool_names(&s.tools_added), tool_names(&s.tools_removed));
    let mut tools: Vec<String> = added.iter().map(|n| format!("+{n}")).collect();
    tools.extend(removed.iter().map(|n| format!("-{n}")));
    if !tools.is_empty() {
        changes.push(format!("tools {}", tools.join(" ")));
    }
    let text: Vec<String> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    let mut body = format!("<pre>{}</pre>", escape(&text.join("\n\n")));
    for (title, names) in [("Tools", &added), ("Tools removed", &removed)] {
        if !names.is_empty() {
            let _ = write!(body, "<p>{}: {}</p>", title, escape(&names.join(", ")));
        }
    }
    let title = if leading {
        "System prompt".to_string()
    } else {
        format!("System prompt update: {}", changes.join(", "))
    };
    collapsible("system", &title, &body, false)
}

/// Whether a system message starts the prompt (declares the preamble) rather than
/// changing one.
pub fn system_starts_prompt(s: &SystemMessage) -> bool {
    s.sections
        .as_ref()
        .is_some_and(|m| m.get("preamble").is_some_and(|v| v.is_string()))
}

fn assistant(a: &AssistantMessage) -> String {
    let mut body = String::new();
    for block in &a.content {
        match block {
            ContentBlock::Text(t) => body.push_str(&to_html(&t.text)),
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => body.push_str(
                &collapsible("thinking", "Thinking", &to_html(&t.thinking), false),
            ),
            ContentBlock::ToolCall(c) => {
                let title = ToolCallView::new(&c.id, &c.name, c.arguments.clone()).plain_title();
                let args = serde_json::to_string_pretty(&c.arguments).unwrap_or_default();
                let inner = format!("<pre>{}</pre>", escape(&args));
                body.push_str(&collapsible("tool-call", &title, &inner, false));
            }
            ContentBlock::Image(_) | ContentBlock::Thinking(_) => {}
        }
    }
    match a.stop_reason {
        StopReason::Aborted => {
            let why = a.error_message.as_deref().unwrap_or("Operation aborted");
            let _ = write!(body, "<p class=\"stop\">{}</p>", escape(why));
        }
        StopReason::Error => {
            let why = a.error_message.as_deref().unwrap_or("Unknown error");
            let _ = write!(body, "<p class=\"stop error\">Error: {}</p>", escape(why));
        }
        _ => {}
    }
    let u = &a.usage;
    let meta = format!(
        "{}/{} · ↑{} ↓{} · ${:.4}",
        a.provider, a.model, u.input, u.output, u.cost.total
    );
    let _ = write!(body, "<div class=\"meta\">{}</div>", escape(&meta));
    labelled("Assistant", &body)
}

fn tool_result(t: &ToolResultMessage, calls: &Calls) -> String {
    let title = calls
        .get(&t.tool_call_id)
        .cloned()
        .unwrap_or_else(|| t.tool_name.clone());
    let text = rho_protocol::message::join_text(&t.content);
    let lines = text.lines().count();
    let status = if t.is_error { "error" } else { "result" };
    let summary = format!(
        "{title} · {status}, {lines} line{}",
        if lines == 1 { "" } else { "s" }
    );
    let mut inner = match t
        .details
        .as_ref()
        .and_then(|d| d.get("diff"))
        .and_then(|d| d.as_str())
    {
        Some(diff) if !t.is_error => diff_html(diff),
        _ => format!("<pre>{}</pre>", escape(&text)),
    };
    inner.push_str(&images(&t.content));
    collapsible("tool-output", &summary, &inner, false)
}

/// An edit's diff with added and removed lines marked.
fn diff_html(diff: &str) -> String {
    let mut out = String::from("<pre class=\"diff\">");
    for line in diff.lines() {
        let class = match line.as_bytes().first() {
            Some(b'+') => "add",
            Some(b'-') => "del",
            _ => "ctx",
        };
        let _ = writeln!(out, "<span class=\"{class}\">{}</span>", escape(line));
    }
    out.push_str("</pre>");
    out
}

fn user_content(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => to_html(t),
        UserContent::Blocks(blocks) => {
            let mut out = String::new();
            for b in blocks {
                if let ContentBlock::Text(t) = b {
                    out.push_str(&to_html(&t.text));
                }
            }
            out.push_str(&images(blocks));
            out
        }
    }
}

/// Images as inline data URIs (the page stays one file).
fn images(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for b in blocks {
        if let ContentBlock::Image(i) = b {
            let _ = write!(
                out,
                "<img alt=\"image\" src=\"data:{};base64,{}\">",
                escape(&i.mime_type),
                escape(&i.data)
            );
        }
    }
    out
}

fn labelled(label: &str, body: &str) -> String {
    format!("<div class=\"role\">{}</div>{body}", escape(label))
}

/// A `<details>` block; `open` for ones shown unfolded by default.
fn collapsible(class: &str, summary: &str, inner: &str, open: bool) -> String {
    format!(
        "<details class=\"{class}\"{}><summary>{}</summary><div class=\"inner\">{inner}</div></details>",
        if open { " open" } else { "" },
        escape(summary)
    )
}
