//! The differential renderer: draws frames of lines at the bottom of the terminal, in the normal
//! screen (no alternate screen), so everything that scrolls off stays in the scrollback.
//!
//! Each frame is compared with the previous one. Lines that did not change are skipped (the
//! cursor moves over them); changed lines are cleared and rewritten; new lines are appended with
//! `\r\n` so the terminal scrolls; a shorter frame clears what is left below it. A change above
//! the visible part of the screen, or a resize, cannot be patched in place: the screen and
//! scrollback are cleared and the frame drawn whole (as pi does). Every write is wrapped in
//! synchronized output (`CSI ? 2026 h` … `l`) so terminals show it at once, without flicker.

use std::io::{self, Write};

use crate::ansi::truncate_to_width;

/// Begin synchronized output.
pub const SYNC_START: &str = "\x1b[?2026h";
/// End synchronized output.
pub const SYNC_END: &str = "\x1b[?2026l";
/// Clear scrollback, clear screen, cursor home.
pub const CLEAR_ALL: &str = "\x1b[3J\x1b[2J\x1b[H";
/// Clear the whole current line.
pub const CLEAR_LINE: &str = "\x1b[2K";
/// Hide the hardware cursor (the editor draws its own).
pub const HIDE_CURSOR: &str = "\x1b[?25l";
/// Show the hardware cursor again.
pub const SHOW_CURSOR: &str = "\x1b[?25h";

/// What a call to [`Renderer::render`] did (for tests and diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RenderStats {
    /// Lines written (cleared and redrawn, or appended).
    pub lines_written: usize,
    /// True when the whole frame was redrawn after clearing the screen.
    pub full_redraw: bool,
}

/// Keeps the last frame and the cursor's row within it.
#[derive(Debug)]
pub struct Renderer {
    width: usize,
    height: usize,
    prev: Vec<String>,
    /// Row (index into `prev`) the cursor sits on; meaningful once `started`.
    cursor_row: usize,
    /// Rows the frames have used since the last full draw (a frame that shrank leaves blank
    /// rows below it, and the rows it scrolled away stay in the scrollback).
    used_rows: usize,
    started: bool,
    size_changed: bool,
}

