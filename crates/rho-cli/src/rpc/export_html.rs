//! `export_html`: a self-contained HTML page of the session's conversation (the format is
//! not a compatibility requirement, interfaces spec §1.4; the paths and errors are).

use std::io::{self, BufWriter, Write};
use std::path::Path;

use rho_agent::AgentMessage;
use serde_json::{json, Value};

use super::sessions::absolute;
use super::Rpc;

/// Writes the page; returns `{"path"}`.
pub fn export(rpc: &Rpc, output_path: Option<&str>) -> Result<Value, String> {
    let (file, persisted, title) = rpc.session.with_session(|s| {
        (
            s.path().map(Path::to_path_buf),
            s.is_persisted(),
            s.name().unwrap_or(s.session_id()).to_string(),
        )
    });
    let file = file.ok_or("Cannot export in-memory session to HTML")?;
    if !persisted {
        return Err("Nothing to export yet - start a conversation first".into());
    }
    let path = match output_path {
        Some(p) => absolute(Path::new(p)),
        None => {
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
            absolute(Path::new(&format!(
                "pi-session-{}.html",
                stem.unwrap_or_default()
            )))
        }
    };
    let written = std::fs::File::create(&path).and_then(|file| {
        let mut out = BufWriter::new(file);
        rpc.session
            .agent()
            .with_state(|state| render(&mut out, &title, &state.messages))?;
        out.flush()
    });
    written.map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
    Ok(json!({ "path": path.to_string_lossy() }))
}

/// Writes the page straight from the transcript (no copy of the messages).
fn render(out: &mut impl Write, title: &str, messages: &[AgentMessage]) -> io::Result<()> {
    write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>body{{font-family:sans-serif;max-width:60em;margin:auto}}\
         pre{{white-space:pre-wrap}}.user{{background:#eef}}</style></head>\
         <body><h1>{t}</h1>\n",
        t = escape(title)
    )?;
    for m in messages {
        let text = match m {
            AgentMessage::User(u) => u.content.text(),
            AgentMessage::Assistant(a) => a.text(),
            AgentMessage::ToolResult(t) => t
                .content
                .iter()
                .filter_map(|b| b.as_text())
                .collect::<Vec<_>>()
                .join("\n"),
            AgentMessage::BashExecution(b) => format!("$ {}\n{}", b.command, b.output),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        writeln!(
            out,
            "<section class=\"{role}\"><h2>{role}</h2><pre>{}</pre></section>",
            escape(&text),
            role = m.role()
        )?;
    }
    out.write_all(b"</body></html>\n")
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup() {
        assert_eq!(
            super::escape("<a href=\"x\">&"),
            "&lt;a href=&quot;x&quot;&gt;&amp;"
        );
    }
}
