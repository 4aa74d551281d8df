//! RPC mode (`rho --mode rpc`, interfaces spec §1): JSONL commands on stdin, responses and
//! events on stdout. Lines are read in order; commands that wait (prompt, compact, bash,
//! abort, session switches) run in their own task so steer/abort arrive while a prompt runs
//! (D13). stdout carries protocol lines only; warnings go to stderr.

mod bash;
#[cfg(test)]
mod command_props;
mod dispatch;
mod error;
mod export_html;
mod framing;
mod models;
mod order;
mod response;
mod sessions;
mod state;
mod ui;
mod writer;

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rho_core::agent_session::AgentSession;
use rho_protocol::rpc::{command, Dialect, SourceInfo};
use tokio::io::AsyncReadExt;
use tokio::task::JoinSet;

use framing::{Frame, LineSplitter};
use rho_core::agent_session::ModelControl;
use writer::Output;

/// Longest accepted input record (images travel base64-encoded inside commands).
const MAX_LINE_BYTES: usize = 32 * 1024 * 1024;

/// How long shutdown waits for running commands after aborting them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// What the binary resolved for RPC mode from flags, settings and the environment.
pub struct RpcOptions {
    /// Whose encoding responses and events follow.
    pub dialect: Dialect,
    /// The `--models` patterns `cycle_model` goes through.
    pub scoped_models: Option<Vec<String>>,
    /// Where a loaded resource file came from (a package, a settings list, a folder): its
    /// `sourceInfo` for `get_commands`.
    pub package_of: fn(&Path) -> Option<SourceInfo>,
}

/// Everything a command handler needs. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Rpc {
    session: AgentSession,
    out: Output,
    /// The model registry and the switching rules.
    models: ModelControl,
    ui: ui::RpcUi,
    /// Whose encoding the responses follow.
    dialect: Dialect,
    /// Where a loaded resource file came from.
    package_of: fn(&Path) -> Option<SourceInfo>,
}

impl Rpc {
    fn send(&self, id: Option<&serde_json::Value>, command: &str, reply: response::Reply) {
        match reply {
            response::Reply::Pieces(data) => {
                self.out
                    .send_pieces(response::pieces_response(id, command, data));
            }
            reply => self.out.send(response::response(id, command, reply)),
        }
    }
}

/// Serves RPC on stdin/stdout until EOF or an extension's `ctx.shutdown` (exit 0). Termination
/// signals (143, 129, 130) end rho the same way in every mode (the binary's handler).
pub async fn run(session: AgentSession, options: RpcOptions) -> ExitCode {
    let dialect = options.dialect;
    let (out, writer) = writer::spawn(crate::event_out::stdout(), dialect);
    out.listen(&session);
    session.bind_session_actions();
    let rpc = Rpc::new(session, out.clone(), options);
    rpc.session.start("startup").await;
    let mut stdin = tokio::io::stdin();
    let mut splitter = LineSplitter::new(MAX_LINE_BYTES);
    let mut tasks = JoinSet::new();
    let mut turns = order::Line::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    let mut quit = rpc.ui.quit_requested();
    let mut quitting = false;
    loop {
        if quitting && tasks.is_empty() {
            rpc.session.wait_for_idle().await;
            break;
        }
        tokio::select! {
            Ok(()) = quit.changed(), if !quitting => quitting = *quit.borrow(),
            read = stdin.read(&mut buf) => match read {
                Ok(0) => break,
                Ok(n) => splitter.push(&buf[..n], &mut frames),
                Err(e) => {
                    eprintln!("rho rpc: cannot read stdin: {e}");
                    break;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
        for frame in frames.drain(..) {
            rpc.accept(frame, &mut turns, &mut tasks).await;
        }
    }
    if let Some(frame) = splitter.finish() {
        rpc.accept(frame, &mut turns, &mut tasks).await;
    }
    rpc.shutdown(tasks).await;
    // Before the output closes: what `session_shutdown` handlers tell reaches the client.
    rpc.session.shut_down_extensions_telling().await;
    out.finish();
    let _ = writer.await;
    ExitCode::SUCCESS
}

impl Rpc {
    fn new(session: AgentSession, out: Output, options: RpcOptions) -> Self {
        let ui = ui::RpcUi::new(out.clone());
        session.set_ui(Arc::new(ui.clone()));
        Rpc {
            ui,
            models: ModelControl::new(session.clone(), options.scoped_models),
            session,
            out,
            dialect: options.dialect,
            package_of: options.package_of,
        }
    }

    /// Answers a bad record at once, or runs a command: inline if quick and its turn is up
    /// (or it needs none), else in a task that first waits for its turn (D13).
    async fn accept(&self, frame: Frame, turns: &mut order::Line, tasks: &mut JoinSet<()>) {
        let line = match frame {
            Frame::Line(l) => l,
            Frame::TooLong => {
                let error = format!(
                    "Failed to parse command: the line is longer than {MAX_LINE_BYTES} bytes"
                );
                return self.send(None, "parse", response::Reply::Error(error));
            }
        };
        match command::parse_line(&line) {
            Err(f) => self.send(f.id.as_ref(), &f.command, response::Reply::Error(f.error)),
            Ok(req) if !self.dialect.knows(&req.command) => {
                let error = format!("Unknown command: {}", req.name);
                self.send(req.id.as_ref(), &req.name, response::Reply::Error(error))
            }
            Ok(req) => {
                let mut turn = if dispatch::immediate(&req.command) {
                    order::Turn::free()
                } else {
                    turns.take()
                };
                if !dispatch::waits(&req.command) && turn.is_up() {
                    return dispatch::handle(self, req, turn).await;
                }
                let rpc = self.clone();
                tasks.spawn(async move {
                    turn.wait().await;
                    dispatch::handle(&rpc, req, turn).await
                });
            }
        }
    }

    /// EOF: abort a running prompt and any `bash`, let commands finish, then stop.
    async fn shutdown(&self, mut tasks: JoinSet<()>) {
        self.session.abort_bash();
        if self.session.is_streaming() {
            self.session.abort().await;
        }
        let drain = async { while tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(SHUTDOWN_GRACE, drain).await.is_err() {
            eprintln!("rho rpc: commands still running at shutdown were stopped");
        }
    }
}
