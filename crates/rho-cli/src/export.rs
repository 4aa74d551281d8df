//! `--export <session.jsonl> [out.html]` (interfaces spec §7): the current branch of a session
//! as one self-contained HTML page (no scripts, no external assets), so a conversation can be
//! shared or archived without rho. The file is only read, never migrated in place.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, UserContent};
use rho_core::session::{load_file, EntryData, SessionEntry, SessionTree};

/// Writes the page for `session` to `out` (default `rho-session-<basename>.html` in `cwd`)
/// and returns where it went.
pub fn export_session(session: &Path, out: Option<&str>, cwd: &Path) -> anyhow::Result<PathBuf> {
    let loaded = load_file(session)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", session.display()))?;
    let tree = SessionTree::from_entries(loaded.entries);
    let title = tree
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("Session {}", loaded.header.id));
    let html = render(
        &title,
        &loaded.header.cwd,
        &loaded.header.timestamp,
        &tree.branch(),
    );
    let target = match out {
        Some(p) => cwd.join(p),
        None => {
            let stem = session
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "session".into());
            cwd.join(format!("rho-session-{stem}.html"))
        }
    };
    std::fs::write(&target, html)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", target.display()))?;
    Ok(target)
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}\
.msg{border-left:4px solid #ccc;padding:.4rem .8rem;margin:1rem 0;white-space:pre-wrap}\
.user{border-color:#3b82f6}.assistant{border-color:#10b981}.toolResult{border-color:#a855f7}\
.error{border-color:#ef4444}.note{color:#666;font-size:.9em}.role{font-weight:600;font-size:.85em;color:#555}\
pre{background:#f5f5f5;padding:.5rem;overflow-x:auto}details{color:#555}img{max-width:100%}";

/// The page for the entries of one branch, root first.
pub fn render(title: &str, cwd: &str, created: &str, branch: &[&SessionEntry]) -> String {
    let mut html = String::with_capacity(4096);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title><style>{STYLE}</style></head><body>\n\
         <h1>{t}</h1>\n<p class=\"note\">{cwd} · {created}</p>\n",
        t = escape(title),
        cwd = escape(cwd),
        created = escape(created),
    );
    for entry in branch {
        render_entry(&mut html, entry);
    }
    html.push_str("</body></html>\n");
    html
}

fn render_entry(html: &mut String, entry: &SessionEntry) {
    match &entry.data {
        EntryData::Message(m) => render_message(html, m),
        EntryData::ModelChange { provider, model_id } => {
            note(html, &format!("Model: {provider}/{model_id}"))
        }
        EntryData::ThinkingLevelChange { thinking_level } => {
            note(html, &format!("Thinking level: {thinking_level}"))
        }
        EntryData::Compaction(c) => block(
            html,
            "compaction",
            "Compaction summary",
            &escape(&c.summary),
        ),
        EntryData::BranchSummary { summary, .. } if !summary.is_empty() => {
            block(html, "branchSummary", "Branch summary", &escape(summary))
        }
        EntryData::CustomMessage {
            custom_type,
            content,
            display: true,
            ..
        } => block(
            html,
            "custom",
            custom_type,
            &blocks_html(&content.to_blocks()),
        ),
        _ => {}
    }
}

fn render_message(html: &mut String, message: &AgentMessage) {
    match message {
        AgentMessage::User(u) => block(html, "user", "User", &user_html(&u.content)),
        AgentMessage::Assistant(a) => {
            let mut body = blocks_html(&a.content);
            if let Some(err) = &a.error_message {
                let _ = write!(body, "<p class=\"note\">Error: {}</p>", escape(err));
            }
            let label = format!("Assistant ({}/{})", a.provider, a.model);
            block(html, "assistant", &label, &body);
        }
        AgentMessage::ToolResult(t) => {
            let class = if t.is_error {
                "toolResult error"
            } else {
                "toolResult"
            };
            block(
                html,
                class,
                &format!("Tool result: {}", t.tool_name),
                &blocks_html(&t.content),
            );
        }
        AgentMessage::BashExecution(b) => {
            let body = format!("<pre>$ {}\n{}</pre>", escape(&b.command), escape(&b.output));
            block(html, "bash", "Shell", &body);
        }
        AgentMessage::Custom(c) if c.display => {
            block(html, "custom", &c.custom_type, &user_html(&c.content))
        }
        AgentMessage::BranchSummary(b) => {
            block(html, "branchSummary", "Branch summary", &escape(&b.summary))
        }
        AgentMessage::CompactionSummary(c) => block(
            html,
            "compaction",
            "Compaction summary",
            &escape(&c.summary),
        ),
        AgentMessage::Custom(_) | AgentMessage::System(_) => {}
    }
}

fn user_html(content: &UserContent) -> String {
    match content {
        UserContent::Text(t) => escape(t),
        UserContent::Blocks(b) => blocks_html(b),
    }
}

fn blocks_html(blocks: &[ContentBlock]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            ContentBlock::Text(t) => out.push_str(&escape(&t.text)),
            ContentBlock::Thinking(t) => {
                let _ = write!(
                    out,
                    "<details><summary>Thinking</summary>{}</details>",
                    escape(&t.thinking)
                );
            }
            ContentBlock::Image(i) => {
                let _ = write!(
                    out,
                    "<img alt=\"image\" src=\"data:{};base64,{}\">",
                    escape(&i.mime_type),
                    escape(&i.data)
                );
            }
            ContentBlock::ToolCall(c) => {
                let args = serde_json::to_string_pretty(&c.arguments).unwrap_or_default();
                let _ = write!(out, "<pre>{}({})</pre>", escape(&c.name), escape(&args));
            }
        }
    }
    out
}

fn block(html: &mut String, class: &str, label: &str, body: &str) {
    let _ = writeln!(
        html,
        "<div class=\"msg {class}\"><div class=\"role\">{}</div>{body}</div>",
        escape(label)
    );
}

fn note(html: &mut String, text: &str) {
    let _ = writeln!(html, "<p class=\"note\">{}</p>", escape(text));
}

/// HTML-escapes text for element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_shows_the_branch_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"s-1","timestamp":"2025-03-01T09:15:00.120Z","cwd":"/home/ana/app"}"#,
            r#"{"type":"model_change","id":"a1","parentId":null,"timestamp":"2025-03-01T09:15:00.200Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#,
            r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"List <files>"}],"timestamp":1740820502481}}"#,
            r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"2025-03-01T09:15:04.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"run ls"},{"type":"toolCall","id":"t1","name":"ls","arguments":{"path":"."}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1740820503900}}"#,
            r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2025-03-01T09:15:04.100Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"ls","content":[{"type":"text","text":"a.rs & b.rs"}],"isError":false,"timestamp":1740820504100}}"#,
            r#"{"type":"session_info","id":"a5","parentId":"a4","timestamp":"2025-03-01T09:15:05.000Z","name":"Listing"}"#,
        ];
        std::fs::write(&path, lines.join("\n")).expect("write");
        let out = export_session(&path, Some("out.html"), dir.path()).expect("exports");
        let html = std::fs::read_to_string(out).expect("read");
        insta::assert_snapshot!(html);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
