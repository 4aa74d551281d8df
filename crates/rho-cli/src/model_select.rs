//! The initial model and thinking level (interfaces spec §6.5), as a pure function of the
//! flags, the model registry, which providers have credentials, the resumed session and the
//! settings. No files, no environment: everything arrives in [`SelectionInput`].
//!
//! Chain, first that applies: `--model` (with `--provider`) → the resumed session's model (if
//! known and authenticated) → the scoped models (`--models` / `enabledModels`: the saved
//! default if in scope, else the first) → settings `defaultProvider`/`defaultModel` → the
//! first authenticated model of the built-in per-provider default list → the first
//! authenticated model → no model (D7: rho has a real "no model" state).
//!
//! Exact references (`provider/id`, the session's and the settings' model) are looked up
//! alone; the whole model list is built only for patterns and the last fallback.

use std::cell::RefCell;
use std::collections::HashMap;

use rho_ai::catalog::select::{resolve_model, scope_models, split_thinking_suffix, ModelChoice};
use rho_ai::catalog::{is_builtin_provider, DEFAULT_MODELS};
use rho_ai::registry::ModelRegistry;
use rho_ai::{Model, ThinkingLevel};

/// What the selection looks at.
pub struct SelectionInput<'a> {
    /// Every known model (built-ins, refreshed catalogs, models.json, extensions).
    pub models: &'a ModelRegistry,
    /// Whether a provider has configured credentials (no commands run).
    pub has_auth: &'a dyn Fn(&str) -> bool,
    /// `--provider`.
    pub cli_provider: Option<&'a str>,
    /// `--model`.
    pub cli_model: Option<&'a str>,
    /// `--thinking`, already validated.
    pub cli_thinking: Option<ThinkingLevel>,
    /// `--models`, else settings `enabledModels` (`None` or empty: no scope).
    pub scope: Option<&'a [String]>,
    /// The resumed session's model `(provider, id)`, when the session has context.
    pub session_model: Option<(&'a str, &'a str)>,
    /// The resumed session's last `thinking_level_change`, if its branch has one.
    pub session_thinking: Option<ThinkingLevel>,
    /// Settings `defaultProvider` / `defaultModel`.
    pub default_model: Option<(&'a str, &'a str)>,
    /// Settings `defaultThinkingLevel` (already defaulted to `medium`).
    pub default_thinking: ThinkingLevel,
}

/// Where the model came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `--model`.
    Cli,
    /// The resumed session.
    Session,
    /// `--models` / `enabledModels`.
    Scope,
    /// Settings default.
    Settings,
    /// The per-provider default list.
    ProviderDefault,
    /// The first authenticated model.
    FirstAvailable,
    /// Nothing usable.
    None,
}

/// The outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The model, `None` when nothing is usable.
    pub model: Option<Model>,
    /// The thinking level in force, clamped to the model (`off` without one).
    pub thinking: ThinkingLevel,
    /// Where the model came from.
    pub source: Source,
    /// Non-fatal notes for stderr.
    pub warnings: Vec<String>,
}

/// A refused `--provider`/`--model`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    /// `--provider` names no known provider.
    #[error("Unknown provider \"{0}\". Use --list-models to see available providers/models.")]
    UnknownProvider(String),
    /// `--model` matched nothing.
    #[error("Model \"{0}\" not found. Use --list-models to see available models.")]
    ModelNotFound(String),
}

/// Resolves `--model` alone (also before credentials exist, since `--api-key` applies to its
/// provider: `usable` is then `None`). `Ok(None)` without `--model`. Many providers list the
/// same ids (pi's catalog has `gpt-5-mini` on Azure, OpenAI and OpenCode): when `usable` says
/// which providers have credentials, a pattern they match wins, as pi 1.6 lets credentials
/// break such ties.
pub fn resolve_cli_model(
    models: &ModelRegistry,
    usable: Option<&dyn Fn(&str) -> bool>,
    provider: Option<&str>,
    pattern: Option<&str>,
) -> Result<Option<ModelChoice>, SelectError> {
    let Some(pattern) = pattern else {
        return Ok(None);
    };
    if let Some(p) = provider {
        let known = is_builtin_provider(&p.to_lowercase())
            || models
                .provider_ids()
                .iter()
                .any(|id| id.eq_ignore_ascii_case(p));
        if !known {
            return Err(SelectError::UnknownProvider(p.to_string()));
        }
    }
    let pattern = match provider {
        Some(p) => strip_provider_prefix(pattern, p),
        None => pattern,
    };
    if let Some(choice) = exact_choice(models, provider, pattern) {
        return Ok(Some(choice));
    }
    let all = models.all();
    if let Some(usable) = usable {
        let available: Vec<Model> = all
            .iter()
            .filter(|m| usable(&m.provider))
            .cloned()
            .collect();
        if let Some(choice) = resolve_model(&available, provider, pattern) {
            return Ok(Some(choice));
        }
    }
    match resolve_model(&all, provider, pattern) {
        Some(choice) => Ok(Some(choice)),
        None => Err(SelectError::ModelNotFound(match provider {
            Some(p) => format!("{p}/{pattern}"),
            None => pattern.to_string(),
        })),
    }
}

