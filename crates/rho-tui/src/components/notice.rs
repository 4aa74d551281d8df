//! Boxed notices in the transcript: extension (custom) messages and entries, compaction and
//! branch summaries (collapsed by default, as pi shows them), user shell commands, and one-line
//! status notes (compacting, retrying, errors).

use super::{boxed, indent_lines, Component, EXPAND_HINT};
use crate::ansi::wrap;
use crate::markdown::render_markdown;
use crate::theme::{bold, Theme};

/// A message injected by an extension (`display: true`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CustomMessageView {
    /// The extension's message type, shown as `[type]`.
    pub custom_type: String,
    /// The content as markdown.
    pub text: String,
    /// The message's details (what an extension's renderer reads).
    pub details: Option<serde_json::Value>,
    /// Lines the extension drew itself (pi's `registerMessageRenderer`), shown instead.
    pub custom: Option<Vec<String>>,
    /// The user expanded tool output (ctrl+o); extensions' renderers may show more.
    pub expanded: bool,
}

/// Draws the `[label]` line plus markdown body on the custom-message background.
fn labelled_box(label: &str, body: &str, width: usize, theme: &Theme) -> Vec<String> {
    let c = &theme.colors;
    let inner = width.saturating_sub(2).max(1);
    let mut lines = vec![theme.fg(c.custom_message_label, &bold(&format!("[{label}]")))];
    if !body.is_empty() {
        lines.push(String::new());
        lines.extend(
            render_markdown(body, inner, theme)
                .into_iter()
                .map(|l| theme.fg(c.custom_message_text, &l)),
        );
    }
    let mut out = vec![String::new()];
    out.extend(boxed(lines, width, c.custom_message_bg, 1, 1));
    out
}

impl Component for CustomMessageView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        if let Some(lines) = &self.custom {
            let mut out = vec![String::new()];
            out.extend(
                lines
                    .iter()
                    .map(|l| crate::ansi::truncate_to_width(l, width)),
            );
            return out;
        }
        labelled_box(&self.custom_type, &self.text, width, theme)
    }
}

/// A `custom` entry an extension appended (`pi.appendEntry`): never in context, shown only
/// as its extension draws it (pi's `registerEntryRenderer`), nothing otherwise.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CustomEntryView {
    /// The entry as pi writes it (what the extension's renderer reads).
    pub entry: serde_json::Value,
    /// The lines the extension drew (`None`: not drawn, nothing shows).
    pub custom: Option<Vec<String>>,
    /// The user expanded tool output (ctrl+o); renderers may show more.
    pub expanded: bool,
}

impl Component for CustomEntryView {
    fn render(&self, width: usize, _theme: &Theme) -> Vec<String> {
        let lines = self.custom.iter().flatten();
        lines
            .map(|l| crate::ansi::truncate_to_width(l, width))
            .collect()
    }
}

/// History condensed by compaction.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionView {
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// The summary (shown when expanded).
    pub summary: String,
    /// Show the summary.
    pub expanded: bool,
}

/// `1234567` → `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

impl Component for CompactionView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let head = format!("Compacted from {} tokens", grouped(self.tokens_before));
        if self.expanded {
            labelled_box(
                "compaction",
                &format!("{head}\n\n{}", self.summary),
                width,
                theme,
            )
        } else {
            labelled_box(
                "compaction",
                &format!("{head} ({EXPAND_HINT})"),
                width,
                theme,
            )
        }
    }
}

/// Summary of a branch the conversation returned from.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummaryView {
    /// The summary (shown when expanded).
    pub summary: String,
    /// Show the summary.
    pub expanded: bool,
}

impl Component for BranchSummaryView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        if self.expanded {
            labelled_box(
                "branch",
                &format!("Branch summary\n\n{}", self.summary),
                width,
                theme,
            )
        } else {
            labelled_box(
                "branch",
                &format!("Branch summary ({EXPAND_HINT})"),
                width,
                theme,
            )
        }
    }
}

/// A shell command the user ran with `!cmd` (or `!!cmd`, kept out of context).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BashExecutionView {
    /// The command line.
    pub command: String,
    /// Output so far.
    pub output: String,
    /// Exit code once finished (`None` while running or when killed).
    pub exit_code: Option<i32>,
    /// The user cancelled it.
    pub cancelled: bool,
    /// `!!`: not sent to the model.
    pub excluded: bool,
}

impl Component for BashExecutionView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let inner = width.saturating_sub(2).max(1);
        let border = theme.fg(c.bash_mode, &"─".repeat(width));
        let prefix = if self.excluded { "$$ " } else { "$ " };
        let mut body = wrap(
            &theme.fg(c.bash_mode, &bold(&format!("{prefix}{}", self.command))),
            inner,
        );
        for l in self.output.lines() {
            body.extend(wrap(&theme.fg(c.tool_output, l), inner));
        }
        if self.cancelled {
            body.push(theme.fg(c.warning, "(cancelled)"));
        } else if let Some(code) = self.exit_code.filter(|c| *c != 0) {
            body.push(theme.fg(c.error, &format!("(exit {code})")));
        }
        let mut out = vec![String::new(), border.clone()];
        out.extend(indent_lines(body, 1));
        out.push(border);
        out
    }
}

/// A one-line note: compaction running, a retry wait, an error.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusView {
    /// The text.
    pub text: String,
    /// Draw it in the error colour.
    pub is_error: bool,
}

impl Component for StatusView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let color = if self.is_error { c.error } else { c.muted };
        let mut out = vec![String::new()];
        out.extend(indent_lines(
            wrap(&theme.fg(color, &self.text), width.saturating_sub(1).max(1)),
            1,
        ));
        out
    }
}
