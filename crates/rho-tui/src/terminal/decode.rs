//! What one sequence from the terminal means: a key (legacy bytes, xterm's modified keys, the
//! kitty keyboard protocol's `CSI … u`, xterm's `modifyOtherKeys` `CSI 27;m;k ~`), a mouse
//! report, or a reply to one of rho's queries (keyboard protocol flags, device attributes,
//! colours, the colour scheme). Keys become crossterm's [`KeyEvent`]s, which every widget
//! matches through the keymap; the encodings and their ambiguities follow pi's key parser
//! (e.g. with the kitty protocol on, `ESC CR` and LF are Shift+Enter as terminals map them).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};

use crate::theme::Rgb;

const ESC: u8 = 0x1b;

/// A mouse report (SGR encoding), 0-based cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MouseReport {
    /// The button code with the modifier and motion bits (xterm's `Cb`).
    pub code: u16,
    /// Column.
    pub column: u16,
    /// Row.
    pub row: u16,
    /// A button went up (`m`).
    pub release: bool,
}

impl MouseReport {
    /// A wheel notch: `Some(true)` down, `Some(false)` up.
    pub fn wheel(&self) -> Option<bool> {
        match self.code & !(4 | 8 | 16) {
            64 => Some(false),
            65 => Some(true),
            _ => None,
        }
    }

    /// Alt (Meta) was held.
    pub fn alt(&self) -> bool {
        self.code & 8 != 0
    }

    /// The left button pressed, dragged with or released.
    pub fn left(&self) -> Option<MouseAction> {
        let plain = self.code & !(4 | 8 | 16);
        match (plain, self.release) {
            (0, false) => Some(MouseAction::Press),
            (32, false) => Some(MouseAction::Drag),
            (0 | 3, true) => Some(MouseAction::Release),
            _ => None,
        }
    }
}

/// What the left mouse button did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MouseAction {
    /// Went down.
    Press,
    /// Moved while down.
    Drag,
    /// Went up.
    Release,
}

/// Which colour a colour reply reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorSlot {
    /// OSC 10: the default foreground.
    Foreground,
    /// OSC 11: the default background.
    Background,
    /// OSC 4: a palette entry.
    Palette(u8),
}

/// One sequence, understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// A key (press, repeat or release).
    Key(KeyEvent),
    /// A mouse report.
    Mouse(MouseReport),
    /// The kitty keyboard protocol flags in force (`CSI ? flags u`).
    KittyFlags(u16),
    /// Primary device attributes (`CSI ? … c`): the end of the replies to a query.
    DeviceAttributes,
    /// A colour reply; `None` when its value could not be read.
    Color(ColorSlot, Option<Rgb>),
    /// The terminal switched between light (`false`) and dark (`true`) (`CSI ? 997 ; n n`).
    DarkScheme(bool),
    /// Nothing rho uses.
    Unknown,
}

/// Reads one sequence; `kitty` says whether the kitty keyboard protocol is on.
pub fn decode(seq: &[u8], kitty: bool) -> Decoded {
    match seq {
        [] => Decoded::Unknown,
        [ESC] => key(KeyCode::Esc, KeyModifiers::NONE),
        [ESC, b'[', ..] => csi(&seq[2..]),
        [ESC, b']', ..] => osc(&seq[2..]),
        [ESC, b'O', c] => ss3(*c),
        [ESC, rest @ ..] => alt(rest, kitty),
        _ => single(seq, kitty),
    }
}

fn key(code: KeyCode, mods: KeyModifiers) -> Decoded {
    Decoded::Key(KeyEvent::new(code, mods))
}

