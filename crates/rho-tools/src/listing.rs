//! The common ending of `grep`, `find` and `ls`: a 50 KiB head cut, then notices in one bracket
//! after a blank line, and details naming each limit that was hit.

use rho_agent::ToolOutput;
use rho_protocol::ContentBlock;
use serde_json::{Map, Value};

use crate::truncate::{format_size, truncate_head, DEFAULT_MAX_BYTES};

/// A result-count limit that was reached.
pub(crate) struct LimitNotice {
    /// The notice text.
    pub text: String,
    /// The details key (`matchLimitReached`, `resultLimitReached`, `entryLimitReached`).
    pub key: &'static str,
    /// The limit, stored under `key`.
    pub limit: usize,
}

/// A notice that follows the byte-limit notice (grep's cut lines).
pub(crate) struct ExtraNotice {
    /// The notice text.
    pub text: String,
    /// The details key.
    pub key: &'static str,
    /// The details value.
    pub value: Value,
}

/// Cuts `raw` to 50 KiB and appends the notices.
pub(crate) fn finish_listing(
    raw: &str,
    limit: Option<LimitNotice>,
    extra: Vec<ExtraNotice>,
) -> ToolOutput {
    let t = truncate_head(raw, usize::MAX, DEFAULT_MAX_BYTES);
    let mut notices = Vec::new();
    let mut details = Map::new();
    if let Some(limit) = limit {
        notices.push(limit.text);
        details.insert(limit.key.into(), Value::from(limit.limit));
    }
    if t.truncated {
        notices.push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
        details.insert(
            "truncation".into(),
            serde_json::to_value(&t).unwrap_or_default(),
        );
    }
    for e in extra {
        notices.push(e.text);
        details.insert(e.key.into(), e.value);
    }
    let mut text = t.content;
    if !notices.is_empty() {
        text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    }
    ToolOutput {
        content: vec![ContentBlock::text(text)],
        details: (!details.is_empty()).then_some(Value::Object(details)),
    }
}
