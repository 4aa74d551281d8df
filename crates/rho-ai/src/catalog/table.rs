//! The shape of the generated catalog tables (`generated/`, written by `scripts/gen-catalog`)
//! and their conversion into [`Model`] records.
//!
//! Rows are `const` data: nothing is parsed or allocated until a model is looked up, and then
//! only that model (or, for the whole list, each model once).
//!
//! The ~1,700 rows hold no pointers. rho is a position-independent executable, so every
//! pointer stored in static data (a `&'static str`, a slice, a `fn`) is a relocation the
//! dynamic loader rewrites at every start, and each page holding one is copied into the
//! process's own memory. With a pointer per string, map and function in each row that was
//! ~20,000 relocations and ~0.7 MB of private memory per process, paid by `rho --version`.
//! So a row names its strings by [`Span`] into its provider's one `STRINGS` text, and its
//! thinking map, compat flags, headers, input limits and price tiers by index into the
//! [`Shared`] tables: only those few tables and the provider rows hold pointers.

use std::collections::BTreeMap;
use std::ops::Range;

use serde_json::Value;

use crate::model::{CostTier, InputKind, Model, ModelCompat, ModelCost, PromptCache};
pub(crate) use crate::model::{ImageLimits, ImageResize, InputLimits};

/// A thinking-level map: level name and its wire value (`None`: unsupported).
pub(crate) type LevelMap = &'static [(&'static str, Option<&'static str>)];
/// Static request headers.
pub(crate) type Headers = &'static [(&'static str, &'static str)];
/// Long-prompt price tiers: the prompt size they start above and their prices.
pub(crate) type Tiers = &'static [(u64, Rates)];

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
    /// Every string its rows name, once (see [`Span`]).
    strings: &'static str,
    models: &'static [ModelRow],
    /// The maps, flags and limits its rows name by index.
    shared: &'static Shared,
    /// How many chat models pi's data lists for the provider (checked against `models`).
    pub source_count: usize,
}

#[allow(clippy::too_many_arguments)]
pub(crate) const fn provider(
    id: &'static str,
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
    strings: &'static str,
    models: &'static [ModelRow],
    shared: &'static Shared,
    source_count: usize,
) -> ProviderRow {
    ProviderRow {
        info: ProviderInfo {
            id,
            name,
            api,
            base_url,
        },
        strings,
        models,
        shared,
        source_count,
    }
}

impl ProviderRow {
    /// Its model `id`, built alone.
    pub(crate) fn find(&self, id: &str) -> Option<Model> {
        let row = self
            .models
            .iter()
            .find(|row| self.text(row.id) == Some(id))?;
        Some(self.build(row))
    }

    /// Its models, each built as it is reached.
    pub(crate) fn models(&self) -> impl Iterator<Item = Model> + '_ {
        self.models.iter().map(|row| self.build(row))
    }

    /// The text of `span`; `None` only if the generated tables are broken (a test checks
    /// every span of every row).
    fn text(&self, span: Span) -> Option<&'static str> {
        self.strings.get(span.range())
    }

    fn string(&self, span: Span) -> String {
        self.text(span).unwrap_or_default().to_owned()
    }

    /// `row` as a [`Model`] of this provider.
    fn build(&self, row: &ModelRow) -> Model {
        let shared = self.shared;
        let input = if row.flags & IMG != 0 {
            vec![InputKind::Text, InputKind::Image]
        } else {
            vec![InputKind::Text]
        };
        let headers = row.headers.and_then(|i| shared.headers.get(usize::from(i)));
        Model {
            id: self.string(row.id),
            name: self.string(row.name),
            api: self.string(row.api),
            provider: self.info.id.into(),
            base_url: self.string(row.base_url),
            reasoning: row.flags & R != 0,
            thinking_level_map: row
                .levels
                .and_then(|i| shared.levels.get(usize::from(i)))
                .map(|levels| {
                    levels
                        .iter()
                        .map(|(level, value)| (level.to_string(), value.map(String::from)))
                        .collect()
                }),
            input,
            cost: row.cost.build(shared),
            context_window: row.context_window,
            max_tokens: row.max_tokens,
            headers: headers.filter(|h| !h.is_empty()).map(|pairs| {
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>()
            }),
            compat: row
                .compat
                .and_then(|i| shared.compat.get(usize::from(i)))
                .map(|build| build()),
            input_limits: row
                .limits
                .and_then(|i| shared.limits.get(usize::from(i)))
                .copied(),
            prompt_cache: row.prompt_cache,
            ..Model::default()
        }
    }

    /// Every span of every row resolves to text (the generator's offsets are right).
    #[cfg(test)]
    pub(crate) fn spans_resolve(&self) -> bool {
        self.models.iter().all(|row| {
            [row.id, row.name, row.api, row.base_url]
                .into_iter()
                .all(|span| self.text(span).is_some())
        })
    }
}

