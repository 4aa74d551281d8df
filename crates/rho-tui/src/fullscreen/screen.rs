//! The fullscreen renderer: frames of exactly one screen of rows on the alternate screen.
//! Each row that differs from the last frame is rewritten in place (cursor addressed, line
//! cleared); the others cost one string comparison. Autowrap is off while the alternate screen
//! is in use, so a row as wide as the terminal never scrolls it.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::renderer::{push_line, RenderStats, SYNC_END, SYNC_START};

/// Enters the alternate screen, turns autowrap off, clears, hides the cursor.
pub const ENTER: &str = "\x1b[?1049h\x1b[?7l\x1b[2J\x1b[H\x1b[?25l";
/// Reports mouse buttons and the wheel, SGR encoded (no motion: it floods multiplexers).
pub const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1006h";
/// Stops mouse reports.
pub const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1000l";
/// Autowrap back on, the normal screen back (as it was before), the cursor shown.
pub const LEAVE: &str = "\x1b[?7h\x1b[?1049l\x1b[?25h";

/// The rows on screen and the terminal's size.
#[derive(Debug)]
pub struct ScreenRenderer {
    width: usize,
    height: usize,
    prev: Vec<String>,
    /// The next frame clears the screen and writes every row.
    whole: bool,
}

impl ScreenRenderer {
    /// A renderer for a `width` × `height` screen; the first frame is drawn whole.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width: width.max(1),
            height: height.max(1),
            prev: Vec::new(),
            whole: true,
        }
    }

    /// The width rows are drawn for.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The number of rows of a frame.
    pub fn height(&self) -> usize {
        self.height
    }

    /// The last frame drawn (escapes kept).
    pub fn frame(&self) -> &[String] {
        &self.prev
    }

    /// The terminal changed size: the next frame is drawn whole.
    pub fn resize(&mut self, width: usize, height: usize) {
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) != (self.width, self.height) {
            self.width = width;
            self.height = height;
            self.whole = true;
        }
    }

    /// The next frame is drawn whole (the screen was entered again, or written over).
    pub fn invalidate(&mut self) {
        self.whole = true;
    }

    /// Draws `rows` (the first [`height`](Self::height) of them; missing ones are blank) and
    /// writes the escapes to `out`; nothing when the frame equals the last one.
    pub fn render<W: Write>(
        &mut self,
        rows: &[Cow<'_, str>],
        out: &mut W,
    ) -> io::Result<RenderStats> {
        let row = |i: usize| rows.get(i).map_or("", |r| r.as_ref());
        let whole = self.whole;
        let mut buf = String::new();
        let mut written = 0;
        for i in 0..self.height {
            let line = row(i);
            if !whole && self.prev.get(i).map(String::as_str) == Some(line) {
                continue;
            }
            if buf.is_empty() {
                buf.push_str(SYNC_START);
                if whole {
                    buf.push_str("\x1b[H\x1b[2J");
                }
            }
            let _ = write!(buf, "\x1b[{};1H\x1b[2K", i + 1);
            push_line(&mut buf, line, self.width);
            written += 1;
        }
        if buf.is_empty() {
            return Ok(RenderStats::default());
        }
        buf.push_str(SYNC_END);
        out.write_all(buf.as_bytes())?;
        out.flush()?;
        self.prev.clear();
        self.prev
            .extend((0..self.height).map(|i| row(i).to_string()));
        self.whole = false;
        Ok(RenderStats {
            lines_written: written,
            full_redraw: whole,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&str]) -> Vec<Cow<'static, str>> {
        v.iter().map(|s| Cow::Owned(s.to_string())).collect()
    }

    fn draw(r: &mut ScreenRenderer, v: &[&str]) -> (String, RenderStats) {
        let mut out = Vec::new();
        let stats = r.render(&rows(v), &mut out).expect("write to a Vec");
        (String::from_utf8(out).expect("utf-8"), stats)
    }

    #[test]
    fn the_first_frame_clears_and_writes_every_row() {
        let mut r = ScreenRenderer::new(10, 3);
        let (bytes, stats) = draw(&mut r, &["a", "b"]);
        assert_eq!(
            bytes,
            format!("{SYNC_START}\x1b[H\x1b[2J\x1b[1;1H\x1b[2Ka\x1b[2;1H\x1b[2Kb\x1b[3;1H\x1b[2K{SYNC_END}")
        );
        assert_eq!(stats.lines_written, 3);
        assert!(stats.full_redraw);
    }

    #[test]
    fn only_changed_rows_are_rewritten_and_an_equal_frame_writes_nothing() {
        let mut r = ScreenRenderer::new(10, 3);
        draw(&mut r, &["a", "b", "c"]);
        let (bytes, stats) = draw(&mut r, &["a", "B", "c"]);
        assert_eq!(bytes, format!("{SYNC_START}\x1b[2;1H\x1b[2KB{SYNC_END}"));
        assert_eq!(stats.lines_written, 1);
        assert_eq!(draw(&mut r, &["a", "B", "c"]).0, "");
    }

    #[test]
    fn rows_are_cut_to_the_width_and_a_resize_draws_whole() {
        let mut r = ScreenRenderer::new(4, 1);
        let (bytes, _) = draw(&mut r, &["abcdefgh"]);
        assert!(bytes.contains("\x1b[2Kabcd\x1b"), "{bytes:?}");
        r.resize(6, 1);
        let (bytes, stats) = draw(&mut r, &["abcdefgh"]);
        assert!(stats.full_redraw);
        assert!(bytes.contains("abcdef\x1b"), "{bytes:?}");
    }
}