/// One byte or character, as legacy terminals send keys.
fn single(seq: &[u8], kitty: bool) -> Decoded {
    let none = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    match seq {
        b"\r" => key(KeyCode::Enter, none),
        // LF is Ctrl+J; kitty users map Shift+Enter to it (pi reads it so when kitty is on).
        b"\n" if kitty => key(KeyCode::Enter, KeyModifiers::SHIFT),
        b"\t" => key(KeyCode::Tab, none),
        [0x7f] => key(KeyCode::Backspace, none),
        [0] => key(KeyCode::Char(' '), ctrl),
        [c @ 1..=26] => key(KeyCode::Char((b'a' + c - 1) as char), ctrl),
        [0x1c] => key(KeyCode::Char('\\'), ctrl),
        [0x1d] => key(KeyCode::Char(']'), ctrl),
        [0x1e] => key(KeyCode::Char('^'), ctrl),
        [0x1f] => key(KeyCode::Char('-'), ctrl),
        _ => match std::str::from_utf8(seq).ok().and_then(|s| s.chars().next()) {
            Some(c) if !c.is_control() => {
                let mods = if c.is_uppercase() {
                    KeyModifiers::SHIFT
                } else {
                    none
                };
                key(KeyCode::Char(c), mods)
            }
            _ => Decoded::Unknown,
        },
    }
}

/// `ESC` then a key: that key with Alt (legacy terminals). With the kitty protocol on, `ESC CR`
/// is a mapped Shift+Enter.
fn alt(rest: &[u8], kitty: bool) -> Decoded {
    match rest {
        b"\r" if kitty => key(KeyCode::Enter, KeyModifiers::SHIFT),
        [ESC] => key(KeyCode::Esc, KeyModifiers::ALT),
        [0x08] => key(KeyCode::Backspace, KeyModifiers::ALT),
        _ => match single(rest, false) {
            Decoded::Key(mut k) => {
                k.modifiers |= KeyModifiers::ALT;
                Decoded::Key(k)
            }
            other => other,
        },
    }
}

/// `ESC O x`: application-mode arrows, Home/End, F1-F4, keypad Enter; rxvt's Ctrl+arrows.
fn ss3(c: u8) -> Decoded {
    let ctrl = KeyModifiers::CONTROL;
    let none = KeyModifiers::NONE;
    match c {
        b'A'..=b'D' | b'H' | b'F' | b'E' => key(final_key(c).unwrap_or(KeyCode::Null), none),
        b'P'..=b'S' => key(KeyCode::F(c - b'P' + 1), none),
        b'M' => key(KeyCode::Enter, none),
        b'a' => key(KeyCode::Up, ctrl),
        b'b' => key(KeyCode::Down, ctrl),
        b'c' => key(KeyCode::Right, ctrl),
        b'd' => key(KeyCode::Left, ctrl),
        b'e' => key(KeyCode::KeypadBegin, ctrl),
        _ => Decoded::Unknown,
    }
}

/// The key a CSI/SS3 final byte names (arrows, Home, End, Clear).
fn final_key(c: u8) -> Option<KeyCode> {
    Some(match c {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'E' => KeyCode::KeypadBegin,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        b'S' => KeyCode::F(4),
        _ => return None,
    })
}

/// The parameters of a CSI sequence: groups split by `;`, each with `:` sub-parameters
/// (empty ones are `None`).
fn params(body: &[u8]) -> Vec<Vec<Option<u32>>> {
    body.split(|b| *b == b';')
        .map(|group| {
            group
                .split(|b| *b == b':')
                .map(|n| std::str::from_utf8(n).ok().and_then(|n| n.parse().ok()))
                .collect()
        })
        .collect()
}

/// A parameter, or `default` when absent.
fn param(params: &[Vec<Option<u32>>], group: usize, sub: usize, default: u32) -> u32 {
    params
        .get(group)
        .and_then(|g| g.get(sub))
        .copied()
        .flatten()
        .unwrap_or(default)
}

/// xterm's modifier parameter (1 + bits: Shift 1, Alt 2, Ctrl 4, Super 8, Hyper 16, Meta 32;
/// Caps Lock 64 and Num Lock 128 are ignored).
fn modifiers(param: u32) -> KeyModifiers {
    let bits = param.saturating_sub(1);
    let mut mods = KeyModifiers::NONE;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
        (16, KeyModifiers::HYPER),
        (32, KeyModifiers::META),
    ] {
        if bits & bit != 0 {
            mods |= flag;
        }
    }
    mods
}

