//! A tool call: a title that summarises the arguments (`$ ls -la`, `read src/main.rs:10-20`,
//! `edit path`), then the result on a background that says pending, success or error. Long
//! output is collapsed (bash keeps the tail, the rest keep the head) until expanded; edit diffs
//! show added lines green and removed lines red; bash output streams in while it runs.

use serde_json::Value;

use super::{boxed, Component, EXPAND_HINT};
use crate::ansi::wrap;
use crate::highlight::highlight_line;
use crate::theme::{bold, Theme};

/// Where a call is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolStatus {
    /// Requested or running.
    #[default]
    Pending,
    /// Finished without error.
    Success,
    /// Failed, blocked, skipped or invalid.
    Error,
}

/// A tool call as shown in the transcript.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCallView {
    /// The call id (matches tool execution events).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments (possibly partial while the model streams them).
    pub args: Value,
    /// Result text so far (streamed partial output, then the final text).
    pub output: String,
    /// Agent-side details of the final result (edit diffs live here).
    pub details: Option<Value>,
    /// Pending, success or error.
    pub status: ToolStatus,
    /// Show the whole output instead of the collapsed preview.
    pub expanded: bool,
    /// When the tool started running.
    pub started: Option<std::time::Instant>,
    /// How long it ran, once finished (bash shows `Took 1.2s`, as pi does).
    pub duration: Option<std::time::Duration>,
    /// Call lines the extension drew itself (pi's `renderCall`), shown instead of the title.
    pub custom_call: Option<Vec<String>>,
    /// Result lines the extension drew itself (pi's `renderResult`), shown instead of output.
    pub custom_result: Option<Vec<String>>,
}

/// Lines of output shown while collapsed (bash shows the last ones, others the first).
const BASH_PREVIEW: usize = 5;
const PREVIEW: usize = 10;

impl ToolCallView {
    /// A pending call.
    pub fn new(id: impl Into<String>, name: impl Into<String>, args: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            args,
            ..Self::default()
        }
    }

    fn arg(&self, key: &str) -> Option<&str> {
        self.args.get(key).and_then(Value::as_str)
    }

    /// The title without styles (`$ ls -la`, `read src/main.rs:10-20`), for other renderings
    /// of a call such as the HTML export.
    pub fn plain_title(&self) -> String {
        crate::ansi::strip_ansi(&self.title(&Theme::dark()))
    }

    fn title(&self, theme: &Theme) -> String {
        let c = &theme.colors;
        let t = |s: &str| theme.fg(c.tool_title, &bold(s));
        let path = self.arg("path").unwrap_or("");
        match self.name.as_str() {
            "bash" => t(&format!("$ {}", self.arg("command").unwrap_or("..."))),
            "read" => {
                let offset = self.args.get("offset").and_then(Value::as_u64);
                let limit = self.args.get("limit").and_then(Value::as_u64);
                let range = match (offset, limit) {
                    (None, None) => String::new(),
                    (o, Some(l)) => {
                        let start = o.unwrap_or(1);
                        format!(":{start}-{}", start + l.saturating_sub(1))
                    }
                    (Some(o), None) => format!(":{o}"),
                };
                format!(
                    "{} {}{}",
                    t("read"),
                    theme.fg(c.accent, path),
                    theme.fg(c.warning, &range)
                )
            }
            "write" | "edit" | "ls" => {
                let shown = if path.is_empty() && self.name == "ls" {
                    "."
                } else {
                    path
                };
                format!("{} {}", t(&self.name), theme.fg(c.accent, shown))
            }
            "grep" | "find" => {
                let pattern = self.arg("pattern").unwrap_or("");
                let pattern = if self.name == "grep" {
                    format!("/{pattern}/")
                } else {
                    pattern.to_string()
                };
                let dir = self.arg("path").unwrap_or(".");
                format!(
                    "{} {} in {}",
                    t(&self.name),
                    theme.fg(c.accent, &pattern),
                    theme.fg(c.accent, dir)
                )
            }
            _ => {
                let args = serde_json::to_string(&self.args).unwrap_or_default();
                format!("{} {}", t(&self.name), theme.fg(c.muted, &args))
            }
        }
    }

    /// The body lines (unwrapped, styled) before collapsing.
    fn body(&self, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        if self.status == ToolStatus::Error {
            return self.output.lines().map(|l| theme.fg(c.error, l)).collect();
        }
        if self.name == "edit" {
            if let Some(diff) = self
                .details
                .as_ref()
                .and_then(|d| d.get("diff"))
                .and_then(Value::as_str)
            {
                return diff.lines().map(|l| diff_line(l, theme)).collect();
            }
        }
        if self.name == "write" && self.status != ToolStatus::Error {
            let lang = self
                .arg("path")
                .and_then(|p| p.rsplit('.').next())
                .unwrap_or("");
            return self
                .arg("content")
                .unwrap_or("")
                .lines()
                .map(|l| highlight_line(l, lang, theme))
                .collect();
        }
        self.output
            .lines()
            .map(|l| theme.fg(c.tool_output, l))
            .collect()
    }
}

