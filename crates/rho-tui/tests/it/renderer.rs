//! The differential renderer, checked two ways: the exact bytes it writes for small changes
//! (only changed lines are rewritten), and a tiny terminal emulator that replays those bytes to
//! prove the screen ends up showing each frame, with the scrollback kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_tui::renderer::{CLEAR_ALL, HIDE_CURSOR, SHOW_CURSOR, SYNC_END, SYNC_START};
use rho_tui::Renderer;

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn frame(r: &mut Renderer, v: &[&str]) -> (String, rho_tui::RenderStats) {
    let l = lines(v);
    let mut out = Vec::new();
    let stats = r.render(&[&l], &mut out).expect("write to a Vec");
    (String::from_utf8(out).expect("utf-8"), stats)
}

fn sync(body: &str) -> String {
    format!("{SYNC_START}{body}{SYNC_END}")
}

#[test]
fn first_frame_is_written_whole_from_the_cursor() {
    let mut r = Renderer::new(20, 10);
    let (bytes, stats) = frame(&mut r, &["a", "b", "c"]);
    assert_eq!(bytes, sync(&format!("{HIDE_CURSOR}a\r\nb\r\nc")));
    assert_eq!(stats.lines_written, 3);
    assert!(!bytes.contains("\x1b[?1049h"), "never the alternate screen");
}

#[test]
fn an_unchanged_frame_writes_nothing() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b"]);
    let (bytes, stats) = frame(&mut r, &["a", "b"]);
    assert_eq!(bytes, "");
    assert_eq!(stats.lines_written, 0);
}

#[test]
fn only_the_changed_line_is_rewritten() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b", "c", "d"]);
    let (bytes, stats) = frame(&mut r, &["a", "B", "c", "d"]);
    assert_eq!(bytes, sync("\x1b[2A\r\x1b[2KB\x1b[2B"));
    assert_eq!(stats.lines_written, 1);
    let (bytes, _) = frame(&mut r, &["a", "B", "c", "D"]);
    assert_eq!(bytes, sync("\r\x1b[2KD"));
}

#[test]
fn unchanged_lines_between_changes_are_skipped() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b", "c", "d", "e"]);
    let (bytes, stats) = frame(&mut r, &["a", "B", "c", "d", "E"]);
    assert_eq!(bytes, sync("\x1b[3A\r\x1b[2KB\x1b[3B\r\x1b[2KE"));
    assert_eq!(stats.lines_written, 2);
}

#[test]
fn appended_lines_scroll_with_newlines() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b"]);
    let (bytes, stats) = frame(&mut r, &["a", "b", "c", "d"]);
    assert_eq!(bytes, sync("\r\n\r\x1b[2Kc\r\n\r\x1b[2Kd"));
    assert_eq!(stats.lines_written, 2);
}

#[test]
fn a_shorter_frame_clears_below_itself() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b", "c", "d"]);
    let (bytes, stats) = frame(&mut r, &["a", "X"]);
    assert_eq!(bytes, sync("\x1b[2A\r\x1b[2KX\x1b[1B\r\x1b[J\x1b[1A"));
    assert_eq!(stats.lines_written, 1);
}

#[test]
fn a_change_in_the_scrollback_or_a_resize_redraws_everything() {
    let mut r = Renderer::new(20, 3);
    frame(&mut r, &["1", "2", "3", "4", "5"]);
    let (bytes, stats) = frame(&mut r, &["x", "2", "3", "4", "5"]);
    assert!(stats.full_redraw);
    assert_eq!(bytes, sync(&format!("{CLEAR_ALL}x\r\n2\r\n3\r\n4\r\n5")));
    let (_, stats) = frame(&mut r, &["x", "2", "3", "4", "6"]);
    assert!(!stats.full_redraw, "the bottom row is visible");
    r.resize(30, 3);
    let (bytes, stats) = frame(&mut r, &["x", "2", "3", "4", "6"]);
    assert!(stats.full_redraw);
    assert!(bytes.starts_with(&format!("{SYNC_START}{CLEAR_ALL}")));
}

