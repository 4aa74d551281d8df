//! The fullscreen transcript's scroll position (pi's ScrollView with `follow: "end"`): which
//! line is at the top of the view, and whether the view follows new output. Scrolling to the
//! end follows again; scrolling up stops following, so output that arrives meanwhile does not
//! move what the user is reading.

/// Lines a page scroll keeps from the previous page (pi's overlap).
const PAGE_OVERLAP: usize = 4;

/// Scroll state of a view `height` rows high over `content` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    top: usize,
    following: bool,
    content: usize,
    height: usize,
}

impl Default for Viewport {
    fn default() -> Self {
        Self {
            top: 0,
            following: true,
            content: 0,
            height: 1,
        }
    }
}

impl Viewport {
    /// The first line shown.
    pub fn top(&self) -> usize {
        self.top
    }

    /// Whether the view follows the end (new output scrolls it).
    pub fn is_following(&self) -> bool {
        self.following
    }

    /// The view's height in rows.
    pub fn height(&self) -> usize {
        self.height
    }

    /// Whether the content is longer than the view.
    pub fn overflows(&self) -> bool {
        self.content > self.height
    }

    fn max_top(&self) -> usize {
        self.content.saturating_sub(self.height)
    }

    /// New content length or view height (each frame): a following view stays at the end;
    /// otherwise the top is kept, clamped; reaching the end follows again.
    pub fn update(&mut self, content: usize, height: usize) {
        self.content = content;
        self.height = height.max(1);
        let max = self.max_top();
        if self.following {
            self.top = max;
        } else {
            self.top = self.top.min(max);
            self.following = self.top == max;
        }
    }

    /// Scrolls by `lines` (negative: up); true when the view moved.
    pub fn scroll_by(&mut self, lines: isize) -> bool {
        let max = self.max_top();
        let from = if self.following { max } else { self.top };
        let to = from.saturating_add_signed(lines).min(max);
        self.top = to;
        self.following = to == max;
        to != from
    }

    /// A page up or down (the view's height less pi's overlap of 4 lines).
    pub fn page(&mut self, down: bool) -> bool {
        let step = self.height.saturating_sub(PAGE_OVERLAP).max(1) as isize;
        self.scroll_by(if down { step } else { -step })
    }

    /// Half a page up or down.
    pub fn half_page(&mut self, down: bool) -> bool {
        let step = (self.height / 2).max(1) as isize;
        self.scroll_by(if down { step } else { -step })
    }

    /// The first line; follows only when everything fits.
    pub fn to_top(&mut self) -> bool {
        let moved = self.top != 0 || self.following;
        self.top = 0;
        self.following = !self.overflows();
        moved
    }

    /// The end, following new output again.
    pub fn to_bottom(&mut self) -> bool {
        let moved = !self.following;
        self.top = self.max_top();
        self.following = true;
        moved
    }

    /// Puts line `line` at the top (as far as the content allows).
    pub fn scroll_to(&mut self, line: usize) -> bool {
        let max = self.max_top();
        let to = line.min(max);
        let moved = to != self.top || self.following != (to == max);
        self.top = to;
        self.following = to == max;
        moved
    }

    /// The next of `marks` (line numbers, ascending) after the top, or the previous one
    /// before it, scrolled to the top (pi's prompt jumps); false when there is none.
    pub fn jump(&mut self, marks: &[usize], forward: bool) -> bool {
        let top = if self.following {
            self.max_top()
        } else {
            self.top
        };
        let target = if forward {
            marks.iter().copied().find(|&m| m > top)
        } else {
            marks.iter().rev().copied().find(|&m| m < top)
        };
        target.is_some_and(|line| self.scroll_to(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(content: usize, height: usize) -> Viewport {
        let mut v = Viewport::default();
        v.update(content, height);
        v
    }

    #[test]
    fn follows_the_end_until_scrolled_up_and_again_at_the_end() {
        let mut v = view(100, 20);
        assert_eq!((v.top(), v.is_following()), (80, true));
        v.update(110, 20);
        assert_eq!(v.top(), 90, "new output scrolls a following view");
        assert!(v.page(false));
        assert_eq!((v.top(), v.is_following()), (74, false));
        v.update(150, 20);
        assert_eq!(v.top(), 74, "a view scrolled up stays put");
        assert!(v.scroll_by(1000));
        assert_eq!((v.top(), v.is_following()), (130, true));
        assert!(!v.scroll_by(5), "already at the end");
    }

    #[test]
    fn top_bottom_half_pages_and_lines() {
        let mut v = view(100, 20);
        assert!(v.to_top());
        assert_eq!((v.top(), v.is_following()), (0, false));
        assert!(!v.scroll_by(-1));
        assert!(v.half_page(true));
        assert_eq!(v.top(), 10);
        assert!(v.scroll_by(1));
        assert_eq!(v.top(), 11);
        assert!(v.to_bottom());
        assert_eq!((v.top(), v.is_following()), (80, true));
        let mut short = view(5, 20);
        short.to_top();
        assert!(short.is_following(), "all of it fits");
        assert!(!short.page(false));
    }

    #[test]
    fn jumps_between_marks() {
        let mut v = view(100, 20);
        let marks = [3, 40, 70, 95];
        assert!(v.jump(&marks, false));
        assert_eq!(v.top(), 70);
        assert!(v.jump(&marks, false));
        assert_eq!(v.top(), 40);
        assert!(v.jump(&marks, true));
        assert_eq!(v.top(), 70);
        assert!(
            v.jump(&marks, true),
            "95 is past the end: the view goes to the end"
        );
        assert_eq!((v.top(), v.is_following()), (80, true));
        assert!(!v.jump(&marks, true));
    }
}
