//! Deferred bash results (seed diagram 11, BASH-3..7, D5): recorded while streaming, they wait
//! until the run ends, so a turn's tool calls stay next to their results.

use rho_agent::{AgentMessage, BashExecutionMessage};

use rho_tools::shell::{ExecEnd, Progress, ShellConfig, ShellRun};
use tokio_util::sync::CancellationToken;

use super::bash_chunks::{ChunkDecoder, OutputFn};
use super::ops::Op;
use super::task::{data as run_data, Data};
use super::AgentSession;

impl AgentSession {
    /// Records a user-run command's result: queued while a run is active, appended to state
    /// and session at once otherwise (BASH-4). No events either way.
    pub async fn record_bash_result(&self, message: BashExecutionMessage) {
        self.record_bash_in(message, None).await;
    }

    /// [`Self::record_bash_result`], dropped unless the session is still the one with id
    /// `session_id` (a command that outlived its session is not recorded in the next one).
    async fn record_bash_in(&self, message: BashExecutionMessage, session_id: Option<String>) {
        let op = |done| Op::Bash {
            message: Box::new(message),
            session_id,
            done,
        };
        let _ = self.request(op).await;
    }

    /// Records a result on the session task: a run's last flush and its settle happen with
    /// no operation in between, so a result lands in that flush or after it.
    pub(crate) fn apply_bash(
        &self,
        message: BashExecutionMessage,
        session_id: Option<&str>,
        data: &Data,
    ) {
        if session_id.is_some_and(|id| self.with_session(|s| s.session_id() != id)) {
            return;
        }
        if self.is_streaming() {
            let pending = {
                let mut d = run_data(data);
                d.pending_bash.push(message);
                d.pending_bash.len()
            };
            self.inner.run.update(|s| s.pending_bash = pending);
            return;
        }
        self.append_bash(message);
    }

    /// Whether results wait for the next flush.
    pub fn has_pending_bash_messages(&self) -> bool {
        self.inner.run.get().pending_bash > 0
    }

    /// Moves every pending result, in order, into state and session (the three flush points).
    pub(crate) fn flush_pending_bash(&self, data: &Data) {
        let pending = std::mem::take(&mut run_data(data).pending_bash);
        self.inner.run.update(|s| s.pending_bash = 0);
        for message in pending {
            self.append_bash(message);
        }
    }

    fn append_bash(&self, message: BashExecutionMessage) {
        let m = AgentMessage::BashExecution(message);
        self.inner.services.agent.append_message(m.clone());
        let saved = self.state().session.append_message(m).is_ok();
        if !saved {
            self.announce_save_failure();
        }
    }
}

/// Options of [`AgentSession::execute_bash`].
#[derive(Clone, Default)]
pub struct BashOptions {
    /// `!!cmd`: shown and stored, never sent to the model.
    pub exclude_from_context: bool,
    /// Gets the output while the command runs, as sanitised pieces in arrival order, so a
    /// UI can show it live (pi's `onChunk`). Not called when a `user_bash` handler supplies
    /// the result.
    pub on_output: Option<OutputFn>,
}

impl std::fmt::Debug for BashOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BashOptions")
            .field("exclude_from_context", &self.exclude_from_context)
            .field("on_output", &self.on_output.as_ref().map(|_| "Fn(&str)"))
            .finish()
    }
}

/// Cleans command output for the model (BASH-2): ANSI escapes (CSI, OSC ended by BEL or
/// `ESC \\`, two-character sequences), carriage returns, other control characters and
/// undecodable bytes (U+FFFD from lossy decoding) are removed; newlines and tabs stay.
pub fn sanitize_output(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\n' | '\t' => out.push(c),
            '\u{fffd}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Skips one escape sequence after ESC.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                    chars.next();
                    break;
                }
            }
        }
        _ => {}
    }
}

impl AgentSession {
    /// Runs a user command (`!cmd`) in the session's cwd with the user's shell settings,
    /// records the result (deferred while streaming), and returns it (BASH-1..4). A
    /// `user_bash` handler may supply the result instead (BASH-9). Switching sessions stops a
    /// running command.
    pub async fn execute_bash(
        &self,
        command: &str,
        options: BashOptions,
    ) -> Result<BashExecutionMessage, super::SessionError> {
        let started_in = self.with_session(|s| s.session_id().to_string());
        let message = match self.user_bash_result(command, &options).await {
            Some(m) => m,
            None => self.run_bash(command, &options).await?,
        };
        // A command that outlived its session (the user switched meanwhile) is returned but
        // not recorded into the next one.
        self.record_bash_in(message.clone(), Some(started_in)).await;
        Ok(message)
    }

