//! Cost of one streamed token on a long session: a transcript of more than 10,000 rendered lines,
//! then, per token, applying the `message_update` event, rendering the transcript and producing
//! the terminal frame (bytes) with the differential renderer.
//!
//! The same stream is measured twice: in the inline layout (rho's default) and in the
//! fullscreen layout (`tuiMode: "fullscreen"`, one screen in the alternate screen).
//!
//! Run: `cargo bench -p rho-tui --bench render`. Target: under 2 ms per token.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rho_protocol::agent::{AgentEvent, AgentMessage};
use rho_protocol::session::SessionEvent;
use rho_protocol::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, ThinkingLevel, UserMessage,
};
use rho_tui::components::{Component, EditorView, FooterView};
use rho_tui::fullscreen::{FullscreenOptions, FullscreenView};
use rho_tui::{RenderStats, Renderer, Theme, Transcript};

const WIDTH: usize = 100;
const HEIGHT: usize = 40;
const TOKENS: usize = 2000;

const ANSWER: &str = "## Findings\n\nThe **parser** fails on empty input because `parse` indexes the first byte.\n\n- add a guard\n- add a test\n\n```rust\nfn parse(s: &str) -> Result<Ast, Error> {\n    if s.is_empty() { return Err(Error::Empty); }\n    Ok(Ast::new(s))\n}\n```\n\nThat fixes it.";

fn agent(e: AgentEvent) -> SessionEvent {
    SessionEvent::Agent(Arc::new(e))
}

fn reply(text: &str) -> AssistantMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m");
    m.content.push(ContentBlock::text(text));
    m
}

fn build_history(t: &mut Transcript) -> usize {
    let mut n = 0;
    while t.lines(WIDTH).len() < 10_000 {
        n += 1;
        t.apply(&agent(AgentEvent::MessageStart {
            message: AgentMessage::User(UserMessage::text(format!("Question {n}: what is wrong?"))),
        }));
        let m = AgentMessage::Assistant(reply(ANSWER));
        t.apply(&agent(AgentEvent::MessageStart { message: m.clone() }));
        t.apply(&agent(AgentEvent::MessageEnd { message: m.into() }));
    }
    t.lines(WIDTH).len()
}

/// The transcript with its history and an empty reply being streamed, and the token events.
fn setup(theme: &Theme) -> (Transcript, usize, Vec<SessionEvent>) {
    let mut t = Transcript::new(theme.clone());
    let history_lines = build_history(&mut t);
    t.apply(&agent(AgentEvent::MessageStart {
        message: AgentMessage::Assistant(reply("")),
    }));
    let words = [
        "the ",
        "parser ",
        "**fails** ",
        "on ",
        "`empty` ",
        "input; ",
        "see\n\n",
        "- item\n",
    ];
    let events: Vec<SessionEvent> = (0..TOKENS)
        .map(|i| {
            let delta = words[i % words.len()];
            agent(AgentEvent::MessageUpdate {
                usage: Default::default(),
                assistant_message_event: AssistantMessageEvent::TextDelta {
                    content_index: 0,
                    delta: delta.to_string(),
                },
            })
        })
        .collect();
    (t, history_lines, events)
}

/// Streams every event into `t`, producing a frame with `draw` after each, and prints the
/// figures under `label`.
fn stream(
    label: &str,
    t: &mut Transcript,
    events: &[SessionEvent],
    mut draw: impl FnMut(&[String], &mut Vec<u8>) -> RenderStats,
) {
    let mut out = Vec::with_capacity(1 << 20);
    let first = Instant::now();
    draw(t.lines(WIDTH), &mut out);
    let first = first.elapsed();
    let mut times: Vec<Duration> = Vec::with_capacity(TOKENS);
    let mut bytes = 0;
    let mut full = 0;
    let mut model_time = Duration::ZERO;
    for e in events {
        out.clear();
        let start = Instant::now();
        t.apply(e);
        let lines = t.lines(WIDTH);
        let mid = Instant::now();
        let stats = draw(lines, &mut out);
        let end = Instant::now();
        times.push(end - start);
        model_time += mid - start;
        bytes += out.len();
        full += usize::from(stats.full_redraw);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mean = times.iter().map(|d| ms(*d)).sum::<f64>() / times.len() as f64;
    println!("{label}: first full frame: {:.2} ms", ms(first));
    println!(
        "{label}: per streamed token ({TOKENS} tokens): mean {mean:.3} ms, median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100]),
        ms(times[times.len() - 1]),
    );
    println!(
        "{label}: of which event + transcript lines: mean {:.3} ms",
        ms(model_time) / TOKENS as f64
    );
    println!(
        "{label}: bytes written per token: {:.0}; full redraws: {full}",
        bytes as f64 / TOKENS as f64
    );
}

fn main() {
    let theme = Theme::dark();
    let editor = EditorView::new(theme.thinking_color(ThinkingLevel::Medium)).render(WIDTH, &theme);
    let footer = FooterView {
        cwd: "~/src/rho".into(),
        model: Some("m".into()),
        context_window: 200_000,
        ..FooterView::default()
    }
    .render(WIDTH, &theme);

    let (mut t, history_lines, events) = setup(&theme);
    let mut r = Renderer::new(WIDTH, HEIGHT);
    stream("inline", &mut t, &events, |lines, out| {
        r.render(&[lines, &editor, &footer], out)
            .expect("write to a Vec")
    });
    println!(
        "history: {history_lines} lines, final frame {} lines",
        t.lines(WIDTH).len() + editor.len() + footer.len()
    );

    // The fullscreen layout: the same stream drawn as one screen (the transcript's end above
    // the editor and footer) in the alternate screen.
    let (mut t, _, events) = setup(&theme);
    let bottom: Vec<String> = editor.iter().chain(&footer).cloned().collect();
    let mut view = FullscreenView::new(WIDTH, HEIGHT, FullscreenOptions::default());
    let label = " ↓ Jump to latest message · Ctrl+End ";
    stream("fullscreen", &mut t, &events, |lines, out| {
        view.draw(&[lines], &bottom, label, &theme, Instant::now(), out)
            .expect("write to a Vec")
    });
}
