//! The footer under the editor, as pi lays it out: the working directory with git branch and
//! session name on the first line; token counts, cost and context use on the left of the second,
//! the model and thinking level on its right.

use rho_protocol::ThinkingLevel;

use super::Component;
use crate::ansi::{truncate_with_ellipsis, visible_width};
use crate::theme::{Color, Theme};

/// Tokens and cost summed over the session's assistant messages.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UsageTotals {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// USD.
    pub cost: f64,
}

/// Everything the footer shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FooterView {
    /// Working directory as displayed (`~` already substituted by the caller).
    pub cwd: String,
    /// Current git branch, if any.
    pub git_branch: Option<String>,
    /// Session name, if set.
    pub session_name: Option<String>,
    /// Model id (`None`: no model selected).
    pub model: Option<String>,
    /// The model's provider, shown before it as `(provider)`.
    pub provider: Option<String>,
    /// Whether the model reasons (then the thinking level is shown).
    pub reasoning: bool,
    /// Effective thinking level.
    pub thinking_level: ThinkingLevel,
    /// Under a virtual model: where the latest response went, the physical model's id and
    /// the level it ran at, shown after the selection as pi's `auto • high → luna • medium`.
    pub routed: Option<(String, Option<ThinkingLevel>)>,
    /// Session usage.
    pub usage: UsageTotals,
    /// Tokens in the current context, if known.
    pub context_tokens: Option<u64>,
    /// The model's context window.
    pub context_window: u64,
    /// Auto-compaction enabled (pi appends ` (auto)`).
    pub auto_compact: bool,
}

/// pi's compact token counts: `999`, `1.2k`, `45k`, `1.5M`, `12M`.
pub fn format_tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=9_999 => format!("{:.1}k", n as f64 / 1e3),
        10_000..=999_999 => format!("{}k", (n as f64 / 1e3).round() as u64),
        1_000_000..=9_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{}M", (n as f64 / 1e6).round() as u64),
    }
}

impl FooterView {
    fn location(&self) -> String {
        let mut s = self.cwd.clone();
        if let Some(b) = &self.git_branch {
            s.push_str(&format!(" ({b})"));
        }
        if let Some(n) = &self.session_name {
            s.push_str(&format!(" • {n}"));
        }
        s
    }

    /// The token/cost part and the context part (plain), plus the context part's colour.
    fn stats(&self, theme: &Theme) -> (String, String, Color) {
        let u = &self.usage;
        let mut parts = Vec::new();
        for (sign, n) in [
            ("↑", u.input),
            ("↓", u.output),
            ("R", u.cache_read),
            ("W", u.cache_write),
        ] {
            if n > 0 {
                parts.push(format!("{sign}{}", format_tokens(n)));
            }
        }
        if u.cost > 0.0 {
            parts.push(format!("${:.3}", u.cost));
        }
        let mut head = parts.join(" ");
        if !head.is_empty() {
            head.push(' ');
        }
        let auto = if self.auto_compact { " (auto)" } else { "" };
        let window = format_tokens(self.context_window);
        let c = &theme.colors;
        match self.context_tokens {
            Some(t) if self.context_window > 0 => {
                let pct = t as f64 * 100.0 / self.context_window as f64;
                let color = if pct > 90.0 {
                    c.error
                } else if pct > 70.0 {
                    c.warning
                } else {
                    c.dim
                };
                (head, format!("{pct:.1}%/{window}{auto}"), color)
            }
            _ => (head, format!("?/{window}{auto}"), c.dim),
        }
    }

    fn model_label(&self) -> String {
        let Some(model) = &self.model else {
            return "no model".into();
        };
        let model = match &self.provider {
            Some(p) => format!("({p}) {model}"),
            None => model.clone(),
        };
        let selection = match (self.reasoning, self.thinking_level) {
            (false, _) => model,
            (true, ThinkingLevel::Off) => format!("{model} • thinking off"),
            (true, level) => format!("{model} • {}", level_name(level)),
        };
        match &self.routed {
            None => selection,
            Some((id, None)) => format!("{selection} → {id}"),
            Some((id, Some(level))) => format!("{selection} → {id} • {}", level_name(*level)),
        }
    }
}

fn level_name(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off => "off",
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High => "high",
        ThinkingLevel::Xhigh => "xhigh",
        ThinkingLevel::Max => "max",
    }
}

impl Component for FooterView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let dim = theme.colors.dim;
        let first = theme.fg(dim, &truncate_with_ellipsis(&self.location(), width));
        let (head, ctx, ctx_color) = self.stats(theme);
        let right = self.model_label();
        let (lw, rw) = (
            visible_width(&head) + visible_width(&ctx),
            visible_width(&right),
        );
        let tail = if lw + 2 + rw <= width {
            format!("{}{right}", " ".repeat(width - lw - rw))
        } else if lw + 2 < width {
            format!("  {}", truncate_with_ellipsis(&right, width - lw - 2))
        } else {
            String::new()
        };
        let second = if lw <= width {
            format!(
                "{}{}{}",
                theme.fg(dim, &head),
                theme.fg(ctx_color, &ctx),
                theme.fg(dim, &tail)
            )
        } else {
            theme.fg(dim, &truncate_with_ellipsis(&format!("{head}{ctx}"), width))
        };
        vec![first, second]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_selection_shows_where_the_latest_response_went() {
        let view = FooterView {
            model: Some("auto".into()),
            provider: Some("jev".into()),
            reasoning: true,
            thinking_level: ThinkingLevel::High,
            routed: Some(("gpt-5.6-luna".into(), Some(ThinkingLevel::Medium))),
            ..FooterView::default()
        };
        assert_eq!(
            view.model_label(),
            "(jev) auto • high → gpt-5.6-luna • medium"
        );
        let unrouted = FooterView {
            routed: None,
            ..view
        };
        assert_eq!(unrouted.model_label(), "(jev) auto • high");
    }

    #[test]
    fn token_formatting_matches_pi() {
        let got: Vec<String> = [
            0, 999, 1000, 1234, 9999, 10_000, 45_600, 999_999, 1_500_000, 12_345_678,
        ]
        .into_iter()
        .map(format_tokens)
        .collect();
        assert_eq!(
            got,
            ["0", "999", "1.0k", "1.2k", "10.0k", "10k", "46k", "1000k", "1.5M", "12M"]
        );
    }
}
