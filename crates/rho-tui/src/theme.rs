//! Themes: every colour the UI uses, in one place, named by pi's theme tokens.
//!
//! pi's theme file format is not in the rho spec (interfaces §9 lists themes as out of scope), so
//! rho follows pi's documented format: a JSON object with `name`, optional `vars` (name → colour)
//! and `colors` (token → colour), where a colour is `"#rrggbb"`, a 256-colour index (0–255), the
//! name of a var, or `""` for the terminal's default. [`Theme::from_json`] reads that format;
//! tokens it does not name keep the dark theme's value, so partial themes still load.

use serde_json::Value;

/// One colour as the terminal is asked to draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// The terminal's own default.
    Default,
    /// An index into the 256-colour palette.
    Indexed(u8),
    /// 24-bit colour.
    Rgb(u8, u8, u8),
}

impl Color {
    fn sgr(self, fg: bool, out: &mut String) {
        use std::fmt::Write;
        let base = if fg { 38 } else { 48 };
        let _ = match self {
            Color::Default => write!(out, "\x1b[{}m", base + 1),
            Color::Indexed(n) => write!(out, "\x1b[{base};5;{n}m"),
            Color::Rgb(r, g, b) => write!(out, "\x1b[{base};2;{r};{g};{b}m"),
        };
    }

    /// The escape that selects this colour as foreground.
    pub fn fg_code(self) -> String {
        let mut s = String::new();
        self.sgr(true, &mut s);
        s
    }

    /// The escape that selects this colour as background.
    pub fn bg_code(self) -> String {
        let mut s = String::new();
        self.sgr(false, &mut s);
        s
    }
}

/// A 24-bit colour as a terminal reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// Errors reading a theme file.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// The file is not JSON.
    #[error("theme file is not valid JSON: {0}; fix the syntax or remove the file")]
    Json(#[from] serde_json::Error),
    /// The file could not be read.
    #[error(
        "cannot read theme file {path}: {source}; check the path given in settings or --theme"
    )]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A colour value could not be understood.
    #[error("theme colour `{token}` has an invalid value {value}; use \"#rrggbb\", 0-255, a var name or \"\"")]
    BadColor {
        /// The token (or var) that holds it.
        token: String,
        /// The value as written.
        value: String,
    },
}

macro_rules! theme_tokens {
    ($($field:ident => $json:literal),* $(,)?) => {
        /// The colours of the UI, one field per pi theme token.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Palette {
            $(#[doc = concat!("pi token `", $json, "`.")] pub $field: Color,)*
        }

        impl Palette {
            fn set(&mut self, token: &str, color: Color) -> bool {
                match token {
                    $($json => self.$field = color,)*
                    _ => return false,
                }
                true
            }
        }
    };
}

theme_tokens! {
    accent => "accent", border => "border", border_accent => "borderAccent",
    border_muted => "borderMuted", success => "success", error => "error", warning => "warning",
    muted => "muted", dim => "dim", text => "text", thinking_text => "thinkingText",
    selected_bg => "selectedBg", user_message_bg => "userMessageBg",
    user_message_text => "userMessageText", custom_message_bg => "customMessageBg",
    custom_message_text => "customMessageText", custom_message_label => "customMessageLabel",
    tool_pending_bg => "toolPendingBg", tool_success_bg => "toolSuccessBg",
    tool_error_bg => "toolErrorBg", tool_title => "toolTitle", tool_output => "toolOutput",
    md_heading => "mdHeading", md_link => "mdLink", md_link_url => "mdLinkUrl", md_code => "mdCode",
    md_code_block => "mdCodeBlock", md_code_block_border => "mdCodeBlockBorder",
    md_quote => "mdQuote", md_quote_border => "mdQuoteBorder", md_hr => "mdHr",
    md_list_bullet => "mdListBullet", tool_diff_added => "toolDiffAdded",
    tool_diff_removed => "toolDiffRemoved", tool_diff_context => "toolDiffContext",
    syntax_comment => "syntaxComment", syntax_keyword => "syntaxKeyword",
    syntax_function => "syntaxFunction", syntax_variable => "syntaxVariable",
    syntax_string => "syntaxString", syntax_number => "syntaxNumber", syntax_type => "syntaxType",
    syntax_operator => "syntaxOperator", syntax_punctuation => "syntaxPunctuation",
    thinking_off => "thinkingOff", thinking_minimal => "thinkingMinimal",
    thinking_low => "thinkingLow", thinking_medium => "thinkingMedium",
    thinking_high => "thinkingHigh", thinking_xhigh => "thinkingXhigh", bash_mode => "bashMode",
}

