//! pi 1.x's fullscreen layout (`tuiMode: "fullscreen"`): the alternate screen holds a
//! scrollable transcript above the editor and footer, which stay at the bottom. The transcript
//! follows new output until the user scrolls up (keys or the mouse wheel); then a "Jump to
//! latest message" bar sits on its last row. A scrollbar shows as `fullscreenScrollbar` says.
//!
//! [`FullscreenView`] turns the same lines the inline mode draws (banner, transcript, bottom
//! part) into one screen of rows and writes only the rows that changed, so a streamed token
//! costs about one screen of string comparisons whatever the conversation's length.

mod options;
mod screen;
mod viewport;
mod wheel;

use std::borrow::Cow;
use std::io::{self, Write};
use std::time::{Duration, Instant};

pub use options::{BadValue, ExitOutput, FullscreenOptions, Scrollbar, TuiMode, WheelLines};
pub use screen::{ScreenRenderer, ENTER, LEAVE, MOUSE_OFF, MOUSE_ON};
pub use viewport::Viewport;
pub use wheel::WheelScroll;

use crate::ansi::{pad_to_width, truncate_to_width, visible_width};
use crate::renderer::RenderStats;
use crate::theme::Theme;

/// How long an `auto` scrollbar stays after the last scroll (pi's).
const SCROLLBAR_LINGER: Duration = Duration::from_millis(1000);
/// Alt+wheel moves this many times as far (pi's).
const ALT_WHEEL_FACTOR: usize = 5;

/// A scroll the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scroll {
    /// A page (`tui.altScreen.pageUp` / `pageDown`); `true` is down.
    Page(bool),
    /// Half a page.
    HalfPage(bool),
    /// One line.
    Line(bool),
    /// The first line.
    Top,
    /// The end, following new output.
    Bottom,
}

/// The fullscreen screen: scroll state, options and the renderer.
#[derive(Debug)]
pub struct FullscreenView {
    screen: ScreenRenderer,
    viewport: Viewport,
    options: FullscreenOptions,
    wheel: WheelScroll,
    /// An `auto` scrollbar shows until then.
    bar_until: Option<Instant>,
    /// Whether the last frame showed an `auto` scrollbar (it must be taken away later).
    bar_shown: bool,
    /// Whether the alternate screen was entered (and not left).
    entered: bool,
}

impl FullscreenView {
    /// A view for a `width` × `height` terminal.
    pub fn new(width: usize, height: usize, options: FullscreenOptions) -> Self {
        Self {
            screen: ScreenRenderer::new(width, height),
            viewport: Viewport::default(),
            wheel: WheelScroll::new(options.wheel_lines, WheelScroll::platform_accelerates()),
            options,
            bar_until: None,
            bar_shown: false,
            entered: false,
        }
    }

