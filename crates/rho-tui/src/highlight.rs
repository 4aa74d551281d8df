//! A small line-by-line syntax highlighter for fenced code blocks: comments, strings, numbers,
//! keywords, types and function calls for a handful of languages. It keeps no state between
//! lines, so block comments and multi-line strings are coloured only on their first line; that is
//! the price of not pulling in a grammar engine.

use crate::theme::{Color, Theme};

/// What a language looks like to the highlighter.
struct Lang {
    keywords: &'static [&'static str],
    line_comment: &'static [&'static str],
    quotes: &'static [char],
}

const RUST: Lang = Lang {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while",
    ],
    line_comment: &["//"],
    quotes: &['"'],
};

const PYTHON: Lang = Lang {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True",
        "try", "while", "with", "yield",
    ],
    line_comment: &["#"],
    quotes: &['"', '\''],
};

const JS: Lang = Lang {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "return",
        "static",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    line_comment: &["//"],
    quotes: &['"', '\'', '`'],
};

const SHELL: Lang = Lang {
    keywords: &[
        "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if",
        "in", "local", "return", "then", "while",
    ],
    line_comment: &["#"],
    quotes: &['"', '\''],
};

const GO: Lang = Lang {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "false",
        "for",
        "func",
        "go",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comment: &["//"],
    quotes: &['"', '`'],
};

const JSON: Lang = Lang {
    keywords: &["true", "false", "null"],
    line_comment: &[],
    quotes: &['"'],
};

fn lang_for(name: &str) -> Option<&'static Lang> {
    Some(match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" => &PYTHON,
        "javascript" | "js" | "typescript" | "ts" | "tsx" | "jsx" => &JS,
        "bash" | "sh" | "shell" | "zsh" => &SHELL,
        "go" | "golang" => &GO,
        "json" | "jsonc" => &JSON,
        _ => return None,
    })
}

/// True when `lang` (a fence's info string) is one the highlighter knows.
pub fn is_supported(lang: &str) -> bool {
    lang_for(lang).is_some()
}

/// Colours one line of code in language `lang`; unknown languages get the plain code colour.
pub fn highlight_line(line: &str, lang: &str, theme: &Theme) -> String {
    let c = &theme.colors;
    let Some(l) = lang_for(lang) else {
        return theme.fg(c.md_code_block, line);
    };
    let mut out = String::with_capacity(line.len() * 2);
    let mut paint = |color: Color, s: &str| out.push_str(&theme.fg(color, s));
    let mut rest = line;
    while let Some(ch) = rest.chars().next() {
        if l.line_comment.iter().any(|p| rest.starts_with(p)) {
            paint(c.syntax_comment, rest);
            break;
        }
        let len = if l.quotes.contains(&ch) {
            let end = string_end(rest, ch);
            paint(c.syntax_string, &rest[..end]);
            end
        } else if ch.is_ascii_digit() {
            let end = rest
                .find(|x: char| !(x.is_ascii_alphanumeric() || x == '.' || x == '_'))
                .unwrap_or(rest.len());
            paint(c.syntax_number, &rest[..end]);
            end
        } else if ch.is_alphabetic() || ch == '_' {
            let end = rest
                .find(|x: char| !(x.is_alphanumeric() || x == '_'))
                .unwrap_or(rest.len());
            let word = &rest[..end];
            let color = if l.keywords.contains(&word) {
                c.syntax_keyword
            } else if rest[end..].starts_with('(') || rest[end..].starts_with("!(") {
                c.syntax_function
            } else if ch.is_uppercase() {
                c.syntax_type
            } else {
                c.syntax_variable
            };
            paint(color, word);
            end
        } else if "{}[]();,.:".contains(ch) {
            paint(c.syntax_punctuation, &rest[..1]);
            1
        } else if "+-*/%=<>!&|^~?".contains(ch) {
            paint(c.syntax_operator, &rest[..1]);
            1
        } else {
            paint(Color::Default, &rest[..ch.len_utf8()]);
            ch.len_utf8()
        };
        rest = &rest[len..];
    }
    out
}

/// Byte index just past the string literal that opens `s` with `quote` (end of line when open).
fn string_end(s: &str, quote: char) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return i + c.len_utf8();
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::strip_ansi;

    #[test]
    fn keeps_text_and_colours_tokens() {
        let t = Theme::dark();
        let line = r#"fn main() { let s = "a\"b"; // hi"#;
        let out = highlight_line(line, "rust", &t);
        assert_eq!(strip_ansi(&out), line);
        let kw = t.fg(t.colors.syntax_keyword, "fn");
        assert!(out.starts_with(&kw), "{out:?}");
        assert!(out.contains(&t.fg(t.colors.syntax_function, "main")));
        assert!(out.contains(&t.fg(t.colors.syntax_string, r#""a\"b""#)));
        assert!(out.ends_with(&t.fg(t.colors.syntax_comment, "// hi")));
    }

    #[test]
    fn unknown_language_is_plain_code() {
        let t = Theme::dark();
        assert_eq!(
            highlight_line("x = 1", "cobol", &t),
            t.fg(t.colors.md_code_block, "x = 1")
        );
        assert!(is_supported("py") && !is_supported("cobol"));
    }
}
