//! Switching models and thinking levels the way pi's `set_model`, `cycle_model`,
//! `set_thinking_level` and `cycle_thinking_level` do, with their persisted defaults. RPC
//! commands and the interactive mode's /model, /thinking, Ctrl+P and Shift+Tab share it. It
//! chooses from the session's model registry, loaded once at startup.

use std::sync::Arc;

use rho_ai::catalog::select::{scope_models, ModelChoice};
use rho_ai::{Model, ThinkingLevel};
use serde_json::Value;

use super::{AgentSession, AuthStatus, SessionError};

/// The session plus the model registry it chooses from. Cheap to clone.
#[derive(Clone)]
pub struct ModelControl {
    session: AgentSession,
    /// Every known model (built on first use); availability is checked per call.
    models: rho_ai::ModelList,
    /// `--models` (else settings `enabledModels`) scope, in pattern order; /scoped-models
    /// changes it.
    scoped: Arc<std::sync::Mutex<Vec<ModelChoice>>>,
}

/// A thinking level name pi does not know; the text is pi's `--thinking` error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid thinking level \"{0}\". Valid values: {names}", names = level_names())]
pub struct InvalidThinkingLevel(pub String);

fn level_names() -> String {
    let names: Vec<_> = ThinkingLevel::ALL.iter().map(|l| l.as_str()).collect();
    names.join(", ")
}

/// What a model cycle landed on.
#[derive(Debug, Clone)]
pub struct Cycled {
    /// The new model.
    pub model: Model,
    /// The thinking level after the switch.
    pub thinking_level: ThinkingLevel,
    /// Whether the cycle went through the `--models` scope.
    pub is_scoped: bool,
}

impl ModelControl {
    /// Control over `session`, choosing from its registry, cycling through `patterns` (the
    /// `--models` flag), else the settings' `enabledModels`.
    pub fn new(session: AgentSession, patterns: Option<Vec<String>>) -> Self {
        let patterns =
            patterns.unwrap_or_else(|| session.with_settings(|s| s.string_list("enabledModels")));
        let control = Self {
            models: session.model_list(),
            session,
            scoped: Arc::default(),
        };
        control.set_scope(&patterns);
        control
    }

    /// Replaces the cycling scope with the available models `patterns` name (`provider/id`,
    /// globs, `:level` suffixes; pi 1.6 matches them against the available models, so an id
    /// several providers list picks the one with credentials); empty: no scope.
    pub fn set_scope(&self, patterns: &[String]) {
        let refs: Vec<&str> = patterns.iter().map(String::as_str).collect();
        // Without patterns there is nothing to match, and no reason to build the list.
        let scoped = match refs.is_empty() {
            true => Vec::new(),
            false => scope_models(&self.available(), &refs).0,
        };
        *self.scoped.lock().unwrap_or_else(|p| p.into_inner()) = scoped;
    }

    /// `provider/id` of the scoped models, in order; `None` without a scope.
    pub fn scope_ids(&self) -> Option<Vec<String>> {
        let scoped = self.scoped.lock().unwrap_or_else(|p| p.into_inner());
        (!scoped.is_empty()).then(|| {
            scoped
                .iter()
                .map(|c| format!("{}/{}", c.model.provider, c.model.id))
                .collect()
        })
    }

    /// Models whose provider has credentials, in catalog order (each provider's credentials
    /// are checked once).
    pub fn available(&self) -> Vec<Model> {
        let mut checked: std::collections::HashMap<&str, bool> = Default::default();
        let models = self.models.get();
        models
            .iter()
            .filter(|m| {
                *checked
                    .entry(m.provider.as_str())
                    .or_insert_with(|| self.session.auth_status(&m.provider) != AuthStatus::Missing)
            })
            .cloned()
            .collect()
    }

    /// Every known model, with or without credentials (for /login's provider list).
    pub fn all(&self) -> Arc<Vec<Model>> {
        self.models.get()
    }

    /// Sets the model with set_model's side effects: persisted default, and pi 1.x's
    /// thinking rule: `level`, else the model's `modelThinkingLevels` entry, else the
    /// settings' `defaultThinkingLevel` when set, else the current level (clamped).
    pub async fn switch_model(
        &self,
        model: Model,
        level: Option<ThinkingLevel>,
    ) -> Result<(), SessionError> {
        self.select_model(model, level, true).await
    }

    /// [`ModelControl::switch_model`], saving the model as the default (`defaultProvider`,
    /// `defaultModel`) only when `persist` (pi 1.6's /model: Enter is for this session, Ctrl+S
    /// sets the default).
    pub async fn select_model(
        &self,
        model: Model,
        level: Option<ThinkingLevel>,
        persist: bool,
    ) -> Result<(), SessionError> {
        let s = &self.session;
        let wanted = level
            .or_else(|| {
                s.with_settings(|st| {
                    st.model_thinking_level(&model.provider, &model.id)
                        .or_else(|| st.chosen_thinking_level())
                })
            })
            .unwrap_or_else(|| s.thinking_level());
        s.set_model(model.clone()).await?;
        let defaults = [
            ("defaultProvider", &model.provider),
            ("defaultModel", &model.id),
        ];
        for (key, value) in defaults.into_iter().filter(|_| persist) {
            if let Err(e) = s.set_global_setting(key, Value::from(value.as_str())) {
                rho_extension_host::diagnostics::warn(e.to_string());
            }
        }
        if model.clamp_thinking_level(wanted) != s.thinking_level() {
            self.apply_level(wanted).await;
        }
        Ok(())
    }