#[test]
fn lines_wider_than_the_terminal_are_cut_not_wrapped() {
    let mut r = Renderer::new(5, 10);
    let (bytes, _) = frame(&mut r, &["abcdefgh", "日本語です"]);
    assert_eq!(bytes, sync(&format!("{HIDE_CURSOR}abcde\r\n日本")));
}

#[test]
fn segments_form_one_frame() {
    let mut r = Renderer::new(20, 10);
    let (a, b) = (lines(&["t1", "t2"]), lines(&["editor"]));
    let mut out = Vec::new();
    r.render(&[&a, &b], &mut out).expect("write");
    let b2 = lines(&["edited"]);
    let mut out = Vec::new();
    r.render(&[&a, &b2], &mut out).expect("write");
    assert_eq!(
        String::from_utf8(out).expect("utf-8"),
        sync("\r\x1b[2Kedited")
    );
}

/// Just enough of a terminal to replay the renderer's output: text, CR, LF (scrolling at the
/// bottom), cursor up/down (stopping at the screen's edges), erase line, erase below, clear all.
struct Vt {
    height: usize,
    /// Scrollback followed by the screen.
    buf: Vec<String>,
    row: usize,
}

impl Vt {
    fn new(height: usize, history: &[&str]) -> Self {
        let mut buf = lines(history);
        buf.push(String::new());
        Vt {
            height,
            row: buf.len() - 1,
            buf,
        }
    }

    fn top(&self) -> usize {
        self.buf.len().saturating_sub(self.height)
    }

    fn feed(&mut self, bytes: &str) {
        let mut rest = bytes;
        while let Some(c) = rest.chars().next() {
            if c == '\x1b' {
                let end = rest[2..]
                    .find(|x: char| x.is_ascii_alphabetic())
                    .expect("final byte")
                    + 3;
                self.csi(&rest[2..end]);
                rest = &rest[end..];
                continue;
            }
            match c {
                '\r' => {}
                '\n' => {
                    self.row += 1;
                    if self.row == self.buf.len() {
                        self.buf.push(String::new());
                    }
                }
                _ => self.buf[self.row].push(c),
            }
            rest = &rest[c.len_utf8()..];
        }
    }

    fn csi(&mut self, seq: &str) {
        let (arg, op) = seq.split_at(seq.len() - 1);
        let n: usize = arg.parse().unwrap_or(1);
        match (arg, op) {
            (_, "A") => self.row = self.row.saturating_sub(n).max(self.top()),
            (_, "B") => self.row = (self.row + n).min(self.buf.len() - 1),
            ("2", "K") => self.buf[self.row].clear(),
            ("", "J") => {
                self.buf[self.row].clear();
                for l in &mut self.buf[self.row + 1..] {
                    l.clear();
                }
            }
            ("3", "J") | ("2", "J") => {
                self.buf = vec![String::new()];
                self.row = 0;
            }
            ("", "H") | (_, "m") | (_, "h") | (_, "l") => {}
            other => panic!("unexpected CSI {other:?}"),
        }
    }

    /// Everything on the terminal, trailing blank rows removed.
    fn content(&self) -> Vec<String> {
        let mut v = self.buf.clone();
        while v.last().is_some_and(|l| l.is_empty()) && v.len() > self.row + 1 {
            v.pop();
        }
        v
    }
}

