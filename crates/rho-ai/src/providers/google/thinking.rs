//! Gemini `thinkingConfig` (providers spec §3.4 "Thinking"): Gemini 3 Pro / Flash and Gemma 4
//! take a `thinkingLevel`, every other model a token `thinkingBudget`.

use serde_json::{json, Value};

use crate::model::{Model, ThinkingLevel};
use crate::options::{StreamOptions, ThinkingBudgets};

/// Model families that take `thinkingLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `gemini-3(.N)?-pro`.
    Gemini3Pro,
    /// `gemini-3(.N)?-flash`.
    Gemini3Flash,
    /// `gemma-?4`.
    Gemma4,
    /// Everything else: budget-based.
    Budget,
}

impl Family {
    /// The family of a model id.
    pub fn of(id: &str) -> Family {
        let id = id.to_ascii_lowercase();
        if gemini3_variant(&id, "-pro") {
            Family::Gemini3Pro
        } else if gemini3_variant(&id, "-flash") {
            Family::Gemini3Flash
        } else if id.contains("gemma4") || id.contains("gemma-4") {
            Family::Gemma4
        } else {
            Family::Budget
        }
    }
}

/// Whether `id` contains `gemini-3`, an optional `.<digits>`, then `suffix`.
fn gemini3_variant(id: &str, suffix: &str) -> bool {
    id.match_indices("gemini-3").any(|(i, m)| {
        let mut rest = &id[i + m.len()..];
        if let Some(after_dot) = rest.strip_prefix('.') {
            let digits = after_dot.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            rest = &after_dot[digits..];
        }
        rest.starts_with(suffix)
    })
}

/// The `thinkingConfig` for this call, `None` for non-reasoning models.
pub fn thinking_config(model: &Model, options: &StreamOptions) -> Option<Value> {
    if !model.reasoning {
        return None;
    }
    let family = Family::of(&model.id);
    let level = options
        .thinking()
        .map(|l| model.clamp_thinking_level(l))
        .filter(|l| *l != ThinkingLevel::Off);
    let Some(level) = level else {
        return Some(match family {
            Family::Gemini3Pro => json!({"thinkingLevel": "LOW"}),
            Family::Gemini3Flash | Family::Gemma4 => json!({"thinkingLevel": "MINIMAL"}),
            Family::Budget => json!({"thinkingBudget": 0}),
        });
    };
    let high = matches!(
        level,
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max
    );
    let named = match family {
        Family::Gemini3Pro => Some(if high || level == ThinkingLevel::Medium {
            "HIGH"
        } else {
            "LOW"
        }),
        Family::Gemma4 => Some(if high || level == ThinkingLevel::Medium {
            "HIGH"
        } else {
            "MINIMAL"
        }),
        Family::Gemini3Flash => Some(match level {
            ThinkingLevel::Minimal => "MINIMAL",
            ThinkingLevel::Low => "LOW",
            ThinkingLevel::Medium => "MEDIUM",
            _ => "HIGH",
        }),
        Family::Budget => None,
    };
    Some(match named {
        Some(level) => json!({"includeThoughts": true, "thinkingLevel": level}),
        None => json!({
            "includeThoughts": true,
            "thinkingBudget": budget(&model.id, level, &options.thinking_budgets),
        }),
    })
}

/// Token budget for `level`: the caller's override, else the per-model table, else `-1`
/// (dynamic).
fn budget(id: &str, level: ThinkingLevel, overrides: &ThinkingBudgets) -> i64 {
    let slot = match level {
        ThinkingLevel::Minimal => 0,
        ThinkingLevel::Low => 1,
        ThinkingLevel::Medium => 2,
        _ => 3,
    };
    let given = [
        overrides.minimal,
        overrides.low,
        overrides.medium,
        overrides.high,
    ][slot];
    if let Some(b) = given {
        return i64::try_from(b).unwrap_or(i64::MAX);
    }
    let table: [i64; 4] = if id.contains("2.5-pro") {
        [128, 2048, 8192, 32768]
    } else if id.contains("2.5-flash-lite") {
        [512, 2048, 8192, 24576]
    } else if id.contains("2.5-flash") {
        [128, 2048, 8192, 24576]
    } else {
        return -1;
    };
    table[slot]
}

/// The major Gemini version of `id` (`gemini-2.5-pro` → 2), `None` when the id does not
/// follow that pattern.
pub fn gemini_major(id: &str) -> Option<u32> {
    let rest = id.strip_prefix("gemini-")?;
    let rest = rest.strip_prefix("live-").unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_follow_the_spec_patterns() {
        assert_eq!(Family::of("gemini-3-pro-preview"), Family::Gemini3Pro);
        assert_eq!(Family::of("gemini-3.1-pro-preview"), Family::Gemini3Pro);
        assert_eq!(Family::of("Gemini-3-Flash-Preview"), Family::Gemini3Flash);
        assert_eq!(Family::of("gemma-4-27b-it"), Family::Gemma4);
        assert_eq!(Family::of("gemma4"), Family::Gemma4);
        assert_eq!(Family::of("gemini-2.5-pro"), Family::Budget);
        assert_eq!(Family::of("gemini-3.x-pro"), Family::Budget);
        assert_eq!(Family::of("gemini-30-pro"), Family::Budget);
    }

    #[test]
    fn budgets_come_from_overrides_then_tables() {
        let none = ThinkingBudgets::default();
        assert_eq!(budget("gemini-2.5-pro", ThinkingLevel::Minimal, &none), 128);
        assert_eq!(
            budget("gemini-2.5-flash-lite", ThinkingLevel::Minimal, &none),
            512
        );
        assert_eq!(
            budget("gemini-2.5-flash", ThinkingLevel::High, &none),
            24576
        );
        assert_eq!(budget("gemini-2.5-pro", ThinkingLevel::Xhigh, &none), 32768);
        assert_eq!(budget("gemini-2.0-flash", ThinkingLevel::Low, &none), -1);
        let given = ThinkingBudgets {
            low: Some(777),
            ..Default::default()
        };
        assert_eq!(budget("gemini-2.5-pro", ThinkingLevel::Low, &given), 777);
    }

    #[test]
    fn major_versions() {
        assert_eq!(gemini_major("gemini-2.5-flash"), Some(2));
        assert_eq!(gemini_major("gemini-live-3-flash"), Some(3));
        assert_eq!(gemini_major("gemini-10-pro"), Some(10));
        assert_eq!(gemini_major("gemma-4"), None);
    }
}