    /// The next model of the scope (or of the available models); `None` with fewer than two.
    pub async fn cycle_model(&self) -> Result<Option<Cycled>, SessionError> {
        self.cycle_model_toward(true).await
    }

    /// The next (`forward`) or previous model of the scope (or of the available models);
    /// `None` with fewer than two.
    pub async fn cycle_model_toward(&self, forward: bool) -> Result<Option<Cycled>, SessionError> {
        let scoped: Vec<(Model, Option<ThinkingLevel>)> = self
            .scoped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|c| self.session.auth_status(&c.model.provider) != AuthStatus::Missing)
            .map(|c| (c.model.clone(), c.thinking))
            .collect();
        let is_scoped = !scoped.is_empty();
        let candidates = if is_scoped {
            scoped
        } else {
            self.available().into_iter().map(|m| (m, None)).collect()
        };
        if candidates.len() < 2 {
            return Ok(None);
        }
        let index = self
            .session
            .model()
            .and_then(|c| {
                candidates
                    .iter()
                    .position(|(m, _)| m.provider == c.provider && m.id == c.id)
            })
            .unwrap_or(0);
        let n = candidates.len();
        let next = if forward { index + 1 } else { index + n - 1 };
        let (model, level) = candidates[next % n].clone();
        self.switch_model(model.clone(), level).await?;
        Ok(Some(Cycled {
            model,
            thinking_level: self.session.thinking_level(),
            is_scoped,
        }))
    }

    /// `set_thinking_level`: a name pi does not know is refused (issue 17 #7: "HIGH" used to
    /// turn thinking off); a known level is clamped to what the model supports.
    pub async fn set_level(&self, level: &str) -> Result<(), InvalidThinkingLevel> {
        self.apply_level(parse_level(level)?).await;
        Ok(())
    }

    /// Sets the clamped level if it differs; persists `defaultThinkingLevel` unless the model
    /// lacks reasoning and the level is `off`.
    pub async fn apply_level(&self, requested: ThinkingLevel) {
        let s = &self.session;
        let model = s.model();
        let effective = model
            .as_ref()
            .map_or(ThinkingLevel::Off, |m| m.clamp_thinking_level(requested));
        if effective == s.thinking_level() {
            return;
        }
        s.set_thinking_level(effective).await;
        let reasoning = model.is_some_and(|m| m.reasoning);
        if reasoning || effective != ThinkingLevel::Off {
            self.save_level(effective);
        }
    }

    /// Sets the clamped level and saves the requested one as `defaultThinkingLevel` (pi 1.6's
    /// thinking selector with Ctrl+S, `app.thinking.save`), also when the level is unchanged.
    pub async fn set_default_level(&self, requested: ThinkingLevel) {
        self.apply_level(requested).await;
        self.save_level(requested);
    }

    fn save_level(&self, level: ThinkingLevel) {
        let saved = self
            .session
            .set_global_setting("defaultThinkingLevel", level.as_str().into());
        if let Err(e) = saved {
            rho_extension_host::diagnostics::warn(e.to_string());
        }
    }

    /// The levels the current model supports (`[off]` when it does not reason or none is set).
    pub fn available_levels(&self) -> Vec<ThinkingLevel> {
        match self.session.model().filter(|m| m.reasoning) {
            Some(model) => model.supported_thinking_levels(),
            None => vec![ThinkingLevel::Off],
        }
    }

    /// The next supported level; `None` when the model does not reason.
    pub async fn cycle_level(&self) -> Option<ThinkingLevel> {
        let model = self.session.model().filter(|m| m.reasoning)?;
        let levels = model.supported_thinking_levels();
        let current = self.session.thinking_level();
        let next = levels
            .iter()
            .position(|l| *l == current)
            .map_or(first_level(&model), |i| levels[(i + 1) % levels.len()]);
        self.apply_level(next).await;
        Some(self.session.thinking_level())
    }
}

/// A thinking level by its exact name, or the error pi's `--thinking` gives for any other.
pub fn parse_level(level: &str) -> Result<ThinkingLevel, InvalidThinkingLevel> {
    ThinkingLevel::parse(level).ok_or_else(|| InvalidThinkingLevel(level.to_string()))
}

fn first_level(model: &Model) -> ThinkingLevel {
    model
        .supported_thinking_levels()
        .first()
        .copied()
        .unwrap_or(ThinkingLevel::Off)
}
