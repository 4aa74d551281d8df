//! Streams a scripted reply into the real terminal with the differential renderer, to look at
//! the output by eye (e.g. in tmux). Size comes from `COLUMNS`/`LINES` (default 80×24).
//!
//! Run: `COLUMNS=$(tput cols) LINES=$(tput lines) cargo run -p rho-tui --example stream_demo`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rho_protocol::agent::{AgentEvent, AgentMessage, ToolExecutionResult};
use rho_protocol::session::SessionEvent;
use rho_protocol::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, ThinkingLevel, UserMessage,
};
use rho_tui::components::{Component, EditorView, FooterView};
use rho_tui::{Renderer, Theme, Transcript};

const REPLY: &str = "## Looking at it\n\nThe **parser** fails on `\"\"` because it reads the first byte.\n\n| case | result |\n|---|---|\n| empty | panic |\n| `a` | ok |\n\n```rust\nfn parse(s: &str) -> Option<u8> {\n    s.bytes().next() // 日本語 🎉\n}\n```\n\nDone.";

fn env_size(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn agent(e: AgentEvent) -> SessionEvent {
    SessionEvent::Agent(Arc::new(e))
}

fn main() -> std::io::Result<()> {
    let (width, height) = (env_size("COLUMNS", 80), env_size("LINES", 24));
    let theme = Theme::dark();
    let mut t = Transcript::new(theme.clone());
    let mut r = Renderer::new(width, height);
    let mut out = std::io::stdout().lock();
    let editor = EditorView::new(theme.thinking_color(ThinkingLevel::High)).render(width, &theme);
    let footer = FooterView {
        cwd: "~/src/rho".into(),
        model: Some("demo-model".into()),
        context_window: 200_000,
        ..FooterView::default()
    }
    .render(width, &theme);
    let mut frame = |t: &mut Transcript, out: &mut std::io::StdoutLock| {
        r.render(&[t.lines(width), &editor, &footer], out)
    };
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::User(UserMessage::text("Why does the parser panic?")),
    }));
    let empty = AssistantMessage::empty("demo", "demo", "demo-model");
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::Assistant(empty.clone()),
    }));
    let update = |event| {
        agent(AgentEvent::MessageUpdate {
            usage: Default::default(),
            assistant_message_event: event,
        })
    };
    t.apply(&update(AssistantMessageEvent::TextStart {
        content_index: 0,
    }));
    for token in REPLY.split_inclusive(' ') {
        t.apply(&update(AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: token.into(),
        }));
        frame(&mut t, &mut out)?;
        std::thread::sleep(Duration::from_millis(30));
    }
    t.apply(&agent(AgentEvent::tool_execution_end(
        "c1",
        "bash",
        ToolExecutionResult {
            content: vec![ContentBlock::text("running 3 tests\n...\ntest result: ok")],
            details: None,
        },
        false,
    )));
    frame(&mut t, &mut out)?;
    r.stop(&mut out)?;
    out.flush()
}
