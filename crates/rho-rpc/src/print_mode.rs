//! Print mode (`-p`) and JSON mode (`--mode json`): the prompts, one after another, then exit
//! (interfaces spec §2, §3).
//!
//! Print writes the text blocks of the last assistant message to stdout; a reply that ended
//! in an error or abort goes to stderr with exit 1. JSON writes the session header, then every
//! session event as one line; its exit code is 1 only when a prompt was refused. Extension
//! errors go to stderr as text in both modes.

use std::io::Write;
use std::process::ExitCode;

use rho_ai::{ContentBlock, ImageContent, StopReason};
use rho_core::agent_session::{
    AgentSession, PromptOptions, SessionError, SessionEvent, SessionOnlyEvent,
};
use rho_protocol::agent::AgentMessage;
use rho_session::paths::agent_dir;
use tokio::sync::mpsc;

use crate::event_out::{self, Out, WriterConfig};
use crate::first_run;
use crate::terminal_text::neutralise;
use rho_protocol::rpc::Dialect;

/// Which output the run produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Final assistant text.
    Text,
    /// Header line plus event lines, in a dialect.
    Json(Dialect),
}

/// Sends `prompts` in order (images go with the first) and reports as `output` asks.
pub async fn run(
    session: AgentSession,
    prompts: Vec<String>,
    images: Vec<ImageContent>,
    output: Output,
) -> ExitCode {
    session.bind_session_actions();
    let mut rx = session.subscribe();
    let mut writer = None;
    if let Output::Json(dialect) = output {
        let header = session.with_session(|s| serde_json::to_string(s.header()));
        match header {
            Ok(line) => write_line(&line),
            Err(e) => {
                eprintln!("Error: cannot serialize the session header: {e}");
                return ExitCode::FAILURE;
            }
        }
        writer = Some(spawn_json_writer(&session, dialect));
    }
    let work = send_all(&session, prompts, images);
    tokio::pin!(work);
    let mut failure = None;
    let outcome = loop {
        tokio::select! {
            biased;
            Some(event) = rx.recv() => {
                track_failure(&event, &mut failure);
                report_extension_error(&event);
            }
            result = &mut work => break result,
        }
    };
    while let Ok(event) = rx.try_recv() {
        track_failure(&event, &mut failure);
        report_extension_error(&event);
    }
    if let Some((finish, task)) = writer {
        let _ = finish.send(Out::Finish);
        let _ = task.await;
    }
    if let Err(refused) = outcome {
        eprintln!("{}", refusal_text(&session, refused));
        return ExitCode::FAILURE;
    }
    match output {
        Output::Json(_) => ExitCode::SUCCESS,
        Output::Text => {
            let last = session.with_agent_last_message();
            print_last_reply(last.as_deref(), failure)
        }
    }
}

/// Remembers an error the session could not recover from (a failed overflow compaction
/// removes the failed reply, so the transcript alone no longer shows it); a later
/// successful reply clears it.
fn track_failure(event: &SessionEvent, failure: &mut Option<String>) {
    match event {
        SessionEvent::Session(SessionOnlyEvent::CompactionEnd {
            error_message: Some(message),
            will_retry: false,
            ..
        }) => *failure = Some(message.clone()),
        SessionEvent::Agent(agent_event) => {
            if let rho_protocol::agent::AgentEvent::MessageEnd { message } = &**agent_event {
                let AgentMessage::Assistant(reply) = &**message else {
                    return;
                };
                if !matches!(reply.stop_reason, StopReason::Error | StopReason::Aborted) {
                    *failure = None;
                }
            }
        }
        _ => {}
    }
}

/// Each prompt waits for the previous run (retries included) to finish.
async fn send_all(
    session: &AgentSession,
    prompts: Vec<String>,
    mut images: Vec<ImageContent>,
) -> Result<(), SessionError> {
    for prompt in prompts {
        let options = PromptOptions {
            images: std::mem::take(&mut images),
            ..PromptOptions::default()
        };
        session.prompt(&prompt, options).await?;
    }
    Ok(())
}

/// A refused prompt's text; the model and key refusals are worded for print mode, which has
/// no `/model` or `/set api-key`.
fn refusal_text(session: &AgentSession, error: SessionError) -> String {
    let dir = agent_dir();
    match (&error, session.model()) {
        (SessionError::NoModel, _) => first_run::print_no_model(&dir),
        (SessionError::NoApiKey(_), Some(model)) => {
            first_run::print_no_api_key(&model.provider, &dir)
        }
        _ => error.to_string(),
    }
}

/// JSON mode's event lines go through the shared writer (backpressure, coalesced
/// `message_update`s for a slow reader); extension errors go to stderr instead.
fn spawn_json_writer(
    session: &AgentSession,
    dialect: Dialect,
) -> (mpsc::UnboundedSender<Out>, tokio::task::JoinHandle<()>) {
    let (tx, items) = mpsc::unbounded_channel();
    let config = WriterConfig {
        dialect,
        keep: |e| !is_extension_error(e),
    };
    session.subscribe_into(tx.clone());
    let task = tokio::spawn(event_out::run(event_out::stdout(), items, config));
    (tx, task)
}

fn is_extension_error(event: &SessionEvent) -> bool {
    matches!(
        event,
        SessionEvent::Session(SessionOnlyEvent::ExtensionError { .. })
    )
}

fn report_extension_error(event: &SessionEvent) {
    if let SessionEvent::Session(SessionOnlyEvent::ExtensionError {
        extension_path,
        event,
        error,
    }) = event
    {
        if extension_path == rho_core::agent_session::SESSION_SOURCE {
            eprintln!("Warning: {error}");
        } else {
            eprintln!("Extension error ({extension_path}, {event}): {error}");
        }
    }
}

fn write_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The text-mode result: the last message, if it is an assistant reply, else the failure
/// that ended the run.
fn print_last_reply(last: Option<&AgentMessage>, failure: Option<String>) -> ExitCode {
    let Some(AgentMessage::Assistant(reply)) = last else {
        if let Some(message) = failure {
            eprintln!("{}", neutralise(&message));
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    };
    if matches!(reply.stop_reason, StopReason::Error | StopReason::Aborted) {
        match &reply.error_message {
            Some(message) => eprintln!("{}", neutralise(message)),
            None => eprintln!("Request {}", stop_reason_name(reply.stop_reason)),
        }
        return ExitCode::FAILURE;
    }
    let mut out = std::io::stdout().lock();
    for block in &reply.content {
        if let ContentBlock::Text(t) = block {
            let _ = writeln!(out, "{}", neutralise(&t.text));
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

fn stop_reason_name(reason: StopReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "failed".into())
}
