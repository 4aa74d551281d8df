//! pi 1.6's terminal-mode settings: `tuiMode`, `fullscreenExitOutput`, `fullscreenScrollbar`
//! and `fullscreenWheelScrollLines`, read from their settings.json values (or `--tui-mode`).
//! A value that is not one of pi's is an error saying which values are; callers turn it into
//! a warning (settings) or a stop (the flag).

use serde_json::Value;

/// Why a value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value} is not a valid value; use {expected}")]
pub struct BadValue {
    /// The value as written.
    pub value: String,
    /// The values allowed.
    pub expected: &'static str,
}

fn bad(value: &Value, expected: &'static str) -> BadValue {
    BadValue {
        value: value.to_string(),
        expected,
    }
}

/// pi's `tuiMode`: how the interactive mode uses the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TuiMode {
    /// Frames at the bottom of the normal screen; what scrolls off stays in the scrollback.
    #[default]
    Regular,
    /// The alternate screen: a scrollable transcript above the editor and footer.
    Fullscreen,
}

impl TuiMode {
    /// Reads `regular` or `fullscreen`.
    pub fn parse(value: &str) -> Result<Self, BadValue> {
        match value {
            "regular" => Ok(TuiMode::Regular),
            "fullscreen" => Ok(TuiMode::Fullscreen),
            other => Err(bad(
                &Value::String(other.into()),
                "\"regular\" or \"fullscreen\"",
            )),
        }
    }

    /// Reads a settings value.
    pub fn from_setting(value: &Value) -> Result<Self, BadValue> {
        match value.as_str() {
            Some(s) => Self::parse(s),
            None => Err(bad(value, "\"regular\" or \"fullscreen\"")),
        }
    }

    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TuiMode::Regular => "regular",
            TuiMode::Fullscreen => "fullscreen",
        }
    }
}

/// pi's `fullscreenExitOutput`: what is left on the normal screen when fullscreen ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExitOutput {
    /// The whole conversation, printed into the normal screen and its scrollback.
    #[default]
    Transcript,
    /// Only the line that resumes the session.
    ResumeHint,
}

impl ExitOutput {
    /// Reads a settings value (`transcript` or `resume-hint`).
    pub fn from_setting(value: &Value) -> Result<Self, BadValue> {
        match value.as_str() {
            Some("transcript") => Ok(ExitOutput::Transcript),
            Some("resume-hint") => Ok(ExitOutput::ResumeHint),
            _ => Err(bad(value, "\"transcript\" or \"resume-hint\"")),
        }
    }

    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ExitOutput::Transcript => "transcript",
            ExitOutput::ResumeHint => "resume-hint",
        }
    }
}

/// pi's `fullscreenScrollbar`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scrollbar {
    /// Shown for a moment after the transcript scrolls (when it is longer than the view).
    #[default]
    Auto,
    /// Always shown, in a column of its own.
    Always,
    /// Never shown.
    Hidden,
}

impl Scrollbar {
    /// Reads a settings value (`auto`, `always` or `hidden`).
    pub fn from_setting(value: &Value) -> Result<Self, BadValue> {
        match value.as_str() {
            Some("auto") => Ok(Scrollbar::Auto),
            Some("always") => Ok(Scrollbar::Always),
            Some("hidden") => Ok(Scrollbar::Hidden),
            _ => Err(bad(value, "\"auto\", \"always\" or \"hidden\"")),
        }
    }

    /// The settings spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Scrollbar::Auto => "auto",
            Scrollbar::Always => "always",
            Scrollbar::Hidden => "hidden",
        }
    }
}

/// pi's `fullscreenWheelScrollLines`: lines per wheel notch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WheelLines {
    /// One line per notch, faster for fast spins (up to six), as pi's `auto`.
    #[default]
    Auto,
    /// Always this many (1 to 100).
    Fixed(u16),
}

impl WheelLines {
    /// Reads a settings value: `"auto"` or a whole number from 1 to 100.
    pub fn from_setting(value: &Value) -> Result<Self, BadValue> {
        if value.as_str() == Some("auto") {
            return Ok(WheelLines::Auto);
        }
        match value.as_u64() {
            Some(n @ 1..=100) => Ok(WheelLines::Fixed(n as u16)),
            _ => Err(bad(value, "\"auto\" or a number from 1 to 100")),
        }
    }

    /// The settings spelling.
    pub fn to_setting(self) -> Value {
        match self {
            WheelLines::Auto => Value::String("auto".into()),
            WheelLines::Fixed(n) => Value::from(n),
        }
    }
}

/// The fullscreen settings together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FullscreenOptions {
    /// `fullscreenExitOutput`.
    pub exit_output: ExitOutput,
    /// `fullscreenScrollbar`.
    pub scrollbar: Scrollbar,
    /// `fullscreenWheelScrollLines`.
    pub wheel_lines: WheelLines,
}

impl FullscreenOptions {
    /// Reads the three settings through `get` (a missing key keeps pi's default); each bad
    /// value becomes a warning naming its key, and the default.
    pub fn from_settings<'a>(get: impl Fn(&str) -> Option<&'a Value>) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let options = FullscreenOptions {
            exit_output: setting(
                &get,
                "fullscreenExitOutput",
                ExitOutput::from_setting,
                &mut warnings,
            ),
            scrollbar: setting(
                &get,
                "fullscreenScrollbar",
                Scrollbar::from_setting,
                &mut warnings,
            ),
            wheel_lines: setting(
                &get,
                "fullscreenWheelScrollLines",
                WheelLines::from_setting,
                &mut warnings,
            ),
        };
        (options, warnings)
    }
}

/// One setting read with `parse`; a bad value is a warning and the default.
fn setting<'a, T: Default>(
    get: &impl Fn(&str) -> Option<&'a Value>,
    key: &str,
    parse: fn(&Value) -> Result<T, BadValue>,
    warnings: &mut Vec<String>,
) -> T {
    match get(key).map(parse) {
        Some(Ok(value)) => value,
        Some(Err(e)) => {
            warnings.push(format!("settings.json {key}: {e}"));
            T::default()
        }
        None => T::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_pis_values_and_names_the_bad_ones() {
        let settings = json!({
            "fullscreenExitOutput": "resume-hint",
            "fullscreenScrollbar": "sometimes",
            "fullscreenWheelScrollLines": 3,
        });
        let (options, warnings) = FullscreenOptions::from_settings(|k| settings.get(k));
        assert_eq!(options.exit_output, ExitOutput::ResumeHint);
        assert_eq!(options.scrollbar, Scrollbar::Auto);
        assert_eq!(options.wheel_lines, WheelLines::Fixed(3));
        assert_eq!(
            warnings,
            vec!["settings.json fullscreenScrollbar: \"sometimes\" is not a valid value; use \"auto\", \"always\" or \"hidden\""]
        );
        assert!(WheelLines::from_setting(&json!(101)).is_err());
        assert!(WheelLines::from_setting(&json!(0)).is_err());
        assert_eq!(
            WheelLines::from_setting(&json!("auto")),
            Ok(WheelLines::Auto)
        );
        assert_eq!(TuiMode::parse("fullscreen"), Ok(TuiMode::Fullscreen));
        assert!(TuiMode::from_setting(&json!(true)).is_err());
    }
}