/// pi's durations: `4.2s` below a minute, then `1m 30s` and `2h 3m 4s`.
pub fn format_duration(d: std::time::Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let total = d.as_secs();
    let (minutes, rest) = (total / 60, total % 60);
    if minutes < 60 {
        return format!("{minutes}m {rest}s");
    }
    format!("{}h {}m {rest}s", minutes / 60, minutes % 60)
}

fn diff_line(line: &str, theme: &Theme) -> String {
    let c = &theme.colors;
    let color = match line.as_bytes().first() {
        Some(b'+') => c.tool_diff_added,
        Some(b'-') => c.tool_diff_removed,
        _ => c.tool_diff_context,
    };
    theme.fg(color, line)
}

impl Component for ToolCallView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let inner = width.saturating_sub(2).max(1);
        if self.custom_call.is_some() || self.custom_result.is_some() {
            return self.render_custom(inner, width, theme);
        }
        let mut body = wrap(&self.title(theme), inner);
        let lines = self.body(theme);
        let keep_all = self.expanded || self.name == "edit" || self.status == ToolStatus::Error;
        let preview = if self.name == "bash" {
            BASH_PREVIEW
        } else {
            PREVIEW
        };
        if !lines.is_empty() {
            body.push(String::new());
        }
        let hidden = lines.len().saturating_sub(preview);
        if keep_all || hidden == 0 {
            for l in &lines {
                body.extend(wrap(l, inner));
            }
        } else if self.name == "bash" {
            let note = format!("... ({hidden} earlier lines, {EXPAND_HINT})");
            body.push(theme.fg(c.muted, &note));
            for l in &lines[hidden..] {
                body.extend(wrap(l, inner));
            }
        } else {
            for l in &lines[..preview] {
                body.extend(wrap(l, inner));
            }
            let note = format!("... ({hidden} more lines, {EXPAND_HINT})");
            body.push(theme.fg(c.muted, &note));
        }
        if let (Some(d), "bash") = (self.duration, self.name.as_str()) {
            body.push(String::new());
            body.push(theme.fg(c.muted, &format!("Took {}", format_duration(d))));
        }
        self.framed(body, width, theme)
    }
}

impl ToolCallView {
    /// The box on the status background.
    fn framed(&self, body: Vec<String>, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let bg = match self.status {
            ToolStatus::Pending => c.tool_pending_bg,
            ToolStatus::Success => c.tool_success_bg,
            ToolStatus::Error => c.tool_error_bg,
        };
        let mut out = vec![String::new()];
        out.extend(boxed(body, width, bg, 1, 1));
        out
    }

    /// The extension's call and result lines (rho's own for a part it did not draw), in the
    /// same box.
    fn render_custom(&self, inner: usize, width: usize, theme: &Theme) -> Vec<String> {
        let fit = |lines: &[String]| -> Vec<String> {
            lines
                .iter()
                .map(|l| crate::ansi::truncate_to_width(l, inner))
                .collect()
        };
        let mut body = match &self.custom_call {
            Some(lines) => fit(lines),
            None => wrap(&self.title(theme), inner),
        };
        match &self.custom_result {
            Some(lines) => body.extend(fit(lines)),
            None => {
                let own = self.body(theme);
                if !own.is_empty() {
                    body.push(String::new());
                    body.extend(own.iter().flat_map(|l| wrap(l, inner)));
                }
            }
        }
        self.framed(body, width, theme)
    }
}