/// Values many rows share, which rows name by index: the only catalog data besides the
/// provider rows that holds pointers (a few hundred relocations for all providers).
pub(crate) struct Shared {
    pub levels: &'static [LevelMap],
    pub compat: &'static [fn() -> ModelCompat],
    pub headers: &'static [Headers],
    pub limits: &'static [InputLimits],
    pub tiers: &'static [Tiers],
}

/// A string of a row: its byte offset and length in the provider's `STRINGS`.
#[derive(Clone, Copy)]
pub(crate) struct Span {
    start: u32,
    len: u16,
}

pub(crate) const fn s(start: u32, len: u16) -> Span {
    Span { start, len }
}

impl Span {
    fn range(self) -> Range<usize> {
        let start = self.start as usize;
        start..start + usize::from(self.len)
    }
}

/// Prices per million tokens: input, output, cache read, cache write.
#[derive(Clone, Copy)]
pub(crate) struct Rates([f64; 4]);

/// A model's prices and long-prompt tiers (an index into [`Shared::tiers`]).
pub(crate) struct CostRow {
    rates: Rates,
    tiers: Option<u8>,
}

pub(crate) const fn c(input: f64, output: f64, cache_read: f64, cache_write: f64) -> CostRow {
    CostRow {
        rates: Rates([input, output, cache_read, cache_write]),
        tiers: None,
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
    pub(crate) const fn tiers(mut self, tiers: u8) -> Self {
        self.tiers = Some(tiers);
        self
    }

    fn build(&self, shared: &Shared) -> ModelCost {
        let [input, output, cache_read, cache_write] = self.rates.0;
        let tiers = self
            .tiers
            .and_then(|i| shared.tiers.get(usize::from(i)))
            .copied()
            .unwrap_or_default();
        ModelCost {
            input,
            output,
            cache_read,
            cache_write,
            tiers: tiers
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

/// One model of the catalog: spans into its provider's strings, indices into [`Shared`].
pub(crate) struct ModelRow {
    id: Span,
    name: Span,
    api: Span,
    base_url: Span,
    flags: u8,
    context_window: u64,
    max_tokens: u64,
    cost: CostRow,
    levels: Option<u8>,
    compat: Option<u8>,
    headers: Option<u8>,
    limits: Option<u8>,
    prompt_cache: Option<PromptCache>,
}

#[allow(clippy::too_many_arguments)]
pub(crate) const fn m(
    id: Span,
    name: Span,
    api: Span,
    base_url: Span,
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
        headers: None,
        limits: None,
        prompt_cache: None,
    }
}

impl ModelRow {
    pub(crate) const fn levels(mut self, levels: u8) -> Self {
        self.levels = Some(levels);
        self
    }
    pub(crate) const fn compat(mut self, compat: u8) -> Self {
        self.compat = Some(compat);
        self
    }
    pub(crate) const fn headers(mut self, headers: u8) -> Self {
        self.headers = Some(headers);
        self
    }
    pub(crate) const fn limits(mut self, limits: u8) -> Self {
        self.limits = Some(limits);
        self
    }
    pub(crate) const fn prompt_cache(mut self, short: Option<u64>, long: Option<u64>) -> Self {
        self.prompt_cache = Some(PromptCache { short, long });
        self
    }
}

/// A JSON-valued compat flag of the tables (written by the script, so always valid JSON).
pub(crate) fn json(raw: &str) -> Option<Value> {
    serde_json::from_str(raw).ok()
}