    /// Takes the alternate screen and the mouse (wheel reports), unless already done; the
    /// next frame is drawn whole.
    pub fn enter<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if !self.entered {
            out.write_all(format!("{ENTER}{MOUSE_ON}").as_bytes())?;
            out.flush()?;
            self.entered = true;
            crate::terminal::set_fullscreen(true);
            self.screen.invalidate();
        }
        Ok(())
    }

    /// The terminal was handed to another program and taken back (which left the alternate
    /// screen): the next frame enters it again and is drawn whole.
    pub fn retaken(&mut self) {
        self.entered = false;
        self.screen.invalidate();
    }

    /// Gives the mouse and the normal screen back (as it was before [`enter`](Self::enter)).
    pub fn leave<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if self.entered {
            out.write_all(format!("{MOUSE_OFF}{LEAVE}").as_bytes())?;
            out.flush()?;
            self.entered = false;
            crate::terminal::set_fullscreen(false);
        }
        Ok(())
    }

    /// The settings in effect.
    pub fn options(&self) -> FullscreenOptions {
        self.options
    }

    /// Applies changed settings (from /settings); the next frame is drawn whole.
    pub fn set_options(&mut self, options: FullscreenOptions) {
        if options.wheel_lines != self.options.wheel_lines {
            self.wheel = WheelScroll::new(options.wheel_lines, WheelScroll::platform_accelerates());
        }
        self.options = options;
        self.screen.invalidate();
    }

    /// The terminal's width.
    pub fn width(&self) -> usize {
        self.screen.width()
    }

    /// The terminal's height.
    pub fn height(&self) -> usize {
        self.screen.height()
    }

    /// The width the transcript is rendered for: one column less when the scrollbar always
    /// takes one.
    pub fn content_width(&self) -> usize {
        let width = self.width();
        if self.options.scrollbar == Scrollbar::Always && width > 1 {
            width - 1
        } else {
            width
        }
    }

    /// The scroll state.
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// The terminal changed size.
    pub fn resize(&mut self, width: usize, height: usize) {
        self.screen.resize(width, height);
    }

    /// The next frame is drawn whole.
    pub fn invalidate(&mut self) {
        self.screen.invalidate();
    }

    /// The last frame (escapes kept).
    pub fn frame(&self) -> &[String] {
        self.screen.frame()
    }

    /// Scrolls; true when the view moved.
    pub fn scroll(&mut self, scroll: Scroll, now: Instant) -> bool {
        let v = &mut self.viewport;
        let moved = match scroll {
            Scroll::Page(down) => v.page(down),
            Scroll::HalfPage(down) => v.half_page(down),
            Scroll::Line(down) => v.scroll_by(if down { 1 } else { -1 }),
            Scroll::Top => v.to_top(),
            Scroll::Bottom => v.to_bottom(),
        };
        self.moved(moved, now)
    }

    /// A mouse wheel notch; true when the view moved.
    pub fn wheel(&mut self, down: bool, alt: bool, now: Instant) -> bool {
        let mut lines = self.wheel.next(down, now);
        if alt {
            lines *= ALT_WHEEL_FACTOR;
        }
        let lines = isize::try_from(lines).unwrap_or(isize::MAX);
        let moved = self.viewport.scroll_by(if down { lines } else { -lines });
        self.moved(moved, now)
    }

    /// Jumps to the next (or previous) of `marks`, line numbers in the document.
    pub fn jump(&mut self, marks: &[usize], forward: bool, now: Instant) -> bool {
        let moved = self.viewport.jump(marks, forward);
        self.moved(moved, now)
    }

    fn moved(&mut self, moved: bool, now: Instant) -> bool {
        if moved && self.options.scrollbar == Scrollbar::Auto {
            self.bar_until = Some(now + SCROLLBAR_LINGER);
        }
        moved
    }

    /// Whether a frame must be drawn at `now` although nothing changed: the `auto` scrollbar
    /// shown in the last frame has had its time.
    pub fn redraw_due(&self, now: Instant) -> bool {
        self.bar_shown && self.bar_until.is_none_or(|until| now >= until)
    }

    /// The rows of one screen: the part of `document` (consecutive segments) the view shows,
    /// then `bottom` (editor, footer...). `jump_label` is the text of the bar shown while the
    /// view does not follow the end.
    pub fn compose<'a>(
        &mut self,
        document: &[&'a [String]],
        bottom: &'a [String],
        jump_label: &str,
        theme: &Theme,
        now: Instant,
    ) -> Vec<Cow<'a, str>> {
        let (width, height) = (self.width(), self.height());
        let bottom = &bottom[bottom.len().saturating_sub(height.saturating_sub(1))..];
        let view_height = height - bottom.len();
        let content: usize = document.iter().map(|s| s.len()).sum();
        self.viewport.update(content, view_height);
        let bar = match self.options.scrollbar {
            Scrollbar::Always => width > 1,
            Scrollbar::Hidden => false,
            Scrollbar::Auto => {
                self.viewport.overflows() && self.bar_until.is_some_and(|until| now < until)
            }
        };
        self.bar_shown = bar && self.options.scrollbar == Scrollbar::Auto;
        let mut lines = document
            .iter()
            .flat_map(|s| s.iter())
            .skip(self.viewport.top());
        let mut rows: Vec<Cow<'a, str>> = (0..view_height)
            .map(|_| {
                lines
                    .next()
                    .map_or(Cow::Borrowed(""), |l| Cow::Borrowed(l.as_str()))
            })
            .collect();
        if !self.viewport.is_following() {
            if let Some(last) = rows.last_mut() {
                *last = Cow::Owned(jump_bar(jump_label, width, theme));
            }
        }
        if bar {
            let cells = scrollbar_cells(&self.viewport, content, theme);
            for (row, cell) in rows.iter_mut().zip(cells) {
                let mut line = truncate_to_width(row, width - 1);
                pad_to_width(&mut line, width - 1);
                line.push_str(&cell);
                *row = Cow::Owned(line);
            }
        }
        rows.extend(bottom.iter().map(|l| Cow::Borrowed(l.as_str())));
        rows
    }

    /// Composes and draws a frame (entering the alternate screen first if needed); writes only
    /// the rows that changed.
    pub fn draw<W: Write>(
        &mut self,
        document: &[&[String]],
        bottom: &[String],
        jump_label: &str,
        theme: &Theme,
        now: Instant,
        out: &mut W,
    ) -> io::Result<RenderStats> {
        self.enter(out)?;
        let rows = self.compose(document, bottom, jump_label, theme, now);
        self.screen.render(&rows, out)
    }
}