#[test]
fn replayed_output_always_shows_the_frame_and_keeps_history() {
    let height = 6;
    let mut vt = Vt::new(height, &["$ rho"]);
    let mut r = Renderer::new(40, height);
    let mut transcript: Vec<String> = Vec::new();
    let mut full_redraws = 0;
    for step in 0..60 {
        match step % 7 {
            0 | 3 => transcript.push(format!("line {step}")),
            1 => {
                if let Some(l) = transcript.last_mut() {
                    l.push_str(" more");
                }
            }
            5 => transcript.extend([format!("a{step}"), format!("b{step}"), format!("c{step}")]),
            6 if transcript.len() > 4 => {
                transcript.pop();
            }
            _ => {}
        }
        let editor = lines(&["───", &format!("typing {}", step % 3), "───"]);
        let mut out = Vec::new();
        let stats = r.render(&[&transcript, &editor], &mut out).expect("write");
        full_redraws += usize::from(stats.full_redraw);
        let bytes = String::from_utf8(out).expect("utf-8");
        assert!(
            bytes.is_empty() || (bytes.starts_with(SYNC_START) && bytes.ends_with(SYNC_END)),
            "every frame is one synchronized update"
        );
        vt.feed(&bytes);
        let frame: Vec<String> = transcript.iter().chain(&editor).cloned().collect();
        let content = vt.content();
        assert_eq!(
            &content[content.len() - frame.len()..],
            &frame[..],
            "step {step}"
        );
        assert_eq!(
            vt.row,
            content.len() - 1,
            "cursor on the frame's last line (step {step})"
        );
        if full_redraws == 0 {
            assert_eq!(content[0], "$ rho", "history above the frame is kept");
            assert_eq!(content.len(), frame.len() + 1, "step {step}");
        }
    }
    assert_eq!(
        full_redraws, 0,
        "bottom-only changes never need a full redraw"
    );
}

#[test]
fn stop_shows_the_cursor_below_the_last_frame() {
    let mut r = Renderer::new(20, 10);
    frame(&mut r, &["a", "b"]);
    let mut out = Vec::new();
    r.stop(&mut out).expect("write");
    assert_eq!(
        String::from_utf8(out).expect("utf-8"),
        format!("\r\n{SHOW_CURSOR}")
    );
    let (bytes, _) = frame(&mut r, &["c"]);
    assert_eq!(
        bytes,
        sync(&format!("{HIDE_CURSOR}c")),
        "a new frame starts where we left"
    );
}

#[test]
fn after_shrinking_rows_that_scrolled_away_are_not_patched_blindly() {
    let height = 6;
    let mut vt = Vt::new(height, &[]);
    let mut r = Renderer::new(20, height);
    let tall: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    let mut out = Vec::new();
    r.render(&[&tall], &mut out).expect("write");
    let short: Vec<String> = tall[..7].to_vec();
    r.render(&[&short], &mut out).expect("write");
    let mut changed = short.clone();
    changed[2] = "X".into();
    let stats = r.render(&[&changed], &mut out).expect("write");
    vt.feed(&String::from_utf8(out).expect("utf-8"));
    assert!(
        stats.full_redraw,
        "row 2 is in the scrollback since the frame was 10 rows tall"
    );
    let content = vt.content();
    assert_eq!(&content[content.len() - 7..], &changed[..]);
}

#[test]
fn random_edits_always_leave_the_frame_on_screen() {
    for (seed, height) in [(0x2545_f491_4f6c_dd1d, 8), (7, 3), (99, 20), (12345, 1)] {
        random_run(seed, height);
    }
}

/// Random appends, edits, inserts and truncations, replayed on the emulator after each frame.
fn random_run(start_seed: u64, height: usize) {
    let mut seed = start_seed;
    let mut vt = Vt::new(height, &["$ history"]);
    let mut r = Renderer::new(30, height);
    let mut frame: Vec<String> = Vec::new();
    let mut rand = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for step in 0..2000 {
        let len = frame.len();
        match rand(6) {
            0 | 1 => frame.push(format!("new {step}")),
            2 if len > 0 => frame[rand(len)] = format!("edit {step}"),
            3 if len > 0 => {
                let keep = len - rand(len.min(4) + 1);
                frame.truncate(keep);
            }
            4 => frame.insert(rand(len + 1), format!("ins {step}")),
            _ if len > 0 => frame[len - 1] = format!("tail {step}"),
            _ => {}
        }
        let mut out = Vec::new();
        r.render(&[&frame], &mut out).expect("write");
        vt.feed(&String::from_utf8(out).expect("utf-8"));
        let content = vt.content();
        assert!(
            content.len() >= frame.len(),
            "step {step} (seed {start_seed}, height {height})"
        );
        assert_eq!(
            &content[content.len() - frame.len()..],
            &frame[..],
            "step {step} (seed {start_seed}, height {height})"
        );
        if !frame.is_empty() {
            assert_eq!(
                vt.row,
                content.len() - 1,
                "step {step} (seed {start_seed}, height {height})"
            );
        }
    }
}
