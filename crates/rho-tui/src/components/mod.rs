//! The pieces of the interactive screen. Each renders itself to styled lines for a width; none
//! keeps terminal state, so each can be snapshot-tested alone.

mod assistant;
mod editor;
mod footer;
mod notice;
mod queue;
mod tool;
mod user;

pub use assistant::{AssistantMessageView, ReplyBlock};
pub use editor::EditorView;
pub use footer::{FooterView, UsageTotals};
pub use notice::{
    BashExecutionView, BranchSummaryView, CompactionView, CustomEntryView, CustomMessageView,
    StatusView,
};
pub use queue::QueueView;
pub use tool::{format_duration, ToolCallView, ToolStatus};
pub use user::UserMessageView;

use crate::ansi::{pad_to_width, wrap, RESET};
use crate::theme::{Color, Theme};

/// Something that draws itself as lines no wider than `width` columns.
pub trait Component {
    /// The lines for this width (styled; each line self-contained: styles do not leak).
    fn render(&self, width: usize, theme: &Theme) -> Vec<String>;
}

/// The hint pi shows on collapsed parts.
pub const EXPAND_HINT: &str = "ctrl+o to expand";

/// Lays `body` lines into a box of `width` columns filled with `bg`: `pad_x` spaces at the
/// sides, `pad_y` empty lines above and below. Body lines must already fit `width - 2*pad_x`.
pub fn boxed(
    body: Vec<String>,
    width: usize,
    bg: Color,
    pad_x: usize,
    pad_y: usize,
) -> Vec<String> {
    let bg_code = bg.bg_code();
    let side = " ".repeat(pad_x);
    let reopen = format!("{RESET}{bg_code}");
    let fill = |content: &str| {
        let mut l = String::with_capacity(content.len() + width + 24);
        l.push_str(&bg_code);
        l.push_str(&side);
        l.push_str(&content.replace(RESET, &reopen));
        pad_to_width(&mut l, width);
        l.push_str("\x1b[49m");
        l
    };
    let mut out = Vec::with_capacity(body.len() + 2 * pad_y);
    out.extend((0..pad_y).map(|_| fill("")));
    out.extend(body.iter().map(|l| fill(l)));
    out.extend((0..pad_y).map(|_| fill("")));
    out
}

/// Wraps `text` and indents every line by `pad` spaces.
pub fn indented(text: &str, width: usize, pad: usize) -> Vec<String> {
    let prefix = " ".repeat(pad);
    wrap(text, width.saturating_sub(2 * pad).max(1))
        .into_iter()
        .map(|l| format!("{prefix}{l}"))
        .collect()
}

/// Adds `pad` spaces before each line.
pub fn indent_lines(lines: Vec<String>, pad: usize) -> Vec<String> {
    if pad == 0 {
        return lines;
    }
    let prefix = " ".repeat(pad);
    lines.into_iter().map(|l| format!("{prefix}{l}")).collect()
}