    async fn user_bash_result(
        &self,
        command: &str,
        options: &BashOptions,
    ) -> Option<BashExecutionMessage> {
        let runner = &self.inner.services.extensions;
        if !runner.has_handlers("user_bash") {
            return None;
        }
        let event = rho_extension_host::ExtensionEvent::UserBash {
            command: command.to_string(),
            exclude_from_context: options.exclude_from_context,
            cwd: self.cwd().display().to_string(),
        };
        let value = runner.emit_user_bash(event, &self.ext_ctx()).await?;
        let result = value.get("result")?;
        Some(BashExecutionMessage {
            command: command.to_string(),
            output: result["output"].as_str().unwrap_or("").to_string(),
            exit_code: result["exitCode"].as_i64().map(|c| c as i32),
            cancelled: result["cancelled"].as_bool().unwrap_or(false),
            truncated: result["truncated"].as_bool().unwrap_or(false),
            full_output_path: result["fullOutputPath"].as_str().map(str::to_string),
            timestamp: rho_ai::now_ms(),
            exclude_from_context: options.exclude_from_context.then_some(true),
        })
    }

    /// The shell settings for commands the session runs itself, under `sandbox`.
    pub(crate) fn shell_config(
        &self,
        sandbox: Option<std::sync::Arc<rho_sandbox::Sandbox>>,
    ) -> ShellConfig {
        let s = self.state();
        ShellConfig {
            shell_path: s.settings.shell_path().map(std::path::PathBuf::from),
            command_prefix: s.settings.shell_command_prefix().map(str::to_string),
            bin_dir: None,
            scrub: super::credentials::key_scrub(
                &self.inner.services.credentials,
                s.settings.pass_provider_keys_to_tools(),
            ),
            sandbox,
            // pi gives the session's variables to the model's commands only.
            session_env: None,
        }
    }

    async fn run_bash(
        &self,
        command: &str,
        options: &BashOptions,
    ) -> Result<BashExecutionMessage, super::SessionError> {
        let config = self.shell_config(self.sandbox());
        let (run_id, cancel) = self.inner.services.bash_runs.start();
        let mut decoder = ChunkDecoder::default();
        let on_output = options.on_output.clone();
        let mut on_chunk = |bytes: &[u8]| {
            if let (Some(f), Some(text)) = (&on_output, decoder.push(bytes)) {
                f(&text);
            }
        };
        let run = ShellRun {
            command,
            cwd: self.cwd(),
            timeout: None,
            cancel: &cancel,
        };
        let result =
            rho_tools::shell::run_shell(run, &config, Progress::Chunks(&mut on_chunk)).await;
        self.inner.services.bash_runs.finish(run_id);
        if let (Some(f), Some(text)) = (&on_output, decoder.finish()) {
            f(&text);
        }
        let result = result.map_err(|e| super::SessionError::Bash(e.to_string()))?;
        let (exit_code, cancelled) = match result.end {
            ExecEnd::Exited(code) => (code, false),
            ExecEnd::TimedOut | ExecEnd::Aborted => (None, true),
        };
        Ok(BashExecutionMessage {
            command: command.to_string(),
            output: sanitize_output(&result.output.text),
            exit_code,
            cancelled,
            truncated: result.output.truncation.truncated,
            full_output_path: result
                .output
                .full_output_path
                .map(|p| p.display().to_string()),
            timestamp: rho_ai::now_ms(),
            exclude_from_context: options.exclude_from_context.then_some(true),
        })
    }

    /// Aborts every running `execute_bash` (BASH-8; pi 1.x aborts them all).
    pub fn abort_bash(&self) {
        self.inner.services.bash_runs.abort_all();
    }

    /// Whether a user command is running.
    pub fn is_bash_running(&self) -> bool {
        self.inner.services.bash_runs.any()
    }
}

/// The user commands running now (any number, as RPC `bash` may start several), each with
/// the token that ends it.
#[derive(Debug, Default)]
pub struct BashRuns {
    running: std::sync::Mutex<Vec<(u64, CancellationToken)>>,
    next: std::sync::atomic::AtomicU64,
}

impl BashRuns {
    fn start(&self) -> (u64, CancellationToken) {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let token = CancellationToken::new();
        super::lock(&self.running).push((id, token.clone()));
        (id, token)
    }

    fn finish(&self, id: u64) {
        super::lock(&self.running).retain(|(i, _)| *i != id);
    }

    fn abort_all(&self) {
        for (_, token) in super::lock(&self.running).iter() {
            token.cancel();
        }
    }

    fn any(&self) -> bool {
        !super::lock(&self.running).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::sanitize_output;

    #[test]
    fn bash_2_ansi_and_carriage_returns_are_removed() {
        assert_eq!(
            sanitize_output("\u{1b}[31mred\u{1b}[0m\r\nok\u{1b}]0;title\u{7}"),
            "red\nok"
        );
    }
}