/// A named palette plus the helpers components use to paint text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// The theme's name (`dark`, `light` or the file's `name`).
    pub name: String,
    /// Its colours.
    pub colors: Palette,
}

const fn rgb(hex: u32) -> Color {
    Color::Rgb((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
}

impl Theme {
    /// The default theme for dark terminals.
    pub fn dark() -> Self {
        let c = Palette {
            accent: rgb(0x8abeb7),
            border: rgb(0x5f87ff),
            border_accent: rgb(0x00d7ff),
            border_muted: rgb(0x505050),
            success: rgb(0xb5bd68),
            error: rgb(0xcc6666),
            warning: rgb(0xffff00),
            muted: rgb(0x808080),
            dim: rgb(0x666666),
            text: Color::Default,
            thinking_text: rgb(0x808080),
            selected_bg: rgb(0x3a3a4a),
            user_message_bg: rgb(0x343541),
            user_message_text: Color::Default,
            custom_message_bg: rgb(0x2d2838),
            custom_message_text: Color::Default,
            custom_message_label: rgb(0x9575cd),
            tool_pending_bg: rgb(0x282832),
            tool_success_bg: rgb(0x283228),
            tool_error_bg: rgb(0x3c2828),
            tool_title: Color::Default,
            tool_output: rgb(0x808080),
            md_heading: rgb(0xf0c674),
            md_link: rgb(0x81a2be),
            md_link_url: rgb(0x666666),
            md_code: rgb(0x8abeb7),
            md_code_block: rgb(0xb5bd68),
            md_code_block_border: rgb(0x808080),
            md_quote: rgb(0x808080),
            md_quote_border: rgb(0x808080),
            md_hr: rgb(0x808080),
            md_list_bullet: rgb(0x8abeb7),
            tool_diff_added: rgb(0xb5bd68),
            tool_diff_removed: rgb(0xcc6666),
            tool_diff_context: rgb(0x808080),
            syntax_comment: rgb(0x6a9955),
            syntax_keyword: rgb(0x569cd6),
            syntax_function: rgb(0xdcdcaa),
            syntax_variable: rgb(0x9cdcfe),
            syntax_string: rgb(0xce9178),
            syntax_number: rgb(0xb5cea8),
            syntax_type: rgb(0x4ec9b0),
            syntax_operator: rgb(0xd4d4d4),
            syntax_punctuation: rgb(0xd4d4d4),
            thinking_off: rgb(0x505050),
            thinking_minimal: rgb(0x6e6e6e),
            thinking_low: rgb(0x5f87af),
            thinking_medium: rgb(0x81a2be),
            thinking_high: rgb(0xb294bb),
            thinking_xhigh: rgb(0xd183e8),
            bash_mode: rgb(0xb5bd68),
        };
        Theme {
            name: "dark".into(),
            colors: c,
        }
    }

    /// The default theme for light terminals.
    pub fn light() -> Self {
        let mut t = Theme::dark();
        t.name = "light".into();
        let c = &mut t.colors;
        c.accent = rgb(0x5a8080);
        c.border = rgb(0x547da7);
        c.border_accent = rgb(0x5a8080);
        c.border_muted = rgb(0xb0b0b0);
        c.success = rgb(0x588458);
        c.error = rgb(0xaa5555);
        c.warning = rgb(0x9a7326);
        c.muted = rgb(0x6c6c6c);
        c.dim = rgb(0x8a8a8a);
        c.thinking_text = rgb(0x6c6c6c);
        c.selected_bg = rgb(0xd0d0e0);
        c.user_message_bg = rgb(0xe8e8e8);
        c.custom_message_bg = rgb(0xede7f6);
        c.custom_message_label = rgb(0x7e57c2);
        c.tool_pending_bg = rgb(0xe8e8f0);
        c.tool_success_bg = rgb(0xe8f0e8);
        c.tool_error_bg = rgb(0xf0e8e8);
        c.tool_output = rgb(0x6c6c6c);
        c.md_heading = rgb(0x9a7326);
        c.md_link = rgb(0x547da7);
        c.md_link_url = rgb(0x8a8a8a);
        c.md_code = rgb(0x5a8080);
        c.md_code_block = rgb(0x588458);
        c.md_code_block_border = rgb(0x6c6c6c);
        c.md_quote = rgb(0x6c6c6c);
        c.md_quote_border = rgb(0x6c6c6c);
        c.md_hr = rgb(0x6c6c6c);
        c.md_list_bullet = rgb(0x588458);
        c.tool_diff_added = rgb(0x588458);
        c.tool_diff_removed = rgb(0xaa5555);
        c.tool_diff_context = rgb(0x6c6c6c);
        c.syntax_comment = rgb(0x008000);
        c.syntax_keyword = rgb(0x0000ff);
        c.syntax_function = rgb(0x795e26);
        c.syntax_variable = rgb(0x001080);
        c.syntax_string = rgb(0xa31515);
        c.syntax_number = rgb(0x098658);
        c.syntax_type = rgb(0x267f99);
        c.syntax_operator = rgb(0x000000);
        c.syntax_punctuation = rgb(0x000000);
        c.thinking_low = rgb(0x547da7);
        c.thinking_medium = rgb(0x5a8080);
        c.thinking_high = rgb(0x875f87);
        c.thinking_xhigh = rgb(0x8b008b);
        c.bash_mode = rgb(0x588458);
        t
    }

    /// A built-in theme by name (`dark` or `light`).
    pub fn builtin(name: &str) -> Option<Self> {
        match name {
            "dark" => Some(Theme::dark()),
            "light" => Some(Theme::light()),
            _ => None,
        }
    }

    /// Reads a theme in pi's JSON format (see the module docs). Unknown tokens are ignored so
    /// themes written for newer pi versions still load.
    pub fn from_json(text: &str) -> Result<Self, ThemeError> {
        let v: Value = serde_json::from_str(text)?;
        let mut theme = Theme::dark();
        if let Some(name) = v.get("name").and_then(Value::as_str) {
            theme.name = name.to_string();
        }
        let vars = v.get("vars").and_then(Value::as_object);
        if let Some(colors) = v.get("colors").and_then(Value::as_object) {
            for (token, value) in colors {
                let color = parse_color(token, value, vars)?;
                theme.colors.set(token, color);
            }
        }
        Ok(theme)
    }

    /// Reads a theme file in pi's format.
    pub fn from_file(path: &std::path::Path) -> Result<Self, ThemeError> {
        let text = std::fs::read_to_string(path).map_err(|source| ThemeError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Theme::from_json(&text)
    }

    /// `text` in foreground colour `c` (closes with the default-foreground code only, so outer
    /// styles and backgrounds survive).
    pub fn fg(&self, c: Color, text: &str) -> String {
        if c == Color::Default {
            return text.to_string();
        }
        let mut s = String::with_capacity(text.len() + 24);
        c.sgr(true, &mut s);
        s.push_str(text);
        s.push_str("\x1b[39m");
        s
    }

    /// `text` on background colour `c` (closes with the default-background code only, so
    /// foreground colours inside survive).
    pub fn bg(&self, c: Color, text: &str) -> String {
        if c == Color::Default {
            return text.to_string();
        }
        let mut s = String::with_capacity(text.len() + 24);
        c.sgr(false, &mut s);
        s.push_str(text);
        s.push_str("\x1b[49m");
        s
    }

    /// The thinking-level colour pi uses for the editor border.
    pub fn thinking_color(&self, level: rho_protocol::ThinkingLevel) -> Color {
        use rho_protocol::ThinkingLevel as L;
        let c = &self.colors;
        match level {
            L::Off => c.thinking_off,
            L::Minimal => c.thinking_minimal,
            L::Low => c.thinking_low,
            L::Medium => c.thinking_medium,
            L::High => c.thinking_high,
            L::Xhigh | L::Max => c.thinking_xhigh,
        }
    }
}

/// `text` in bold.
pub fn bold(text: &str) -> String {
    format!("\x1b[1m{text}\x1b[22m")
}

/// `text` in italics.
pub fn italic(text: &str) -> String {
    format!("\x1b[3m{text}\x1b[23m")
}

/// `text` underlined.
pub fn underline(text: &str) -> String {
    format!("\x1b[4m{text}\x1b[24m")
}

/// `text` struck through.
pub fn strikethrough(text: &str) -> String {
    format!("\x1b[9m{text}\x1b[29m")
}

/// `text` in reverse video (the editor's cursor).
pub fn inverse(text: &str) -> String {
    format!("\x1b[7m{text}\x1b[27m")
}

fn parse_color(
    token: &str,
    value: &Value,
    vars: Option<&serde_json::Map<String, Value>>,
) -> Result<Color, ThemeError> {
    let bad = || ThemeError::BadColor {
        token: token.to_string(),
        value: value.to_string(),
    };
    match value {
        Value::Number(n) => n
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .map(Color::Indexed)
            .ok_or_else(bad),
        Value::String(s) if s.is_empty() => Ok(Color::Default),
        Value::String(s) if s.starts_with('#') => {
            let hex = s.get(1..).filter(|h| h.len() == 6).ok_or_else(bad)?;
            u32::from_str_radix(hex, 16).map(rgb).map_err(|_| bad())
        }
        Value::String(s) => match vars.and_then(|v| v.get(s)) {
            Some(var) if !matches!(var, Value::String(r) if r == s) => {
                parse_color(s, var, None).map_err(|_| bad())
            }
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pi_theme_format_with_vars_indices_and_defaults() {
        let t = Theme::from_json(
            r##"{"name":"mine","vars":{"primary":"#00aaff","gray":242},
               "colors":{"accent":"primary","muted":"gray","text":"","error":"#ff0000","future":"#000000"}}"##,
        )
        .expect("valid theme");
        assert_eq!(t.name, "mine");
        assert_eq!(t.colors.accent, Color::Rgb(0, 0xaa, 0xff));
        assert_eq!(t.colors.muted, Color::Indexed(242));
        assert_eq!(t.colors.text, Color::Default);
        assert_eq!(t.colors.error, Color::Rgb(255, 0, 0));
        assert_eq!(t.colors.success, Theme::dark().colors.success);
    }

    #[test]
    fn bad_colours_name_the_token() {
        let err = Theme::from_json(r#"{"colors":{"accent":"nope"}}"#).expect_err("unknown var");
        assert!(err.to_string().contains("`accent`"), "{err}");
        let err = Theme::from_json(r#"{"colors":{"dim":300}}"#).expect_err("out of range");
        assert!(err.to_string().contains("300"), "{err}");
        assert!(Theme::from_json("{").is_err());
        let missing = Theme::from_file(std::path::Path::new("/nonexistent/rho-theme.json"))
            .expect_err("no such file");
        assert!(
            missing.to_string().contains("/nonexistent/rho-theme.json"),
            "{missing}"
        );
    }

    #[test]
    fn colour_codes() {
        assert_eq!(Color::Indexed(7).fg_code(), "\x1b[38;5;7m");
        assert_eq!(Color::Rgb(1, 2, 3).bg_code(), "\x1b[48;2;1;2;3m");
        assert_eq!(Theme::dark().fg(Color::Default, "x"), "x");
        assert_ne!(Theme::dark(), Theme::light());
    }
}
