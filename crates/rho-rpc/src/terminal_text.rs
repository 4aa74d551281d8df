//! Text from a provider written straight to a terminal (`-p` text mode). A model or a
//! hostile server can send escape sequences that clear the screen, retitle the window or
//! rewrite earlier lines (issue 17 #10); here every control character except newline and tab
//! is shown as a visible symbol instead of being obeyed. JSON and RPC output carry the text as
//! data and are left as they are.

use std::borrow::Cow;

/// `text` with C0 controls shown as their Unicode control pictures (`ESC` → `␛`, `CR` → `␍`),
/// `DEL` as `␡` and C1 controls (an 8-bit CSI among them) as `\u{FFFD}`; newline and tab kept.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hazard) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(visible).collect())
}

fn is_hazard(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

fn visible(c: char) -> char {
    match c {
        c if !is_hazard(c) => c,
        '\x7f' => '\u{2421}',
        c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
        _ => '\u{FFFD}',
    }
}

#[cfg(test)]
mod tests {
    use super::neutralise;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        assert!(matches!(
            neutralise("a\tb\nc é"),
            std::borrow::Cow::Borrowed("a\tb\nc é")
        ));
    }

    #[test]
    fn controls_become_visible_symbols() {
        assert_eq!(neutralise("\x1b[2J\x07\r\x7f\u{9b}"), "␛[2J␇␍␡\u{FFFD}");
    }
}
