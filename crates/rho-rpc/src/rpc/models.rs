//! Model and thinking-level commands (interfaces spec §1.4): `set_model`, `cycle_model`,
//! `get_available_models`, `set_thinking_level`, `cycle_thinking_level`. "Available" means
//! the provider has credentials.

use rho_protocol::rpc::{CycledModel, ModelList, ThinkingLevelReply, ThinkingLevels};
use serde_json::Value;

use super::dispatch::to_data;
use super::response::Reply;
use super::Rpc;
use rho_protocol::rpc::Command;

/// Runs one model command.
pub async fn handle(rpc: &Rpc, command: Command) -> Reply {
    let control = &rpc.models;
    match command {
        Command::GetAvailableModels => to_data(&ModelList {
            models: control.available(),
        }),
        Command::SetModel { provider, model_id } => {
            let found = control
                .available()
                .into_iter()
                .find(|m| m.provider == provider && m.id == model_id);
            let Some(model) = found else {
                return Reply::Error(format!("Model not found: {provider}/{model_id}"));
            };
            match control.switch_model(model.clone(), None).await {
                Ok(()) => to_data(&model),
                Err(e) => Reply::Error(e.to_string()),
            }
        }
        Command::CycleModel => match control.cycle_model().await {
            Ok(Some(c)) => to_data(&CycledModel {
                model: c.model,
                thinking_level: c.thinking_level,
                is_scoped: c.is_scoped,
            }),
            Ok(None) => Reply::Data(Value::Null),
            Err(e) => Reply::Error(e.to_string()),
        },
        Command::SetThinkingLevel { level } => match control.set_level(&level).await {
            Ok(()) => Reply::Done,
            Err(e) => Reply::Error(e.to_string()),
        },
        Command::CycleThinkingLevel => match control.cycle_level().await {
            Some(level) => to_data(&ThinkingLevelReply { level }),
            None => Reply::Data(Value::Null),
        },
        Command::GetAvailableThinkingLevels => to_data(&ThinkingLevels {
            levels: control.available_levels(),
        }),
        _ => Reply::Error("not a model command".into()),
    }
}