/// The kitty protocol's event type sub-parameter: 2 repeat, 3 release.
fn kind(event: u32) -> KeyEventKind {
    match event {
        2 => KeyEventKind::Repeat,
        3 => KeyEventKind::Release,
        _ => KeyEventKind::Press,
    }
}

fn event(code: KeyCode, mods: KeyModifiers, kind: KeyEventKind) -> Decoded {
    Decoded::Key(KeyEvent::new_with_kind_and_state(
        code,
        mods,
        kind,
        KeyEventState::NONE,
    ))
}

/// `ESC [ …`.
fn csi(body: &[u8]) -> Decoded {
    let Some((&last, inner)) = body.split_last() else {
        return Decoded::Unknown;
    };
    if let Some(private) = inner.strip_prefix(b"?") {
        return match last {
            b'u' => Decoded::KittyFlags(param(&params(private), 0, 0, 0) as u16),
            b'c' => Decoded::DeviceAttributes,
            b'n' if private.starts_with(b"997;") => {
                Decoded::DarkScheme(param(&params(private), 1, 0, 1) == 1)
            }
            _ => Decoded::Unknown,
        };
    }
    if let Some(sgr) = inner.strip_prefix(b"<") {
        return mouse(sgr, last);
    }
    if body.first() == Some(&b'[') {
        // The Linux console's F1-F5: ESC [ [ A … E.
        return match body {
            [b'[', c @ b'A'..=b'E'] => key(KeyCode::F(c - b'A' + 1), KeyModifiers::NONE),
            _ => Decoded::Unknown,
        };
    }
    let p = params(inner);
    match last {
        b'u' => kitty_key(&p),
        b'~' => tilde_key(&p),
        b'Z' => key(KeyCode::BackTab, KeyModifiers::SHIFT),
        // rxvt's Shift+arrows.
        b'a'..=b'e' => key(
            final_key(last - 32).unwrap_or(KeyCode::Null),
            KeyModifiers::SHIFT,
        ),
        // rxvt's Shift (`$`) and Ctrl (`^`) with Insert, Delete, PageUp/Down, Home, End.
        b'$' | b'^' => {
            let mods = if last == b'$' {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::CONTROL
            };
            match tilde_code(param(&p, 0, 0, 0)) {
                Some(code) => key(code, mods),
                None => Decoded::Unknown,
            }
        }
        c => match final_key(c) {
            Some(code) => event(
                code,
                modifiers(param(&p, 1, 0, 1)),
                kind(param(&p, 1, 1, 1)),
            ),
            None => Decoded::Unknown,
        },
    }
}

/// The keys of `CSI n ~`.
fn tilde_code(n: u32) -> Option<KeyCode> {
    Some(match n {
        1 | 7 => KeyCode::Home,
        2 => KeyCode::Insert,
        3 => KeyCode::Delete,
        4 | 8 => KeyCode::End,
        5 => KeyCode::PageUp,
        6 => KeyCode::PageDown,
        11..=15 => KeyCode::F((n - 10) as u8),
        17..=21 => KeyCode::F((n - 11) as u8),
        23 | 24 => KeyCode::F((n - 12) as u8),
        _ => return None,
    })
}

/// `CSI n [; m[:e]] ~`, and xterm's `modifyOtherKeys` form `CSI 27 ; m ; k ~`.
fn tilde_key(p: &[Vec<Option<u32>>]) -> Decoded {
    let n = param(p, 0, 0, 0);
    if n == 27 && p.len() == 3 {
        let mods = modifiers(param(p, 1, 0, 1));
        return match codepoint_key(param(p, 2, 0, 0), None, mods) {
            Some((code, mods)) => key(code, mods),
            None => Decoded::Unknown,
        };
    }
    match tilde_code(n) {
        Some(code) => event(code, modifiers(param(p, 1, 0, 1)), kind(param(p, 1, 1, 1))),
        None => Decoded::Unknown,
    }
}

/// The kitty protocol's `CSI code[:shifted[:base]] [; mods[:event]] u`.
fn kitty_key(p: &[Vec<Option<u32>>]) -> Decoded {
    let code = param(p, 0, 0, 0);
    let shifted = p.first().and_then(|g| g.get(1).copied().flatten());
    let mods = modifiers(param(p, 1, 0, 1));
    match codepoint_key(code, shifted, mods) {
        Some((code, mods)) => event(code, mods, kind(param(p, 1, 1, 1))),
        None => Decoded::Unknown,
    }
}