/// The bar on the transcript's last row while it does not follow the end, centred.
fn jump_bar(label: &str, width: usize, theme: &Theme) -> String {
    let label = truncate_to_width(label, width);
    let left = (width - visible_width(&label)) / 2;
    let c = &theme.colors;
    format!(
        "{}{}{}\x1b[49m",
        " ".repeat(left),
        c.selected_bg.bg_code(),
        theme.fg(c.text, &label)
    )
}

/// The scrollbar's cell for each row of the view (pi's geometry: a thumb at least two rows
/// high, sized by the share of the content shown, placed by the scroll position).
fn scrollbar_cells(view: &Viewport, content: usize, theme: &Theme) -> Vec<String> {
    let track = view.height();
    let content = content.max(1);
    let thumb = ((track * track) as f64 / content as f64).round() as usize;
    let thumb = thumb.clamp(track.min(2), track);
    let max_top = content.saturating_sub(track);
    let offset = if max_top == 0 {
        0
    } else {
        ((view.top() as f64 / max_top as f64) * (track - thumb) as f64).round() as usize
    };
    let c = &theme.colors;
    (0..track)
        .map(|row| {
            if (offset..offset + thumb).contains(&row) {
                theme.fg(c.muted, "┃")
            } else {
                theme.fg(c.border_muted, "│")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::strip_ansi;

    fn doc(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("line {i}")).collect()
    }

    fn plain(rows: &[Cow<'_, str>]) -> Vec<String> {
        rows.iter()
            .map(|r| strip_ansi(r).trim_end().to_string())
            .collect()
    }

    fn options(scrollbar: Scrollbar) -> FullscreenOptions {
        FullscreenOptions {
            scrollbar,
            ..FullscreenOptions::default()
        }
    }

    #[test]
    fn the_view_shows_the_end_above_the_bottom_part_and_pages_up() {
        let theme = Theme::dark();
        let mut v = FullscreenView::new(20, 6, options(Scrollbar::Hidden));
        let (d, bottom) = (doc(10), vec!["editor".to_string(), "footer".to_string()]);
        let now = Instant::now();
        let rows = v.compose(&[&d], &bottom, "jump", &theme, now);
        assert_eq!(
            plain(&rows),
            ["line 7", "line 8", "line 9", "line 10", "editor", "footer"]
        );
        assert!(v.scroll(Scroll::Page(false), now));
        let rows = v.compose(&[&d], &bottom, "jump", &theme, now);
        assert_eq!(
            plain(&rows),
            [
                "line 6",
                "line 7",
                "line 8",
                "        jump",
                "editor",
                "footer"
            ]
        );
        let short = doc(2);
        v.scroll(Scroll::Bottom, now);
        let rows = v.compose(&[&short], &bottom, "jump", &theme, now);
        assert_eq!(
            plain(&rows),
            ["line 1", "line 2", "", "", "editor", "footer"]
        );
    }

    #[test]
    fn an_auto_scrollbar_shows_after_a_scroll_and_goes_after_a_second() {
        let theme = Theme::dark();
        let mut v = FullscreenView::new(10, 5, options(Scrollbar::Auto));
        let d = doc(20);
        let now = Instant::now();
        let rows = v.compose(&[&d], &[], "", &theme, now);
        assert!(!plain(&rows).concat().contains('┃'));
        v.wheel(false, false, now);
        let rows = v.compose(&[&d], &[], "", &theme, now);
        let shown = plain(&rows);
        assert!(
            shown.iter().all(|r| r.ends_with('┃') || r.ends_with('│')),
            "{shown:?}"
        );
        assert!(!v.redraw_due(now));
        let later = now + SCROLLBAR_LINGER;
        assert!(v.redraw_due(later));
        let rows = v.compose(&[&d], &[], "", &theme, later);
        assert!(!plain(&rows).concat().contains('┃'));
        assert!(!v.redraw_due(later));
    }

    #[test]
    fn an_always_scrollbar_takes_the_last_column() {
        let theme = Theme::dark();
        let mut v = FullscreenView::new(10, 4, options(Scrollbar::Always));
        assert_eq!(v.content_width(), 9);
        let d = doc(8);
        let rows = plain(&v.compose(&[&d], &[], "", &theme, Instant::now()));
        assert_eq!(
            rows,
            ["line 5   │", "line 6   │", "line 7   ┃", "line 8   ┃"]
        );
    }
}
