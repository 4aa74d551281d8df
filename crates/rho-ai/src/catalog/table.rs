//! The shape of the generated catalog tables (`generated/`, written by `scripts/gen-catalog`)
//! and their conversion into [`Model`] records.
//!
//! Rows are `const` data: nothing is parsed or allocated until a model is looked up, and then
//! only that model (or, for the whole list, each model once).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::{CostTier, InputKind, Model, ModelCompat, ModelCost, PromptCache};
pub(crate) use crate::model::{ImageLimits, ImageResize, InputLimits};

/// A thinking-level map: level name and its wire value (`None`: unsupported).
pub(crate) type LevelMap = &'static [(&'static str, Option<&'static str>)];
/// Static request headers.
pub(crate) type Headers = &'static [(&'static str, &'static str)];

/// Row flag: the model reasons.
pub(crate) const R: u8 = 1;
/// Row flag: the model does not reason.
pub(crate) const NR: u8 = 0;
/// Row flag: the model accepts images.
pub(crate) const IMG: u8 = 2;

/// Where the tables come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The npm package the script read.
    pub package: &'static str,
    /// Its version.
    pub version: &'static str,
    /// When pi generated that catalog (ISO 8601); refreshed catalogs older than this are
    /// not used, as in pi.
    pub generated_at: &'static str,
}

/// A built-in provider entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderInfo {
    /// Provider id (`anthropic`, `groq`, ...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The API most of its models use (custom models.json models default to it).
    pub api: &'static str,
    /// Endpoint base URL (`{PLACEHOLDER}`s are filled from the environment at request time).
    pub base_url: &'static str,
}

/// A provider and its rows.
pub(crate) struct ProviderRow {
    pub info: ProviderInfo,
    pub models: &'static [ModelRow],
    /// How many chat models pi's data lists for the provider (checked against `models`).
    pub source_count: usize,
}

pub(crate) const fn provider(
    id: &'static str,
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
    models: &'static [ModelRow],
    source_count: usize,
) -> ProviderRow {
    ProviderRow {
        info: ProviderInfo {
            id,
            name,
            api,
            base_url,
        },
        models,
        source_count,
    }
}

/// Prices per million tokens: input, output, cache read, cache write.
#[derive(Clone, Copy)]
pub(crate) struct Rates([f64; 4]);

/// A model's prices and long-prompt tiers.
pub(crate) struct CostRow {
    rates: Rates,
    tiers: &'static [(u64, Rates)],
}

pub(crate) const fn c(input: f64, output: f64, cache_read: f64, cache_write: f64) -> CostRow {
    CostRow {
        rates: Rates([input, output, cache_read, cache_write]),
        tiers: &[],
    }
}

pub(crate) const fn tier(
    above: u64,
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write: f64,
) -> (u64, Rates) {
    (above, Rates([input, output, cache_read, cache_write]))
}

impl CostRow {
    pub(crate) const fn tiers(mut self, tiers: &'static [(u64, Rates)]) -> Self {
        self.tiers = tiers;
        self
    }

    fn build(&self) -> ModelCost {
        let [input, output, cache_read, cache_write] = self.rates.0;
        ModelCost {
            input,
            output,
            cache_read,
            cache_write,
            tiers: self
                .tiers
                .iter()
                .map(
                    |(above, Rates([input, output, cache_read, cache_write]))| CostTier {
                        input_tokens_above: *above,
                        input: *input,
                        output: *output,
                        cache_read: *cache_read,
                        cache_write: *cache_write,
                    },
                )
                .collect(),
        }
    }
}

/// One model of the catalog.
pub(crate) struct ModelRow {
    pub id: &'static str,
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
    flags: u8,
    context_window: u64,
    max_tokens: u64,
    cost: CostRow,
    levels: Option<LevelMap>,
    compat: Option<fn() -> ModelCompat>,
    headers: Headers,
    limits: Option<&'static InputLimits>,
    prompt_cache: Option<PromptCache>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) const fn m(
    id: &'static str,
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
    flags: u8,
    context_window: u64,
    max_tokens: u64,
    cost: CostRow,
) -> ModelRow {
    ModelRow {
        id,
        name,
        api,
        base_url,
        flags,
        context_window,
        max_tokens,
        cost,
        levels: None,
        compat: None,
        headers: &[],
        limits: None,
        prompt_cache: None,
    }
}

impl ModelRow {
    pub(crate) const fn levels(mut self, levels: LevelMap) -> Self {
        self.levels = Some(levels);
        self
    }
    pub(crate) const fn compat(mut self, compat: fn() -> ModelCompat) -> Self {
        self.compat = Some(compat);
        self
    }
    pub(crate) const fn headers(mut self, headers: Headers) -> Self {
        self.headers = headers;
        self
    }
    pub(crate) const fn limits(mut self, limits: &'static InputLimits) -> Self {
        self.limits = Some(limits);
        self
    }
    pub(crate) const fn prompt_cache(mut self, short: Option<u64>, long: Option<u64>) -> Self {
        self.prompt_cache = Some(PromptCache { short, long });
        self
    }

    /// The row as a [`Model`] of `provider`.
    pub(crate) fn build(&self, provider: &str) -> Model {
        let input = if self.flags & IMG != 0 {
            vec![InputKind::Text, InputKind::Image]
        } else {
            vec![InputKind::Text]
        };
        let strings = |pairs: Headers| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        Model {
            id: self.id.into(),
            name: self.name.into(),
            api: self.api.into(),
            provider: provider.into(),
            base_url: self.base_url.into(),
            reasoning: self.flags & R != 0,
            thinking_level_map: self.levels.map(|levels| {
                levels
                    .iter()
                    .map(|(level, value)| (level.to_string(), value.map(String::from)))
                    .collect()
            }),
            input,
            cost: self.cost.build(),
            context_window: self.context_window,
            max_tokens: self.max_tokens,
            headers: (!self.headers.is_empty()).then(|| strings(self.headers)),
            compat: self.compat.map(|build| build()),
            input_limits: self.limits.copied(),
            prompt_cache: self.prompt_cache,
            ..Model::default()
        }
    }
}

/// A JSON-valued compat flag of the tables (written by the script, so always valid JSON).
pub(crate) fn json(raw: &str) -> Option<Value> {
    serde_json::from_str(raw).ok()
}
