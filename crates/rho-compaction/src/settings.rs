//! The compaction and branch-summary settings (`compaction.*`, `branchSummary.*` in
//! settings.json) with pi's defaults, and the threshold rule built on them (COMP-1, COMP-3).

use serde::{Deserialize, Serialize};

/// `compaction.*` settings. Missing keys take pi's defaults, so a partial settings object
/// deserializes to what pi would use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionSettings {
    /// Whether automatic compaction runs at all (default true).
    pub enabled: bool,
    /// Tokens kept free below the context window; also sizes the summary (default 16384).
    pub reserve_tokens: u64,
    /// How many recent tokens survive a compaction verbatim (default 20000).
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

impl CompactionSettings {
    /// `contextWindow − reserveTokens`. Signed: pi has no guard for a window smaller than the
    /// reserve (or 0), and such a threshold makes every usage compact.
    pub fn threshold(&self, context_window: u64) -> i128 {
        i128::from(context_window) - i128::from(self.reserve_tokens)
    }

    /// COMP-3: compact ⇔ enabled ∧ `context_tokens > contextWindow − reserveTokens` (strict).
    pub fn should_compact(&self, context_tokens: u64, context_window: u64) -> bool {
        self.enabled && i128::from(context_tokens) > self.threshold(context_window)
    }

    /// The summary's output budget, ⌊0.8 × reserveTokens⌋ (COMP-19).
    pub fn summary_max_tokens(&self) -> u64 {
        self.reserve_tokens * 8 / 10
    }

    /// The split-turn prefix summary's output budget, ⌊0.5 × reserveTokens⌋ (COMP-19).
    pub fn turn_prefix_max_tokens(&self) -> u64 {
        self.reserve_tokens / 2
    }
}

/// `branchSummary.*` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BranchSummarySettings {
    /// Tokens kept free when sizing the branch transcript (default 16384).
    pub reserve_tokens: u64,
    /// Skip asking the user whether to summarize (default false; UI only).
    pub skip_prompt: bool,
}

impl Default for BranchSummarySettings {
    fn default() -> Self {
        Self {
            reserve_tokens: 16_384,
            skip_prompt: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comp_1_defaults_match_pi() {
        let s: CompactionSettings = serde_json::from_str("{}").expect("empty object parses");
        assert_eq!(s, CompactionSettings::default());
        assert!(s.enabled);
        assert_eq!((s.reserve_tokens, s.keep_recent_tokens), (16_384, 20_000));
        let b: BranchSummarySettings = serde_json::from_str("{}").expect("parses");
        assert_eq!(b.reserve_tokens, 16_384);
    }

    #[test]
    fn partial_object_keeps_other_defaults() {
        let s: CompactionSettings =
            serde_json::from_str(r#"{"reserveTokens":100}"#).expect("parses");
        assert_eq!(s.reserve_tokens, 100);
        assert_eq!(s.keep_recent_tokens, 20_000);
        assert!(s.enabled);
    }

    #[test]
    fn comp_3_threshold_is_window_minus_reserve_and_strict() {
        let s = CompactionSettings::default();
        assert_eq!(s.threshold(128_000), 128_000 - 16_384);
        assert!(!s.should_compact(128_000 - 16_384, 128_000));
        assert!(s.should_compact(128_000 - 16_384 + 1, 128_000));
    }

    #[test]
    fn verified_small_reserve_case() {
        let s = CompactionSettings {
            reserve_tokens: 127_990,
            ..Default::default()
        };
        assert!(s.should_compact(105, 128_000));
        assert!(!s.should_compact(10, 128_000));
    }

    #[test]
    fn zero_window_has_no_guard_and_disabled_never_compacts() {
        let s = CompactionSettings::default();
        assert!(s.should_compact(0, 0));
        let off = CompactionSettings {
            enabled: false,
            ..Default::default()
        };
        assert!(!off.should_compact(1_000_000, 128_000));
    }

    #[test]
    fn summary_budgets() {
        let s = CompactionSettings::default();
        assert_eq!(s.summary_max_tokens(), 13_107);
        assert_eq!(s.turn_prefix_max_tokens(), 8_192);
    }
}
