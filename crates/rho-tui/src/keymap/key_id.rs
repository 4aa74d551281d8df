//! One key in pi's notation (`ctrl+shift+p`, `alt+enter`, `pageUp`, `ctrl+]`) and whether a
//! key event the terminal sent is that key.
//!
//! Terminals without the kitty keyboard protocol or `modifyOtherKeys` send some keys in legacy
//! encodings that say less: Ctrl+] and Ctrl+- are the control bytes 0x1D and 0x1F (crossterm
//! once reported them as Ctrl+5 and Ctrl+7), a raw 0x08 is Ctrl+H (also what some terminals send
//! for Backspace), Shift+Tab is BackTab, and a shifted letter is its capital. Matching accepts
//! those forms as pi's key matcher accepts the same bytes.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Modifiers in pi's notation.
const MODIFIERS: [(&str, KeyModifiers); 4] = [
    ("ctrl", KeyModifiers::CONTROL),
    ("shift", KeyModifiers::SHIFT),
    ("alt", KeyModifiers::ALT),
    ("super", KeyModifiers::SUPER),
];

/// The symbols pi accepts as keys.
const SYMBOLS: &str = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?";

/// Named keys: pi's spelling (lower case; pi writes `pageUp`) and crossterm's code.
const NAMED: [(&str, KeyCode); 18] = [
    ("escape", KeyCode::Esc),
    ("esc", KeyCode::Esc),
    ("enter", KeyCode::Enter),
    ("return", KeyCode::Enter),
    ("tab", KeyCode::Tab),
    ("space", KeyCode::Char(' ')),
    ("backspace", KeyCode::Backspace),
    ("delete", KeyCode::Delete),
    ("insert", KeyCode::Insert),
    ("clear", KeyCode::KeypadBegin),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
];

/// A key with its modifiers, parsed from pi's notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId {
    code: KeyCode,
    mods: KeyModifiers,
}

/// Why a key could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("\"{0}\" is not a key: write modifier+key, e.g. \"ctrl+shift+x\", \"alt+enter\", \"pageUp\", \"f5\"")]
pub struct BadKey(pub String);

impl KeyId {
    /// A key from its code and modifiers (letters lower case; the modifiers say Shift).
    pub const fn new(code: KeyCode, mods: KeyModifiers) -> Self {
        Self { code, mods }
    }

    /// Reads pi's notation, case-insensitively: modifiers (`ctrl`, `shift`, `alt`, `super`,
    /// each at most once) joined with `+` before the key.
    pub fn parse(id: &str) -> Result<Self, BadKey> {
        let bad = || BadKey(id.to_string());
        let lower = id.trim().to_ascii_lowercase();
        let mut rest = lower.as_str();
        let mut mods = KeyModifiers::NONE;
        while let Some((name, flag)) = MODIFIERS
            .iter()
            .find(|(name, _)| rest.len() > name.len() && rest.starts_with(&format!("{name}+")))
        {
            if mods.contains(*flag) {
                return Err(bad());
            }
            mods |= *flag;
            rest = &rest[name.len() + 1..];
        }
        let code = base_key(rest).ok_or_else(bad)?;
        Ok(Self { code, mods })
    }

    /// The key's code (letters lower case).
    pub fn code(&self) -> KeyCode {
        self.code
    }

    /// The modifiers held.
    pub fn modifiers(&self) -> KeyModifiers {
        self.mods
    }

    /// Whether the terminal's key event `k` is this key (see the module notes on encodings).
    pub fn matches(&self, k: &KeyEvent) -> bool {
        let held = k.modifiers
            & (KeyModifiers::CONTROL
                | KeyModifiers::SHIFT
                | KeyModifiers::ALT
                | KeyModifiers::SUPER);
        match k.code {
            KeyCode::Char(c) => self.matches_char(c, held),
            KeyCode::BackTab => {
                self.code == KeyCode::Tab && self.mods == held | KeyModifiers::SHIFT
            }
            code => code == self.code && held == self.mods,
        }
    }

    fn matches_char(&self, c: char, held: KeyModifiers) -> bool {
        let mut held = held;
        let mut c = c;
        if c.is_ascii_uppercase() {
            c = c.to_ascii_lowercase();
            held |= KeyModifiers::SHIFT;
        } else if !c.is_ascii_alphanumeric() && c != ' ' {
            // A symbol's Shift is part of the symbol.
            held -= KeyModifiers::SHIFT;
        }
        let ctrl = held.contains(KeyModifiers::CONTROL);
        if self.code == KeyCode::Char(c) && self.mods == held {
            return true;
        }
        if ctrl && self.mods == held {
            // Legacy control bytes crossterm reports as Ctrl+digit or Ctrl+letter.
            let legacy: &[char] = match c {
                '4' => &['\\'],
                '5' => &[']'],
                '6' => &['^'],
                '7' => &['-', '_', '/'],
                '-' => &['_'],
                '_' => &['-'],
                ' ' => &['@'],
                _ => &[],
            };
            if matches!(self.code, KeyCode::Char(want) if legacy.contains(&want)) {
                return true;
            }
        }
        let plain = held - KeyModifiers::CONTROL;
        match (c, ctrl) {
            // 0x08: Backspace on many terminals and tmux setups; 0x09, 0x0D, 0x1B as in pi.
            ('h', true) => self.code == KeyCode::Backspace && self.mods == plain,
            ('i', true) => self.code == KeyCode::Tab && self.mods == plain,
            ('m', true) => self.code == KeyCode::Enter && self.mods == plain,
            _ => false,
        }
    }
}

