//! Print mode (`-p`) and JSON mode (`--mode json`): one prompt, then exit (interfaces spec
//! §2, §3). Print writes the final assistant text to stdout; JSON writes every event as a
//! line. Errors go to stderr and the exit code is non-zero.

use std::io::Write;
use std::process::ExitCode;

use rho_core::agent_session::{AgentSession, PromptOptions, SessionEvent};

/// Runs `messages` one after another; `json` selects the event stream output.
pub async fn run(session: AgentSession, messages: Vec<String>, json: bool) -> ExitCode {
    let mut rx = session.subscribe();
    let printer = tokio::spawn(async move {
        let stdout = std::io::stdout();
        while let Some(event) = rx.recv().await {
            if json {
                if let Ok(line) = serde_json::to_string(&event) {
                    let mut out = stdout.lock();
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
            } else if let SessionEvent::Session(
                rho_core::agent_session::SessionOnlyEvent::ExtensionError {
                    extension_path,
                    event,
                    error,
                },
            ) = &event
            {
                eprintln!("Extension error ({extension_path}, {event}): {error}");
            }
        }
    });
    let mut failed = false;
    for message in messages {
        if let Err(e) = session.prompt(&message, PromptOptions::default()).await {
            eprintln!("Error: {e}");
            failed = true;
            break;
        }
    }
    drop(session.subscribe());
    let last = session
        .messages()
        .iter()
        .rev()
        .find_map(|m| m.as_assistant().cloned());
    drop(session);
    let _ = tokio::time::timeout(std::time::Duration::from_millis(200), printer).await;
    if failed {
        return ExitCode::FAILURE;
    }
    match last {
        Some(reply)
            if reply.stop_reason == rho_ai::StopReason::Error
                || reply.stop_reason == rho_ai::StopReason::Aborted =>
        {
            eprintln!(
                "Error: {}",
                reply
                    .error_message
                    .unwrap_or_else(|| "request failed".into())
            );
            ExitCode::FAILURE
        }
        Some(reply) => {
            if !json {
                println!("{}", reply.text());
            }
            ExitCode::SUCCESS
        }
        None => ExitCode::SUCCESS,
    }
}