impl Renderer {
    /// A renderer for a terminal of `width` × `height` cells. The first frame is drawn from the
    /// cursor's current row, which should be at the start of an empty line.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width: width.max(1),
            height: height.max(1),
            prev: Vec::new(),
            cursor_row: 0,
            used_rows: 0,
            started: false,
            size_changed: false,
        }
    }

    /// The width frames must be rendered for.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The terminal's height.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The last frame drawn, line by line (escapes kept).
    pub fn frame(&self) -> &[String] {
        &self.prev
    }

    /// The terminal was resized: the next frame is drawn whole (wrapped lines changed shape).
    pub fn resize(&mut self, width: usize, height: usize) {
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) != (self.width, self.height) {
            self.width = width;
            self.height = height;
            self.size_changed = true;
        }
    }

    /// The next frame is drawn whole (e.g. after something else wrote to the terminal).
    pub fn invalidate(&mut self) {
        self.size_changed = true;
    }

    /// Draws a frame made of consecutive `segments` (e.g. transcript, editor, footer) and writes
    /// the escape sequences to `out`. Lines wider than the terminal are cut, never wrapped.
    /// Writes nothing when the frame equals the previous one. The cost is one string comparison
    /// per unchanged line plus the work for the changed ones.
    pub fn render<W: Write>(
        &mut self,
        segments: &[&[String]],
        out: &mut W,
    ) -> io::Result<RenderStats> {
        let frame = Frame::new(segments);
        let n = frame.len;
        let first = frame
            .iter()
            .zip(&self.prev)
            .position(|(new, old)| new != old)
            .unwrap_or(n.min(self.prev.len()));
        if self.started && !self.size_changed && first == n && n == self.prev.len() {
            return Ok(RenderStats::default());
        }
        let viewport_top = self.used_rows.saturating_sub(self.height);
        // The cursor cannot enter the scrollback: a change there, or a frame that shrank so far
        // that its last line would be there, needs a full draw.
        let end_hidden = n.max(1) - 1 < viewport_top;
        let full = self.started && (self.size_changed || first < viewport_top || end_hidden);
        let mut buf = String::with_capacity(256);
        buf.push_str(SYNC_START);
        let stats = if !self.started || full {
            buf.push_str(if full { CLEAR_ALL } else { HIDE_CURSOR });
            for (i, line) in frame.iter().enumerate() {
                if i > 0 {
                    buf.push_str("\r\n");
                }
                push_line(&mut buf, line, self.width);
            }
            RenderStats {
                lines_written: n,
                full_redraw: full,
            }
        } else {
            self.patch(&mut buf, first, &frame)
        };
        buf.push_str(SYNC_END);
        out.write_all(buf.as_bytes())?;
        out.flush()?;
        let fresh = stats.full_redraw || !self.started;
        let keep = if fresh { 0 } else { first };
        self.used_rows = if fresh { n } else { self.used_rows.max(n) };
        self.prev.truncate(keep);
        self.prev.extend(frame.iter().skip(keep).cloned());
        self.cursor_row = n.saturating_sub(1);
        self.started = true;
        self.size_changed = false;
        Ok(stats)
    }

    /// Leaves the terminal as a shell expects it: the cursor shown, on a fresh line under the
    /// last frame (which stays in the scrollback). The next `render` starts a new frame there.
    pub fn stop<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if self.started {
            out.write_all(format!("\r\n{SHOW_CURSOR}").as_bytes())?;
            out.flush()?;
        }
        self.prev.clear();
        self.started = false;
        self.size_changed = false;
        Ok(())
    }

    /// Rewrites rows `first..n` that differ from the previous frame, in place.
    fn patch(&self, buf: &mut String, first: usize, frame: &Frame<'_>) -> RenderStats {
        let (n, old_n) = (frame.len, self.prev.len());
        let mut row = self.cursor_row;
        let mut written = 0;
        for (i, line) in frame.iter().enumerate().skip(first) {
            if self.prev.get(i) == Some(line) {
                continue;
            }
            move_rows(buf, &mut row, i, old_n);
            buf.push('\r');
            buf.push_str(CLEAR_LINE);
            push_line(buf, line, self.width);
            written += 1;
        }
        if n < old_n {
            move_rows(buf, &mut row, n, old_n);
            buf.push_str("\r\x1b[J");
        }
        if n > 0 {
            move_rows(buf, &mut row, n - 1, old_n.max(n));
        }
        RenderStats {
            lines_written: written,
            full_redraw: false,
        }
    }
}

/// Moves the cursor from `row` to `target`. Rows below `existing` are new: they are reached with
/// `\r\n`, which scrolls the terminal at the bottom (a cursor-down would stop there).
fn move_rows(buf: &mut String, row: &mut usize, target: usize, existing: usize) {
    use std::fmt::Write;
    if target < *row {
        let _ = write!(buf, "\x1b[{}A", *row - target);
    } else if target > *row {
        let last_existing = existing.saturating_sub(1).max(*row);
        let down = target.min(last_existing) - *row;
        if down > 0 {
            let _ = write!(buf, "\x1b[{down}B");
        }
        for _ in last_existing.max(*row)..target {
            buf.push_str("\r\n");
        }
    }
    *row = target;
}

/// Writes one line, cut to `width` if wider, with a reset after styled text.
pub(crate) fn push_line(buf: &mut String, line: &str, width: usize) {
    if line.len() > width && crate::ansi::visible_width(line) > width {
        buf.push_str(&truncate_to_width(line, width));
    } else {
        buf.push_str(line);
    }
    if line.contains('\x1b') {
        buf.push_str(crate::ansi::RESET);
    }
}

/// Consecutive segments seen as one list of lines.
struct Frame<'a> {
    segments: &'a [&'a [String]],
    len: usize,
}

impl<'a> Frame<'a> {
    fn new(segments: &'a [&'a [String]]) -> Self {
        Self {
            segments,
            len: segments.iter().map(|s| s.len()).sum(),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &'a String> + 'a {
        self.segments.iter().flat_map(|s| s.iter())
    }
}