/// The key a Unicode code point (or a kitty functional key number) names, with Shift applied
/// to what it types: Shift+a is `A` (with Shift, as crossterm reports capitals).
fn codepoint_key(
    cp: u32,
    shifted: Option<u32>,
    mods: KeyModifiers,
) -> Option<(KeyCode, KeyModifiers)> {
    let code = match cp {
        27 => KeyCode::Esc,
        13 | 57414 => KeyCode::Enter,
        9 if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
        9 => KeyCode::Tab,
        8 | 127 => KeyCode::Backspace,
        57399..=57408 => KeyCode::Char(char::from_digit(cp - 57399, 10)?),
        57409..=57413 | 57415 | 57416 => {
            KeyCode::Char(b"./*-+?=,".get((cp - 57409) as usize).map(|b| *b as char)?)
        }
        57417 => KeyCode::Left,
        57418 => KeyCode::Right,
        57419 => KeyCode::Up,
        57420 => KeyCode::Down,
        57421 => KeyCode::PageUp,
        57422 => KeyCode::PageDown,
        57423 => KeyCode::Home,
        57424 => KeyCode::End,
        57425 => KeyCode::Insert,
        57426 => KeyCode::Delete,
        // Other functional keys (F13-F35, media, a modifier alone) type nothing.
        57344..=63743 => return None,
        _ if cp < 32 => return None,
        _ => {
            let c = char::from_u32(cp)?;
            let c = match (mods.contains(KeyModifiers::SHIFT), shifted) {
                (true, Some(s)) => char::from_u32(s).unwrap_or(c),
                (true, None) => c.to_uppercase().next().unwrap_or(c),
                (false, _) => c,
            };
            KeyCode::Char(c)
        }
    };
    Some((code, mods))
}

/// `CSI < b ; x ; y M|m`.
fn mouse(body: &[u8], last: u8) -> Decoded {
    if last != b'M' && last != b'm' {
        return Decoded::Unknown;
    }
    let p = params(body);
    if p.len() != 3 {
        return Decoded::Unknown;
    }
    Decoded::Mouse(MouseReport {
        code: param(&p, 0, 0, 0) as u16,
        column: param(&p, 1, 0, 1).saturating_sub(1) as u16,
        row: param(&p, 2, 0, 1).saturating_sub(1) as u16,
        release: last == b'm',
    })
}

/// `ESC ] …`: colour replies (OSC 10, 11, 4).
fn osc(body: &[u8]) -> Decoded {
    let body = body
        .strip_suffix(b"\x07")
        .or_else(|| body.strip_suffix(b"\x1b\\"))
        .unwrap_or(body);
    let Ok(text) = std::str::from_utf8(body) else {
        return Decoded::Unknown;
    };
    let mut parts = text.splitn(3, ';');
    let slot = match parts.next() {
        Some("10") => ColorSlot::Foreground,
        Some("11") => ColorSlot::Background,
        Some("4") => match parts.next().and_then(|n| n.parse().ok()) {
            Some(n) => ColorSlot::Palette(n),
            None => return Decoded::Unknown,
        },
        _ => return Decoded::Unknown,
    };
    let value = parts.collect::<Vec<_>>().join(";");
    Decoded::Color(slot, parse_color(&value))
}

