//! Snapshot tests of every component at 80 and 40 columns. Snapshots show the visible text with
//! escapes stripped and a `|` at the right edge of padded lines (so box widths show); a few
//! snapshots keep the escapes (as `␛`) where the colours are the point (diffs, footer warning).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::show;
use insta::assert_snapshot;
use rho_protocol::ThinkingLevel;
use rho_tui::components::*;
use rho_tui::Theme;
use serde_json::json;

/// Lines with escapes made visible.
fn escapes(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.replace('\x1b', "␛"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn both(name: &str, c: &dyn Component) {
    let t = Theme::dark();
    for width in [80, 40] {
        assert_snapshot!(format!("{name}_{width}"), show(&c.render(width, &t), width));
    }
}

const MD: &str = "## Plan\n\nThe parser *panics* on **empty** input; `parse(\"\")` should return an error.\n\n1. Add a guard in `parse`\n2. Cover it with a test\n   - empty string\n   - whitespace only\n\n```rust\nfn parse(s: &str) -> Result<Ast, Error> {\n    if s.trim().is_empty() { return Err(Error::Empty); } // guard\n    Ok(Ast::new(s, 42))\n}\n```\n\n> Note: see [the docs](https://example.com/docs) for details.";

#[test]
fn user_message() {
    both(
        "user",
        &UserMessageView {
            text: "Please fix the **parser** bug in `src/lib.rs`: it panics on empty input. Also 日本語 and emoji 🎉 should wrap right.".into(),
        },
    );
}

#[test]
fn assistant_message_with_thinking() {
    let mut v = AssistantMessageView::new(true);
    v.blocks = vec![
        ReplyBlock::Thinking("The user wants a guard. I should check `parse` first.".into()),
        ReplyBlock::Text(MD.into()),
    ];
    both("assistant_thinking_expanded", &v);
    v.thinking_expanded = false;
    both("assistant_thinking_collapsed", &v);
}

#[test]
fn assistant_message_aborted_and_failed() {
    let mut v = AssistantMessageView::new(true);
    v.blocks = vec![ReplyBlock::Text("Half an answ".into())];
    v.stop_reason = Some(rho_protocol::StopReason::Aborted);
    both("assistant_aborted", &v);
    v.stop_reason = Some(rho_protocol::StopReason::Error);
    v.error_message = Some("429 rate limit exceeded: please retry after 20 seconds".into());
    both("assistant_error", &v);
}

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("output line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn tool_bash_streaming_collapsed_and_expanded() {
    let mut v = ToolCallView::new("c1", "bash", json!({"command": "cargo test -p rho-tui"}));
    v.output = numbered(3);
    both("tool_bash_running", &v);
    v.output = numbered(12);
    v.status = ToolStatus::Success;
    both("tool_bash_collapsed", &v);
    v.expanded = true;
    both("tool_bash_expanded", &v);
}

#[test]
fn tool_read_collapsed() {
    let mut v = ToolCallView::new(
        "c2",
        "read",
        json!({"path": "src/lib.rs", "offset": 10, "limit": 15}),
    );
    v.output = numbered(15);
    v.status = ToolStatus::Success;
    both("tool_read", &v);
}

#[test]
fn tool_edit_diff() {
    let mut v = ToolCallView::new("c3", "edit", json!({"path": "src/parse.rs", "edits": []}));
    v.output = "Successfully replaced 1 block(s) in src/parse.rs.".into();
    v.details = Some(json!({
        "diff": "  9 fn parse(s: &str) -> Result<Ast, Error> {\n-10     let ast = Ast::new(s);\n+10     if s.is_empty() { return Err(Error::Empty); }\n+11     let ast = Ast::new(s);\n 11     Ok(ast)",
        "firstChangedLine": 10
    }));
    v.status = ToolStatus::Success;
    both("tool_edit", &v);
    assert_snapshot!("tool_edit_escapes", escapes(&v.render(80, &Theme::dark())));
}

#[test]
fn tool_write_error_and_other() {
    let mut v = ToolCallView::new(
        "c4",
        "write",
        json!({"path": "hello.py", "content": "def hi():\n    print(\"hi\")  # greet\n"}),
    );
    v.output = "Successfully wrote 36 bytes to hello.py".into();
    v.status = ToolStatus::Success;
    both("tool_write", &v);
    let mut e = ToolCallView::new("c5", "grep", json!({"pattern": "fn main", "path": "src"}));
    e.output = "Path not found: /work/src".into();
    e.status = ToolStatus::Error;
    both("tool_error", &e);
    let mut g = ToolCallView::new(
        "c6",
        "web_fetch",
        json!({"url": "https://example.com", "max": 3}),
    );
    g.output = "<html>…</html>".into();
    g.status = ToolStatus::Success;
    both("tool_custom", &g);
}

/// Lines an extension drew (pi's renderCall/renderResult, message renderers) inside rho's box;
/// a part it did not draw is rho's own, lines too wide are cut.
#[test]
fn lines_drawn_by_an_extension() {
    let mut v = ToolCallView::new("c7", "read", json!({"path": "notes.txt"}));
    v.output = "alpha\nbeta".into();
    v.status = ToolStatus::Success;
    v.custom_call = Some(vec!["\x1b[1mread \x1b[22m\x1b[35mnotes.txt\x1b[39m".into()]);
    v.custom_result = Some(vec!["\x1b[32m2 lines\x1b[39m".into(), "x".repeat(90)]);
    both("tool_drawn_by_extension", &v);
    v.custom_result = None;
    both("tool_call_drawn_by_extension", &v);
    both(
        "message_drawn_by_extension",
        &CustomMessageView {
            custom_type: "status-update".into(),
            text: "disk full".into(),
            custom: Some(vec!["[WARN] disk full".into()]),
            ..Default::default()
        },
    );
}

#[test]
fn notices() {
    both(
        "custom_message",
        &CustomMessageView {
            custom_type: "reminder".into(),
            text: "Remember to run **cargo fmt** before committing.".into(),
            ..Default::default()
        },
    );
    let mut c = CompactionView {
        tokens_before: 123_456,
        summary: "## Goal\nFix the parser.\n\n## Done\n- guard added".into(),
        expanded: false,
    };
    both("compaction_collapsed", &c);
    c.expanded = true;
    both("compaction_expanded", &c);
    both(
        "branch_summary",
        &BranchSummaryView {
            summary: "Tried a regex approach; abandoned.".into(),
            expanded: false,
        },
    );
    both(
        "bash_execution",
        &BashExecutionView {
            command: "git status --short".into(),
            output: " M src/lib.rs\n?? notes.md".into(),
            exit_code: Some(1),
            cancelled: false,
            excluded: false,
        },
    );
    both(
        "status",
        &StatusView {
            text: "Compacting context... (esc to cancel)".into(),
            is_error: false,
        },
    );
}

#[test]
fn editor() {
    let t = Theme::dark();
    let mut e = EditorView::new(t.thinking_color(ThinkingLevel::High));
    both("editor_empty", &e);
    e.text =
        "first line\nsecond line with a cursor in the middle and enough words to wrap at forty"
            .into();
    e.cursor = "first line\nsecond".len();
    e.padding_x = 1;
    both("editor_multiline", &e);
}

#[test]
fn footer() {
    let f = FooterView {
        cwd: "~/src/rho".into(),
        git_branch: Some("tui".into()),
        session_name: Some("parser fix".into()),
        model: Some("claude-sonnet-4-5".into()),
        provider: Some("anthropic".into()),
        reasoning: true,
        thinking_level: ThinkingLevel::High,
        routed: None,
        usage: UsageTotals {
            input: 12_345,
            output: 3_456,
            cache_read: 1_500_000,
            cache_write: 30_000,
            cost: 1.23456,
        },
        context_tokens: Some(150_000),
        context_window: 200_000,
        auto_compact: true,
    };
    both("footer", &f);
    assert_snapshot!("footer_escapes", escapes(&f.render(80, &Theme::dark())));
    let bare = FooterView {
        cwd: "/tmp".into(),
        context_window: 128_000,
        ..FooterView::default()
    };
    both("footer_no_model", &bare);
}

#[test]
fn queue_indicator() {
    let q = QueueView {
        steering: vec!["actually, use the stricter check".into()],
        follow_up: vec![
            "then run the tests\nand commit".into(),
            "and update the changelog please".into(),
        ],
    };
    both("queue", &q);
    assert!(QueueView::default().render(80, &Theme::dark()).is_empty());
}

#[test]
fn light_theme_changes_colours_not_layout() {
    let v = UserMessageView {
        text: "hello".into(),
    };
    let (d, l) = (v.render(40, &Theme::dark()), v.render(40, &Theme::light()));
    assert_ne!(d, l);
    assert_eq!(show(&d, 40), show(&l, 40));
}

#[test]
fn assistant_message_with_table() {
    let mut v = AssistantMessageView::new(true);
    v.blocks = vec![ReplyBlock::Text(
        "Sizes:\n\n| file | lines | note |\n|---|---:|---|\n| `src/ansi.rs` | 325 | wrapping and widths |\n| `src/renderer.rs` | 217 | differential frames |".into(),
    )];
    both("assistant_table", &v);
}

#[test]
fn a_path_too_long_for_the_line_wraps_after_its_label() {
    let v = StatusView {
        text: "File: /home/someone/.rho/agent/sessions/--home-someone-project--/2026-12-03T08-00-00-000Z_0195508c.jsonl\nID: 0195508c".into(),
        is_error: false,
    };
    both("status_long_path", &v);
}

#[test]
fn a_finished_bash_call_says_how_long_it_took() {
    let mut v = ToolCallView::new("c1", "bash", json!({"command": "sleep 1"}));
    v.output = "done".into();
    v.status = ToolStatus::Success;
    v.duration = Some(std::time::Duration::from_millis(1234));
    both("tool_bash_took", &v);
    assert_eq!(
        format_duration(std::time::Duration::from_secs(90)),
        "1m 30s"
    );
    assert_eq!(
        format_duration(std::time::Duration::from_secs(7384)),
        "2h 3m 4s"
    );
}