/// A `provider/id` (or `--provider` and an id) naming a model exactly, found without building
/// the list; the matching rules give the same model for such a reference.
fn exact_choice(
    models: &ModelRegistry,
    provider: Option<&str>,
    pattern: &str,
) -> Option<ModelChoice> {
    let (pattern, thinking) = split_thinking_suffix(pattern.trim());
    let (provider, id) = match provider {
        Some(p) => (p, pattern),
        None => pattern.split_once('/')?,
    };
    let model = models.find(provider, id)?;
    Some(ModelChoice {
        model,
        thinking,
        warning: None,
    })
}

/// `--provider x --model x/id` is tolerated: the prefix is dropped.
fn strip_provider_prefix<'a>(pattern: &'a str, provider: &str) -> &'a str {
    match pattern.split_once('/') {
        Some((head, rest)) if head.eq_ignore_ascii_case(provider) => rest,
        _ => pattern,
    }
}

/// Runs the whole chain.
pub fn select(input: &SelectionInput) -> Result<Selection, SelectError> {
    let mut warnings = Vec::new();
    let (model, source, level_hint) = pick_model(input, &mut warnings)?;
    let requested = input
        .cli_thinking
        .or(level_hint)
        .or(input.session_thinking)
        .unwrap_or(input.default_thinking);
    let thinking = match &model {
        Some(m) => m.clamp_thinking_level(requested),
        None => ThinkingLevel::Off,
    };
    Ok(Selection {
        model,
        thinking,
        source,
        warnings,
    })
}

type Picked = (Option<Model>, Source, Option<ThinkingLevel>);

fn pick_model(input: &SelectionInput, warnings: &mut Vec<String>) -> Result<Picked, SelectError> {
    // Each provider's credentials are checked once.
    let checked: RefCell<HashMap<String, bool>> = RefCell::default();
    let has_auth = |provider: &str| {
        *checked
            .borrow_mut()
            .entry(provider.to_string())
            .or_insert_with(|| (input.has_auth)(provider))
    };
    let cli = resolve_cli_model(
        input.models,
        Some(&has_auth),
        input.cli_provider,
        input.cli_model,
    )?;
    if let Some(choice) = cli {
        warnings.extend(choice.warning);
        return Ok((Some(choice.model), Source::Cli, choice.thinking));
    }
    let registry = input.models;
    if let Some((provider, id)) = input.session_model {
        let found = registry.find(provider, id);
        match found {
            Some(m) if has_auth(&m.provider) => {
                return Ok((Some(m), Source::Session, None));
            }
            _ => {
                let reason = if found.is_some() {
                    "no API key available"
                } else {
                    "model no longer exists"
                };
                warnings.push(format!(
                    "Could not restore model {provider}/{id} ({reason})."
                ));
            }
        }
    }
    if let Some(patterns) = input.scope.filter(|s| !s.is_empty()) {
        let available: Vec<Model> = registry
            .all()
            .iter()
            .filter(|m| has_auth(&m.provider))
            .cloned()
            .collect();
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        let (scoped, scope_warnings) = scope_models(&available, &refs);
        warnings.extend(scope_warnings);
        let saved = input.default_model.and_then(|(p, id)| {
            scoped
                .iter()
                .find(|c| c.model.provider == p && c.model.id == id)
        });
        if let Some(choice) = saved.or(scoped.first()) {
            return Ok((Some(choice.model.clone()), Source::Scope, choice.thinking));
        }
    }
    if let Some((p, id)) = input.default_model {
        if let Some(m) = registry.find(p, id) {
            return Ok((Some(m), Source::Settings, None));
        }
    }
    let preferred = DEFAULT_MODELS
        .iter()
        .filter(|(p, _)| has_auth(p))
        .find_map(|(p, id)| registry.find(p, id));
    if let Some(m) = preferred {
        return Ok((Some(m), Source::ProviderDefault, None));
    }
    if registry.provider_ids().iter().any(|p| has_auth(p)) {
        let all = registry.all();
        if let Some(m) = all.iter().find(|m| has_auth(&m.provider)) {
            return Ok((Some(m.clone()), Source::FirstAvailable, None));
        }
    }
    Ok((None, Source::None, None))
}

#[cfg(test)]
#[path = "model_select_tests.rs"]
mod tests;
