//! The built-in model catalog: pi 1.6's providers and chat models, with pi's ids.
//!
//! The rows are generated from pi's published catalog package by `scripts/gen-catalog` into
//! `generated/` as `const` tables, so the binary parses nothing at start-up and builds a
//! [`Model`] only when one is asked for (and the rows hold no pointers, so the loader does not
//! relocate them either: see `table`): [`find_builtin`] builds one model, the whole list
//! ([`builtin_models`]) is built on first use. Refreshed catalogs (models-store.json) and
//! models.json add to and override this (see [`crate::registry`]). Selection by user patterns
//! (`--model`, `--models`, `--list-models`) lives in [`select`] and works on any model list.

mod generated;
pub mod select;
mod table;

use std::sync::LazyLock;

pub use generated::DEFAULT_MODELS;
pub use table::{ProviderInfo, Source};

use crate::model::Model;

/// Static headers GitHub Copilot requires on every request, token exchange included (the
/// same ones pi's catalog gives each Copilot model).
pub(crate) const COPILOT_HEADERS: &[(&str, &str)] = &[
    ("User-Agent", "GitHubCopilotChat/0.35.0"),
    ("Editor-Version", "vscode/1.107.0"),
    ("Editor-Plugin-Version", "copilot-chat/0.35.0"),
    ("Copilot-Integration-Id", "vscode-chat"),
];

static MODELS: LazyLock<Vec<Model>> = LazyLock::new(|| {
    generated::PROVIDERS
        .iter()
        .flat_map(|p| p.models())
        .collect()
});

/// Where the catalog comes from (pi's package, its version, when pi generated the data).
pub fn source() -> Source {
    generated::SOURCE
}

/// Every built-in model, grouped by provider in catalog order (built on first use).
pub fn builtin_models() -> &'static [Model] {
    &MODELS
}

/// The built-in model `id` of `provider` (exact, case-sensitive ids as the APIs expect), from
/// the whole list: see [`find_builtin`] to build just that one.
pub fn builtin_model(provider: &str, id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.provider == provider && m.id == id)
}

/// The built-in models of `provider`.
pub fn builtin_models_for(provider: &str) -> impl Iterator<Item = &'static Model> + '_ {
    MODELS.iter().filter(move |m| m.provider == provider)
}

/// The built-in model `id` of `provider`, built alone (start-up looks one model up without
/// building the other ~1,700).
pub fn find_builtin(provider: &str, id: &str) -> Option<Model> {
    provider_row(provider)?.find(id)
}

/// The built-in models of `provider`, freshly built; `None` for a provider not built in.
pub fn provider_models(provider: &str) -> Option<Vec<Model>> {
    Some(provider_row(provider)?.models().collect())
}

/// The built-in provider `id`, if any.
pub fn provider_info(id: &str) -> Option<&'static ProviderInfo> {
    provider_row(id).map(|p| &p.info)
}

/// The generated row of built-in provider `id`.
fn provider_row(id: &str) -> Option<&'static table::ProviderRow> {
    generated::PROVIDERS.iter().find(|p| p.info.id == id)
}

/// Every built-in provider, in pi's order.
pub fn providers() -> impl Iterator<Item = &'static ProviderInfo> {
    generated::PROVIDERS.iter().map(|p| &p.info)
}

/// Whether `id` names a built-in provider.
pub fn is_builtin_provider(id: &str) -> bool {
    provider_info(id).is_some()
}

/// The preferred model id of `provider` for fallback selection, if it has one.
pub fn default_model_id(provider: &str) -> Option<&'static str> {
    DEFAULT_MODELS
        .iter()
        .find(|(p, _)| *p == provider)
        .map(|(_, id)| *id)
}

/// Each provider with the number of chat models pi's catalog data lists for it, as the
/// generator counted them (what the tables must hold).
pub fn source_counts() -> impl Iterator<Item = (&'static str, usize)> {
    generated::PROVIDERS
        .iter()
        .map(|p| (p.info.id, p.source_count))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
