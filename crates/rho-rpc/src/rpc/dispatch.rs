//! Routes a parsed command to its handler and writes its response. `prompt` answers from its
//! preflight (P-15): success once accepted, before the run's first event; an error response
//! if refused. Later failures surface only as events.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rho_core::agent_session::{BashOptions, InputSource, OutputFn, PromptOptions};
use rho_protocol::rpc::{Command, Disposition, QueueContents, Request};
use serde_json::Value;

use super::bash::BashResult;
use super::error::CommandError;
use super::order::Turn;
use super::response::{response, Reply};
use super::{models, sessions, state, Rpc};

/// Commands that may wait a long time and so run in their own task.
pub fn waits(command: &Command) -> bool {
    matches!(
        command,
        Command::Prompt { .. }
            | Command::Abort
            | Command::Compact { .. }
            | Command::Bash { .. }
            | Command::NewSession { .. }
            | Command::SwitchSession { .. }
            | Command::Fork { .. }
            | Command::Clone
    )
}

/// Commands that act at once, outside line order: interrupts and dialog answers must reach
/// a command that waits, and queries change nothing (as in pi, they answer at once).
pub fn immediate(command: &Command) -> bool {
    matches!(
        command,
        Command::Abort
            | Command::AbortRetry
            | Command::AbortBash
            | Command::ExtensionUiResponse { .. }
            | Command::GetState
            | Command::GetMessages
            | Command::GetAvailableModels
            | Command::GetSessionStats
            | Command::GetForkMessages
            | Command::GetLastAssistantText
            | Command::GetCommands
            | Command::ExportHtml { .. }
            | Command::GetEntries { .. }
            | Command::GetTree
            | Command::GetAvailableThinkingLevels
    )
}

/// Runs one command and writes its response (none for `extension_ui_response`). `turn`
/// is passed on once the command has taken effect: for `prompt` when it is accepted or
/// refused, for `bash` when the shell starts, for the rest with the response.
pub async fn handle(rpc: &Rpc, req: Request, mut turn: Turn) {
    let id = req.id.as_ref();
    let reply = match req.command {
        Command::Prompt {
            message,
            images,
            streaming_behavior,
        } => return prompt(rpc, id, &message, images, streaming_behavior, turn).await,
        Command::ExtensionUiResponse { ui_id, answer } => {
            rpc.ui.resolve(&ui_id, answer);
            return;
        }
        Command::Steer { message, images } => {
            queued(rpc, rpc.session.steer(&message, images).await)
        }
        Command::FollowUp { message, images } => {
            queued(rpc, rpc.session.follow_up(&message, images).await)
        }
        Command::ClearQueue => {
            let texts = rpc.session.clear_queue();
            to_data(&QueueContents {
                steering: texts.steering,
                follow_up: texts.follow_up,
            })
        }
        Command::Abort => {
            rpc.session.abort().await;
            Reply::Done
        }
        Command::AbortRetry => {
            rpc.session.abort_retry();
            Reply::Done
        }
        Command::Bash {
            command,
            exclude_from_context,
        } => {
            turn.pass();
            bash(rpc, id, &command, exclude_from_context).await
        }
        Command::AbortBash => {
            rpc.session.abort_bash();
            Reply::Done
        }
        Command::Compact {
            custom_instructions,
        } => {
            // In the session's line once sent: what comes after it (a prompt waits for the
            // compaction and runs after it) is the session's to order, not ours to hold.
            let compaction = rpc.session.compact(custom_instructions.as_deref());
            turn.pass();
            match compaction.await {
                Ok(result) => {
                    let after = rpc.session.after_compaction();
                    to_data(&rpc.dialect.compact_reply(
                        result,
                        after.estimated_tokens_after,
                        after.usage,
                    ))
                }
                Err(e) => Reply::Error(e.to_string()),
            }
        }
        other => match other {
            Command::SetModel { .. }
            | Command::CycleModel
            | Command::GetAvailableModels
            | Command::SetThinkingLevel { .. }
            | Command::CycleThinkingLevel
            | Command::GetAvailableThinkingLevels => models::handle(rpc, other).await,
            Command::NewSession { .. }
            | Command::SwitchSession { .. }
            | Command::Fork { .. }
            | Command::Clone
            | Command::GetForkMessages
            | Command::ExportHtml { .. }
            | Command::SetSessionName { .. }
            | Command::GetEntries { .. }
            | Command::GetTree => sessions::handle(rpc, other).await,
            other => state::handle(rpc, other),
        },
    };
    rpc.send(id, &req.name, reply);
    turn.pass();
}

