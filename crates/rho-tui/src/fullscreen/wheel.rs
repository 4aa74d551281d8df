//! Lines per mouse-wheel notch, as pi's `fullscreenWheelScrollLines` says: a fixed number, or
//! `auto`: one line for an isolated notch and more for a fast spin (notches 100 ms apart move
//! one line, 50 ms apart two, 20 ms apart five, at most six). Local macOS terminals already
//! accelerate the wheel, so there `auto` is always one line (pi's rule).

use std::time::{Duration, Instant};

use super::options::WheelLines;

/// Notches closer than this are one physical notch reported in parts: one line each.
const BURST_GAP: Duration = Duration::from_millis(5);
/// A pause longer than this ends a gesture.
const GESTURE_GAP: Duration = Duration::from_millis(200);
/// The gap that means one line per notch; faster notches scale up.
const REFERENCE_GAP_MS: f64 = 100.0;
/// The most `auto` moves per notch.
const MAX_AUTO_LINES: f64 = 6.0;

/// Turns wheel notches into line counts.
#[derive(Debug, Clone)]
pub struct WheelScroll {
    lines: WheelLines,
    accelerate: bool,
    last: Option<(Instant, bool)>,
    average_gap_ms: Option<f64>,
    carry: f64,
}

impl WheelScroll {
    /// A converter for `lines`; `accelerate` is false where the terminal accelerates already.
    pub fn new(lines: WheelLines, accelerate: bool) -> Self {
        Self {
            lines,
            accelerate,
            last: None,
            average_gap_ms: None,
            carry: 0.0,
        }
    }

    /// Whether this platform wants `auto` to accelerate: not on a local macOS terminal.
    pub fn platform_accelerates() -> bool {
        let remote = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some());
        !cfg!(target_os = "macos") || remote
    }

    /// The lines a notch in direction `down` at `now` moves (at least one).
    pub fn next(&mut self, down: bool, now: Instant) -> usize {
        match self.lines {
            WheelLines::Fixed(n) => return usize::from(n.max(1)),
            WheelLines::Auto if !self.accelerate => return 1,
            WheelLines::Auto => {}
        }
        let previous = self.last.replace((now, down));
        let gap = previous
            .filter(|(_, dir)| *dir == down)
            .map(|(at, _)| now.saturating_duration_since(at))
            .filter(|gap| *gap <= GESTURE_GAP);
        let Some(gap) = gap else {
            self.average_gap_ms = None;
            self.carry = 0.0;
            return 1;
        };
        if gap < BURST_GAP {
            return 1;
        }
        let gap_ms = gap.as_secs_f64() * 1000.0;
        let average = self
            .average_gap_ms
            .map_or(gap_ms, |avg| (avg + gap_ms) / 2.0);
        self.average_gap_ms = Some(average);
        let lines = (REFERENCE_GAP_MS / average).clamp(1.0, MAX_AUTO_LINES) + self.carry;
        let whole = lines.floor();
        self.carry = lines - whole;
        whole as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_speeds_up_fast_spins_and_resets_between_gestures() {
        let mut w = WheelScroll::new(WheelLines::Auto, true);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(w.next(true, at(0)), 1, "an isolated notch");
        assert_eq!(w.next(true, at(100)), 1);
        assert_eq!(
            w.next(true, at(120)),
            1,
            "average gap 60 ms: 1.67 lines, carried"
        );
        assert_eq!(w.next(true, at(140)), 3, "average 40 ms: 2.5 + 0.67");
        assert_eq!(w.next(true, at(142)), 1, "a burst");
        assert_eq!(
            w.next(false, at(150)),
            1,
            "a new direction is a new gesture"
        );
        assert_eq!(w.next(false, at(500)), 1, "a pause ends the gesture");
    }

    #[test]
    fn fixed_counts_and_no_acceleration() {
        let now = Instant::now();
        assert_eq!(
            WheelScroll::new(WheelLines::Fixed(3), true).next(true, now),
            3
        );
        let mut plain = WheelScroll::new(WheelLines::Auto, false);
        assert_eq!(plain.next(true, now), 1);
        assert_eq!(plain.next(true, now + Duration::from_millis(20)), 1);
    }
}
