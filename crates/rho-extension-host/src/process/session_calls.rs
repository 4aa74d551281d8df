//! The calls that change the session (rho_protocol::extension::calls): the tool set, the
//! model and thinking level, compaction and session replacement. The registration calls
//! (`register_tool`, ...) are served in `registrations.rs`, over a handle of the connection.

use serde_json::{json, Value};

use rho_protocol::extension::calls::{
    self, Compact, Complete, GetModels, ModelsView, SessionActionCall, SessionActionResult,
    SetActiveTools, SetModel, SetThinkingLevel,
};

use super::calls::params;
use super::Connection;
use crate::{ExtensionContext, ExtensionHost, HostError, NewSession, SessionAction};

fn to_value<T: serde::Serialize>(v: T) -> Result<Value, HostError> {
    serde_json::to_value(v).map_err(HostError::Encode)
}

/// Whether `method` is one of these calls.
pub fn serves(method: &str) -> bool {
    [
        calls::GET_TOOLS,
        calls::SET_ACTIVE_TOOLS,
        calls::SET_MODEL,
        calls::SET_THINKING_LEVEL,
        calls::COMPACT,
        calls::SESSION_ACTION,
        calls::GET_MODELS,
        calls::COMPLETE,
    ]
    .contains(&method)
}

/// Serves one of these calls ([`serves`]) from the process behind `conn` (`None`: no process,
/// so no `newSession` setup); `Ok` is the reply's `result`, `Err` its `error`.
pub async fn dispatch(
    method: &str,
    p: Value,
    ctx: &ExtensionContext,
    conn: Option<&Connection>,
) -> Result<Value, HostError> {
    let host = &ctx.host;
    match method {
        calls::GET_TOOLS => host.tools_state().and_then(to_value),
        calls::SET_ACTIVE_TOOLS => params::<SetActiveTools>(method, p)
            .and_then(|s| host.set_active_tools(s.names))
            .and_then(to_value),
        calls::SET_MODEL => match params::<SetModel>(method, p) {
            Ok(m) => host
                .set_model(m.provider, m.model_id)
                .await
                .map(Value::Bool),
            Err(e) => Err(e),
        },
        calls::SET_THINKING_LEVEL => match params::<SetThinkingLevel>(method, p) {
            Ok(l) => host.set_thinking_level(l.level).await.map(Value::String),
            Err(e) => Err(e),
        },
        calls::COMPACT => match params::<Compact>(method, p) {
            Ok(c) => host.compact(c.custom_instructions).await,
            Err(e) => Err(e),
        },
        calls::SESSION_ACTION => match params::<SessionActionCall>(method, p) {
            Ok(call) => host
                .session_action(action(call, conn))
                .await
                .map(|cancelled| json!(SessionActionResult { cancelled })),
            Err(e) => Err(e),
        },
        calls::GET_MODELS => {
            let asked = match p {
                Value::Null => Ok(GetModels::default()),
                p => params::<GetModels>(method, p),
            };
            asked.and_then(|g| models_view(host.as_ref(), g.file))
        }
        calls::COMPLETE => match params::<Complete>(method, p) {
            Ok(c) => host.complete(c).await,
            Err(e) => Err(e),
        },
        other => Err(HostError::UnknownMethod(other.to_string())),
    }
}

/// The models and the providers with credentials; written to `file` when given.
fn models_view(host: &dyn ExtensionHost, file: Option<String>) -> Result<Value, HostError> {
    let models = host.models();
    let mut auth_configured: Vec<String> = models.iter().map(|m| m.provider.clone()).collect();
    auth_configured.sort();
    auth_configured.dedup();
    auth_configured.retain(|p| host.provider_has_auth(p));
    let view = ModelsView {
        models,
        auth_configured,
    };
    let Some(file) = file else {
        return to_value(view);
    };
    super::calls::write_answer_file(calls::GET_MODELS, file.into(), &view)?;
    Ok(Value::Null)
}

fn action(call: SessionActionCall, conn: Option<&Connection>) -> SessionAction {
    match call {
        SessionActionCall::NewSession {
            parent_session,
            setup,
        } => SessionAction::NewSession(NewSession {
            parent_session,
            setup: setup
                .zip(conn)
                .map(|(token, conn)| super::setup::setup_hook(conn.clone(), token)),
        }),
        SessionActionCall::Fork { entry_id, position } if position.as_deref() == Some("at") => {
            SessionAction::ForkAt(entry_id)
        }
        SessionActionCall::Fork { entry_id, .. } => SessionAction::Fork(entry_id),
        SessionActionCall::NavigateTree { target_id } => SessionAction::NavigateTree(target_id),
        SessionActionCall::SwitchSession { session_path } => {
            SessionAction::SwitchSession(session_path)
        }
        SessionActionCall::Reload => SessionAction::Reload,
    }
}