/// `Ok(())` → success without data.
pub fn done<E: std::fmt::Display>(r: Result<(), E>) -> Reply {
    match r {
        Ok(()) => Reply::Done,
        Err(e) => Reply::Error(e.to_string()),
    }
}

/// A queued steer or follow-up: pi 1.x reports its disposition, pi 0.73.1 nothing.
fn queued<E: std::fmt::Display>(rpc: &Rpc, r: Result<(), E>) -> Reply {
    match r {
        Ok(()) => accepted(rpc, Disposition::Queued),
        Err(e) => Reply::Error(e.to_string()),
    }
}

/// The success of an accepted input in the session's dialect.
fn accepted(rpc: &Rpc, disposition: Disposition) -> Reply {
    match rpc.dialect.accepted(disposition) {
        Some(data) => to_data(&data),
        None => Reply::Done,
    }
}

/// Success with `value` serialized as `data`.
pub fn to_data<T: serde::Serialize>(value: &T) -> Reply {
    data_of(value).into()
}

/// A typed reply as the `data` value.
pub fn data_of<T: serde::Serialize>(value: &T) -> Result<Value, CommandError> {
    serde_json::to_value(value).map_err(CommandError::Serialize)
}

async fn prompt(
    rpc: &Rpc,
    id: Option<&Value>,
    message: &str,
    images: Vec<rho_ai::ImageContent>,
    streaming_behavior: Option<rho_core::agent_session::StreamingBehavior>,
    mut turn: Turn,
) {
    let answered = Arc::new(AtomicBool::new(false));
    let preflight = {
        let out = rpc.out.clone();
        let answered = answered.clone();
        let rpc = rpc.clone();
        let id = id.cloned();
        Box::new(move |outcome: Option<Disposition>| {
            if let Some(disposition) = outcome {
                answered.store(true, Ordering::SeqCst);
                let reply = accepted(&rpc, disposition);
                // The session calls this before the run's first event: the response goes
                // into the writer's channel ahead of it (see `writer.rs`).
                out.send(response(id.as_ref(), "prompt", reply));
            }
            turn.pass();
        })
    };
    let options = PromptOptions {
        images,
        streaming_behavior,
        source: InputSource::Rpc,
        preflight: Some(preflight),
        ..PromptOptions::default()
    };
    let result = rpc.session.prompt(message, options).await;
    if answered.load(Ordering::SeqCst) {
        if let Err(e) = result {
            eprintln!("rho rpc: prompt failed after it was accepted: {e}");
        }
        return;
    }
    let reply = match result {
        Ok(()) => Reply::Done,
        Err(e) => Reply::Error(e.to_string()),
    };
    rpc.send(id, "prompt", reply);
}

/// Runs a user command through the session; its output streams as events where the dialect
/// has them (`bash_execution_update` carrying the command's id).
async fn bash(rpc: &Rpc, id: Option<&Value>, command: &str, exclude_from_context: bool) -> Reply {
    let on_output: OutputFn = {
        let rpc = rpc.clone();
        let id = id.cloned();
        Arc::new(move |delta: &str| {
            if let Some(event) = rpc.dialect.bash_update(id.as_ref(), delta.to_string()) {
                if let Ok(line) = serde_json::to_string(&event) {
                    rpc.out.send(line);
                }
            }
        })
    };
    let options = BashOptions {
        exclude_from_context,
        on_output: Some(on_output),
    };
    match rpc.session.execute_bash(command, options).await {
        Ok(message) => to_data(&BashResult::from(message)),
        Err(e) => Reply::Error(format!("Cannot run the command: {e}")),
    }
}