/// The code of a base key name (already lower case), if pi accepts it.
fn base_key(name: &str) -> Option<KeyCode> {
    if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(*code);
    }
    if let Some(n) = name.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
        return (1..=12).contains(&n).then_some(KeyCode::F(n));
    }
    let mut chars = name.chars();
    let c = chars.next()?;
    let single = chars.next().is_none();
    (single && (c.is_ascii_lowercase() || c.is_ascii_digit() || SYMBOLS.contains(c)))
        .then_some(KeyCode::Char(c))
}

impl fmt::Display for KeyId {
    /// pi's notation, as pi's hints write it: modifiers in the order ctrl, shift, alt, super.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, flag) in MODIFIERS {
            if self.mods.contains(flag) {
                write!(f, "{name}+")?;
            }
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "f{n}"),
            KeyCode::PageUp => f.write_str("pageUp"),
            KeyCode::PageDown => f.write_str("pageDown"),
            code => {
                let name = NAMED.iter().find(|(_, c)| *c == code).map(|(n, _)| *n);
                f.write_str(name.unwrap_or("?"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const ALT: KeyModifiers = KeyModifiers::ALT;
    const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
    const NONE: KeyModifiers = KeyModifiers::NONE;

    #[test]
    fn parses_pis_notation() {
        let k = |s: &str| KeyId::parse(s).map(|k| (k.code, k.mods));
        assert_eq!(k("ctrl+shift+x"), Ok((KeyCode::Char('x'), CTRL | SHIFT)));
        assert_eq!(k("alt+ctrl+x"), Ok((KeyCode::Char('x'), CTRL | ALT)));
        assert_eq!(k("pageUp"), Ok((KeyCode::PageUp, NONE)));
        assert_eq!(k("ctrl+pageDown"), Ok((KeyCode::PageDown, CTRL)));
        assert_eq!(k("super+k"), Ok((KeyCode::Char('k'), KeyModifiers::SUPER)));
        assert_eq!(k("ctrl++"), Ok((KeyCode::Char('+'), CTRL)));
        assert_eq!(k("+"), Ok((KeyCode::Char('+'), NONE)));
        assert_eq!(k("f12"), Ok((KeyCode::F(12), NONE)));
        assert_eq!(k("esc"), Ok((KeyCode::Esc, NONE)));
        assert_eq!(k("return"), Ok((KeyCode::Enter, NONE)));
        for bad in [
            "",
            "ctrl+",
            "ctrl+ctrl+x",
            "hyper+x",
            "f13",
            "f0",
            "ab",
            "ctrl+é",
            "shift+alt+",
        ] {
            assert_eq!(KeyId::parse(bad), Err(BadKey(bad.into())), "{bad:?}");
        }
    }

    #[test]
    fn prints_what_it_parsed() {
        for id in [
            "ctrl+shift+x",
            "alt+enter",
            "pageUp",
            "ctrl+]",
            "f5",
            "shift+tab",
            "space",
        ] {
            assert_eq!(KeyId::parse(id).map(|k| k.to_string()), Ok(id.to_string()));
        }
        assert_eq!(
            KeyId::parse("Alt+Ctrl+X").map(|k| k.to_string()),
            Ok("ctrl+alt+x".into())
        );
    }

    #[test]
    fn matches_the_legacy_encodings_terminals_send() {
        let m = |id: &str, ev: KeyEvent| KeyId::parse(id).map(|k| k.matches(&ev)).unwrap_or(false);
        assert!(m("ctrl+]", key(KeyCode::Char('5'), CTRL)));
        assert!(m("ctrl+alt+]", key(KeyCode::Char('5'), CTRL | ALT)));
        assert!(m("ctrl+-", key(KeyCode::Char('7'), CTRL)));
        assert!(m("ctrl+_", key(KeyCode::Char('7'), CTRL)));
        assert!(m("backspace", key(KeyCode::Char('h'), CTRL)));
        assert!(m("backspace", key(KeyCode::Backspace, NONE)));
        assert!(m("alt+backspace", key(KeyCode::Backspace, ALT)));
        assert!(m("shift+tab", key(KeyCode::BackTab, SHIFT)));
        assert!(m("shift+tab", key(KeyCode::BackTab, NONE)));
        assert!(m("shift+l", key(KeyCode::Char('L'), SHIFT)));
        assert!(m("shift+l", key(KeyCode::Char('L'), NONE)));
        assert!(m("?", key(KeyCode::Char('?'), SHIFT)));
        assert!(m("ctrl+j", key(KeyCode::Char('j'), CTRL)));
        assert!(m("alt+enter", key(KeyCode::Enter, ALT)));
        assert!(m("ctrl+shift+up", key(KeyCode::Up, CTRL | SHIFT)));
    }

    #[test]
    fn modifiers_must_be_exactly_those_named() {
        let m = |id: &str, ev: KeyEvent| KeyId::parse(id).map(|k| k.matches(&ev)).unwrap_or(false);
        assert!(!m("ctrl+p", key(KeyCode::Char('P'), CTRL | SHIFT)));
        assert!(!m("ctrl+shift+p", key(KeyCode::Char('p'), CTRL)));
        assert!(!m("l", key(KeyCode::Char('L'), SHIFT)));
        assert!(!m("up", key(KeyCode::Up, CTRL)));
        assert!(!m("tab", key(KeyCode::BackTab, SHIFT)));
        assert!(!m("enter", key(KeyCode::Enter, ALT)));
        assert!(!m("ctrl+h", key(KeyCode::Backspace, NONE)));
    }
}