/// A colour as terminals report it: `rgb:RRRR/GGGG/BBBB` (1-4 hex digits a channel), `rgba:`,
/// `#RRGGBB` or `#RRRRGGGGBBBB`.
fn parse_color(value: &str) -> Option<Rgb> {
    let value = value.trim();
    let channel = |hex: &str| -> Option<u8> {
        if hex.is_empty() || hex.len() > 4 {
            return None;
        }
        let n = u32::from_str_radix(hex, 16).ok()?;
        let max = 16u32.pow(hex.len() as u32) - 1;
        Some(((n as f64 / max as f64) * 255.0).round() as u8)
    };
    if let Some(hex) = value.strip_prefix('#') {
        let width = match hex.len() {
            6 => 2,
            12 => 4,
            _ => return None,
        };
        let c = |i: usize| hex.get(i * width..(i + 1) * width).and_then(channel);
        return Some(Rgb(c(0)?, c(1)?, c(2)?));
    }
    let lower = value.to_ascii_lowercase();
    let rgb = lower
        .strip_prefix("rgba:")
        .or_else(|| lower.strip_prefix("rgb:"))
        .unwrap_or(&lower);
    let mut it = rgb.split('/');
    Some(Rgb(
        channel(it.next()?)?,
        channel(it.next()?)?,
        channel(it.next()?)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: KeyModifiers = KeyModifiers::NONE;
    const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const ALT: KeyModifiers = KeyModifiers::ALT;

    fn k(seq: &[u8]) -> (KeyCode, KeyModifiers) {
        match decode(seq, false) {
            Decoded::Key(k) => (k.code, k.modifiers),
            other => panic!("{seq:?} decoded as {other:?}"),
        }
    }

    #[test]
    fn legacy_bytes() {
        assert_eq!(k(b"a"), (KeyCode::Char('a'), NONE));
        assert_eq!(k(b"A"), (KeyCode::Char('A'), SHIFT));
        assert_eq!(k("é".as_bytes()), (KeyCode::Char('é'), NONE));
        assert_eq!(k(b"\r"), (KeyCode::Enter, NONE));
        assert_eq!(k(b"\n"), (KeyCode::Char('j'), CTRL));
        assert_eq!(k(b"\x07"), (KeyCode::Char('g'), CTRL));
        assert_eq!(k(b"\x1a"), (KeyCode::Char('z'), CTRL));
        assert_eq!(k(b"\x1d"), (KeyCode::Char(']'), CTRL));
        assert_eq!(k(b"\x1f"), (KeyCode::Char('-'), CTRL));
        assert_eq!(k(b"\x7f"), (KeyCode::Backspace, NONE));
        assert_eq!(k(b"\x1b"), (KeyCode::Esc, NONE));
        assert_eq!(k(b"\x1b\r"), (KeyCode::Enter, ALT));
        assert_eq!(k(b"\x1bb"), (KeyCode::Char('b'), ALT));
        assert_eq!(k(b"\x1b\x7f"), (KeyCode::Backspace, ALT));
        assert_eq!(k(b"\x1b\x1d"), (KeyCode::Char(']'), CTRL | ALT));
    }

    #[test]
    fn kitty_maps_lf_and_esc_cr_to_shift_enter() {
        for seq in [b"\n".as_slice(), b"\x1b\r"] {
            match decode(seq, true) {
                Decoded::Key(k) => assert_eq!((k.code, k.modifiers), (KeyCode::Enter, SHIFT)),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn cursor_and_function_keys() {
        assert_eq!(k(b"\x1b[A"), (KeyCode::Up, NONE));
        assert_eq!(k(b"\x1bOD"), (KeyCode::Left, NONE));
        assert_eq!(k(b"\x1b[1;5C"), (KeyCode::Right, CTRL));
        assert_eq!(k(b"\x1b[1;6A"), (KeyCode::Up, CTRL | SHIFT));
        assert_eq!(k(b"\x1b[1;3D"), (KeyCode::Left, ALT));
        assert_eq!(k(b"\x1b[3~"), (KeyCode::Delete, NONE));
        assert_eq!(k(b"\x1b[5;5~"), (KeyCode::PageUp, CTRL));
        assert_eq!(k(b"\x1b[1;5H"), (KeyCode::Home, CTRL));
        assert_eq!(k(b"\x1b[15~"), (KeyCode::F(5), NONE));
        assert_eq!(k(b"\x1bOP"), (KeyCode::F(1), NONE));
        assert_eq!(k(b"\x1b[Z"), (KeyCode::BackTab, SHIFT));
        assert_eq!(k(b"\x1b[a"), (KeyCode::Up, SHIFT));
        assert_eq!(k(b"\x1bOa"), (KeyCode::Up, CTRL));
        assert_eq!(k(b"\x1b[8^"), (KeyCode::End, CTRL));
    }

    #[test]
    fn kitty_keys() {
        assert_eq!(k(b"\x1b[13;2u"), (KeyCode::Enter, SHIFT));
        assert_eq!(k(b"\x1b[13;3u"), (KeyCode::Enter, ALT));
        assert_eq!(k(b"\x1b[13;5u"), (KeyCode::Enter, CTRL));
        assert_eq!(k(b"\x1b[27u"), (KeyCode::Esc, NONE));
        assert_eq!(k(b"\x1b[99;5u"), (KeyCode::Char('c'), CTRL));
        assert_eq!(k(b"\x1b[112;6u"), (KeyCode::Char('P'), CTRL | SHIFT));
        assert_eq!(k(b"\x1b[61:43;2u"), (KeyCode::Char('+'), SHIFT));
        assert_eq!(k(b"\x1b[9;2u"), (KeyCode::BackTab, SHIFT));
        assert_eq!(k(b"\x1b[57414u"), (KeyCode::Enter, NONE));
        assert_eq!(k(b"\x1b[57399u"), (KeyCode::Char('0'), NONE));
        assert_eq!(k(b"\x1b[1;5:1A"), (KeyCode::Up, CTRL));
        assert_eq!(decode(b"\x1b[57441;2u", false), Decoded::Unknown);
        match decode(b"\x1b[97;1:3u", false) {
            Decoded::Key(k) => assert_eq!(k.kind, KeyEventKind::Release),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn modify_other_keys() {
        assert_eq!(k(b"\x1b[27;2;13~"), (KeyCode::Enter, SHIFT));
        assert_eq!(k(b"\x1b[27;5;13~"), (KeyCode::Enter, CTRL));
        assert_eq!(k(b"\x1b[27;5;103~"), (KeyCode::Char('g'), CTRL));
        assert_eq!(k(b"\x1b[27;2;65~"), (KeyCode::Char('A'), SHIFT));
        assert_eq!(k(b"\x1b[27;6;80~"), (KeyCode::Char('P'), CTRL | SHIFT));
    }

    #[test]
    fn replies_to_queries() {
        assert_eq!(decode(b"\x1b[?7u", false), Decoded::KittyFlags(7));
        assert_eq!(decode(b"\x1b[?62;22c", false), Decoded::DeviceAttributes);
        assert_eq!(decode(b"\x1b[?997;2n", false), Decoded::DarkScheme(false));
        assert_eq!(
            decode(b"\x1b]11;rgb:1e1e/2020/ffff\x1b\\", false),
            Decoded::Color(ColorSlot::Background, Some(Rgb(30, 32, 255)))
        );
        assert_eq!(
            decode(b"\x1b]10;#ffffff\x07", false),
            Decoded::Color(ColorSlot::Foreground, Some(Rgb(255, 255, 255)))
        );
        assert_eq!(
            decode(b"\x1b]4;3;rgb:cd/cd/00\x07", false),
            Decoded::Color(ColorSlot::Palette(3), Some(Rgb(205, 205, 0)))
        );
        assert_eq!(
            decode(b"\x1b]11;?\x07", false),
            Decoded::Color(ColorSlot::Background, None)
        );
    }

    #[test]
    fn mouse_reports() {
        let Decoded::Mouse(m) = decode(b"\x1b[<65;10;5M", false) else {
            panic!("not a mouse report");
        };
        assert_eq!((m.wheel(), m.column, m.row), (Some(true), 9, 4));
        let Decoded::Mouse(m) = decode(b"\x1b[<72;1;1M", false) else {
            panic!("not a mouse report");
        };
        assert_eq!((m.wheel(), m.alt()), (Some(false), true));
        let Decoded::Mouse(m) = decode(b"\x1b[<32;3;4M", false) else {
            panic!("not a mouse report");
        };
        assert_eq!(m.left(), Some(MouseAction::Drag));
        let Decoded::Mouse(m) = decode(b"\x1b[<0;3;4m", false) else {
            panic!("not a mouse report");
        };
        assert_eq!(m.left(), Some(MouseAction::Release));
    }
}
