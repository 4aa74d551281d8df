//! Model and thinking-level commands (interfaces spec §1.4): `set_model`, `cycle_model`,
//! `get_available_models`, `set_thinking_level`, `cycle_thinking_level`. "Available" means
//! the provider has credentials.

use rho_ai::{Model, ThinkingLevel};
use rho_core::agent_session::AuthStatus;
use serde_json::{json, Value};

use super::command::Command;
use super::dispatch::to_data;
use super::response::Reply;
use super::Rpc;

/// Runs one model command.
pub async fn handle(rpc: &Rpc, command: Command) -> Reply {
    match command {
        Command::GetAvailableModels => Reply::Data(json!({ "models": available(rpc) })),
        Command::SetModel { provider, model_id } => {
            let found = available(rpc)
                .into_iter()
                .find(|m| m.provider == provider && m.id == model_id);
            let Some(model) = found else {
                return Reply::Error(format!("Model not found: {provider}/{model_id}"));
            };
            match switch_model(rpc, model.clone(), None).await {
                Ok(()) => to_data(&model),
                Err(e) => Reply::Error(e),
            }
        }
        Command::CycleModel => cycle_model(rpc).await.into(),
        Command::SetThinkingLevel { level } => {
            set_level(rpc, &level).await;
            Reply::Done
        }
        Command::CycleThinkingLevel => Reply::Data(cycle_level(rpc).await),
        _ => Reply::Error("not a model command".into()),
    }
}

/// Models whose provider has credentials, in catalog order.
fn available(rpc: &Rpc) -> Vec<Model> {
    rpc.models
        .iter()
        .filter(|m| rpc.session.auth_status(&m.provider) != AuthStatus::Missing)
        .cloned()
        .collect()
}

/// Sets the model with set_model's side effects: persisted default, and the thinking rule
/// (a reasoning predecessor keeps the level; otherwise the settings default), or `level`.
async fn switch_model(rpc: &Rpc, model: Model, level: Option<ThinkingLevel>) -> Result<(), String> {
    let s = &rpc.session;
    let wanted = level.unwrap_or_else(|| match s.model() {
        Some(prev) if prev.reasoning => s.thinking_level(),
        _ => s.with_settings(|st| st.default_thinking_level()),
    });
    s.set_model(model.clone())
        .await
        .map_err(|e| e.to_string())?;
    for (key, value) in [
        ("defaultProvider", &model.provider),
        ("defaultModel", &model.id),
    ] {
        if let Err(e) = s.set_global_setting(key, Value::from(value.as_str())) {
            eprintln!("Warning: {e}");
        }
    }
    if model.clamp_thinking_level(wanted) != s.thinking_level() {
        apply_level(rpc, wanted).await;
    }
    Ok(())
}

async fn cycle_model(rpc: &Rpc) -> Result<Value, String> {
    let scoped: Vec<(Model, Option<ThinkingLevel>)> = rpc
        .scoped
        .iter()
        .filter(|c| rpc.session.auth_status(&c.model.provider) != AuthStatus::Missing)
        .map(|c| (c.model.clone(), c.thinking))
        .collect();
    let is_scoped = !scoped.is_empty();
    let candidates = if is_scoped {
        scoped
    } else {
        available(rpc).into_iter().map(|m| (m, None)).collect()
    };
    if candidates.len() < 2 {
        return Ok(Value::Null);
    }
    let current = rpc.session.model();
    let index = current
        .and_then(|c| {
            candidates
                .iter()
                .position(|(m, _)| m.provider == c.provider && m.id == c.id)
        })
        .unwrap_or(0);
    let (model, level) = candidates[(index + 1) % candidates.len()].clone();
    switch_model(rpc, model.clone(), level).await?;
    Ok(json!({
        "model": model,
        "thinkingLevel": rpc.session.thinking_level(),
        "isScoped": is_scoped,
    }))
}

/// `set_thinking_level`: unknown strings clamp to the model's first supported level.
async fn set_level(rpc: &Rpc, level: &str) {
    let requested = match (ThinkingLevel::parse(level), rpc.session.model()) {
        (Some(l), _) => l,
        (None, Some(m)) => first_level(&m),
        (None, None) => ThinkingLevel::Off,
    };
    apply_level(rpc, requested).await;
}

/// Sets the clamped level if it differs; persists `defaultThinkingLevel` unless the model
/// lacks reasoning and the level is `off`.
async fn apply_level(rpc: &Rpc, requested: ThinkingLevel) {
    let s = &rpc.session;
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
        if let Err(e) = s.set_global_setting("defaultThinkingLevel", effective.as_str().into()) {
            eprintln!("Warning: {e}");
        }
    }
}

async fn cycle_level(rpc: &Rpc) -> Value {
    let Some(model) = rpc.session.model().filter(|m| m.reasoning) else {
        return Value::Null;
    };
    let levels = model.supported_thinking_levels();
    let current = rpc.session.thinking_level();
    let next = levels
        .iter()
        .position(|l| *l == current)
        .map_or(first_level(&model), |i| levels[(i + 1) % levels.len()]);
    apply_level(rpc, next).await;
    json!({ "level": rpc.session.thinking_level() })
}

fn first_level(model: &Model) -> ThinkingLevel {
    model
        .supported_thinking_levels()
        .first()
        .copied()
        .unwrap_or(ThinkingLevel::Off)
}
