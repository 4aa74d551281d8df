//! The initial model and thinking level (interfaces spec §6.5), as a pure function of the
//! flags, the model registry, which providers have credentials, the resumed session and the
//! settings. No files, no environment: everything arrives in [`SelectionInput`].
//!
//! Chain, first that applies: `--model` (with `--provider`) → the resumed session's model (if
//! known and authenticated) → the scoped models (`--models` / `enabledModels`: the saved
//! default if in scope, else the first) → settings `defaultProvider`/`defaultModel` → the
//! first authenticated model of the built-in per-provider default list → the first
//! authenticated model → no model (D7: rho has a real "no model" state).

use rho_ai::catalog::select::{resolve_model, scope_models};
use rho_ai::catalog::{is_builtin_provider, DEFAULT_MODELS};
use rho_ai::{Model, ThinkingLevel};

/// What the selection looks at.
pub struct SelectionInput<'a> {
    /// Every known model (built-ins merged with models.json).
    pub models: &'a [Model],
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

/// Resolves `--model` alone (used before credentials exist, since `--api-key` applies to its
/// provider). `Ok(None)` without `--model`.
pub fn resolve_cli_model(
    models: &[Model],
    provider: Option<&str>,
    pattern: Option<&str>,
) -> Result<Option<rho_ai::catalog::select::ModelChoice>, SelectError> {
    let Some(pattern) = pattern else {
        return Ok(None);
    };
    if let Some(p) = provider {
        let known = is_builtin_provider(&p.to_lowercase())
            || models.iter().any(|m| m.provider.eq_ignore_ascii_case(p));
        if !known {
            return Err(SelectError::UnknownProvider(p.to_string()));
        }
    }
    let pattern = match provider {
        Some(p) => strip_provider_prefix(pattern, p),
        None => pattern,
    };
    match resolve_model(models, provider, pattern) {
        Some(choice) => Ok(Some(choice)),
        None => Err(SelectError::ModelNotFound(match provider {
            Some(p) => format!("{p}/{pattern}"),
            None => pattern.to_string(),
        })),
    }
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
    if let Some(choice) = resolve_cli_model(input.models, input.cli_provider, input.cli_model)? {
        warnings.extend(choice.warning);
        return Ok((Some(choice.model), Source::Cli, choice.thinking));
    }
    if let Some((provider, id)) = input.session_model {
        let found = find_exact(input.models, provider, id);
        match found {
            Some(m) if (input.has_auth)(&m.provider) => {
                return Ok((Some(m.clone()), Source::Session, None));
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
    let available: Vec<Model> = input
        .models
        .iter()
        .filter(|m| (input.has_auth)(&m.provider))
        .cloned()
        .collect();
    if let Some(patterns) = input.scope.filter(|s| !s.is_empty()) {
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
        if let Some(m) = find_exact(input.models, p, id) {
            return Ok((Some(m.clone()), Source::Settings, None));
        }
    }
    let preferred = DEFAULT_MODELS
        .iter()
        .find_map(|(p, id)| available.iter().find(|m| m.provider == *p && m.id == *id));
    if let Some(m) = preferred {
        return Ok((Some(m.clone()), Source::ProviderDefault, None));
    }
    if let Some(m) = available.into_iter().next() {
        return Ok((Some(m), Source::FirstAvailable, None));
    }
    Ok((None, Source::None, None))
}

fn find_exact<'a>(models: &'a [Model], provider: &str, id: &str) -> Option<&'a Model> {
    models.iter().find(|m| m.provider == provider && m.id == id)
}

#[cfg(test)]
#[path = "model_select_tests.rs"]
mod tests;
