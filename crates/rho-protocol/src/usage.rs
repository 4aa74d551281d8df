//! Token usage, cost and stop reasons.

use serde::{Deserialize, Serialize};

use crate::model::ModelCost;

/// Cost in USD, split like [`Usage`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Uncached input.
    pub input: f64,
    /// Output (incl. reasoning).
    pub output: f64,
    /// Cache hits.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
    /// Best total known: the billed cost when the provider reports one, else the sum of the
    /// above.
    pub total: f64,
    /// pi 1.x: `true` when `total` is the provider's billed cost rather than the catalog
    /// estimate. Kept as read (absent means `false`) so sessions round-trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_from_provider: Option<bool>,
}

/// Token counts of one reply. `input` excludes cache reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Uncached prompt tokens.
    pub input: u64,
    /// Output tokens, reasoning included.
    pub output: u64,
    /// Prompt tokens served from cache.
    pub cache_read: u64,
    /// Prompt tokens written to cache.
    pub cache_write: u64,
    /// pi 1.x: the part of `cache_write` written with one-hour retention.
    #[serde(
        default,
        rename = "cacheWrite1h",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_write_1h: Option<u64>,
    /// pi 1.x: reasoning tokens, already counted in `output`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    /// All of the above.
    pub total_tokens: u64,
    /// USD cost.
    #[serde(default)]
    pub cost: Cost,
}

impl Usage {
    /// Fills `total_tokens` and `cost` from the token fields and the model's prices
    /// (USD per million tokens; a long prompt may fall in a price tier). The total is then the
    /// catalog's estimate, which pi 1.x records as `totalFromProvider: false`.
    pub fn compute_cost(&mut self, prices: &ModelCost) {
        self.total_tokens = self.input + self.output + self.cache_read + self.cache_write;
        let [input, output, cache_read, cache_write] =
            prices.rates_for(self.input + self.cache_read + self.cache_write);
        let per = |tokens: u64, price: f64| price / 1e6 * tokens as f64;
        self.cost.input = per(self.input, input);
        self.cost.output = per(self.output, output);
        self.cost.cache_read = per(self.cache_read, cache_read);
        self.cost.cache_write = per(self.cache_write, cache_write);
        self.cost.total =
            self.cost.input + self.cost.output + self.cost.cache_read + self.cost.cache_write;
        self.cost.total_from_provider = Some(false);
    }
}

/// Why a reply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Normal end.
    #[default]
    Stop,
    /// Hit the max-token limit.
    Length,
    /// Ended with tool calls; the loop continues.
    ToolUse,
    /// Provider or transport failure.
    Error,
    /// The user aborted.
    Aborted,
    /// pi 1.x: the provider deferred the response (see the message's `deferred` handle).
    Deferred,
}

impl StopReason {
    /// The wire name (`stop`, `length`, `toolUse`, `error`, `aborted`, `deferred`).
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::ToolUse => "toolUse",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
            StopReason::Deferred => "deferred",
        }
    }
}
