//! The `bash` tool: runs a command in the session cwd and returns the tail of its output,
//! streaming progress while it runs; and the `powershell` tool, the same in PowerShell
//! (Windows only, as pi 1.6's).

use std::path::PathBuf;
use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ScriptValues, ToolContext, ToolError, ToolOutput};
use rho_protocol::ContentBlock;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::args::parse;
use crate::output::{read_full_output, OutputSnapshot};
use crate::shell::{run_in, ExecEnd, Progress, ShellConfig, ShellKind, ShellRun};
use crate::truncate::{format_size, TruncatedBy, DEFAULT_MAX_BYTES};

/// How much output a script's call resolves to (pi's 1 MiB; the model sees 50KB).
pub const SCRIPT_OUTPUT_MAX_BYTES: usize = 1024 * 1024;

/// Runs shell commands for the model.
pub struct BashTool {
    cwd: PathBuf,
    config: ShellConfig,
    kind: ShellKind,
    /// `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }` of calls
    /// codemode scripts made.
    script_values: ScriptValues,
}

impl BashTool {
    /// A bash tool running commands in `cwd` with the given shell settings.
    pub fn new(cwd: impl Into<PathBuf>, config: ShellConfig) -> Self {
        Self {
            cwd: cwd.into(),
            config,
            kind: ShellKind::Bash,
            script_values: ScriptValues::default(),
        }
    }

    /// The `powershell` tool: the same runner with PowerShell (the settings' `shellPath` and
    /// command prefix are bash's and do not apply).
    pub fn powershell(cwd: impl Into<PathBuf>, config: ShellConfig) -> Self {
        Self {
            kind: ShellKind::PowerShell,
            ..Self::new(cwd, config)
        }
    }

    fn is_powershell(&self) -> bool {
        self.kind == ShellKind::PowerShell
    }
}

#[derive(Deserialize)]
struct BashArgs {
    command: String,
    timeout: Option<f64>,
}

/// Formats a number of seconds as JavaScript prints it (`5`, `0.5`).
fn js_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The result text for a snapshot: the tail (or `empty`) plus pi's truncation notice.
pub fn format_output(snap: &OutputSnapshot, empty: &str) -> (String, Option<Value>) {
    let mut text = if snap.text.is_empty() {
        empty.to_string()
    } else {
        snap.text.clone()
    };
    let t = &snap.truncation;
    if !t.truncated {
        return (text, None);
    }
    let path = snap
        .full_output_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let start = t.total_lines - t.output_lines + 1;
    let end = t.total_lines;
    let notice = if t.last_line_partial {
        format!(
            "[Showing last {} of line {end} (line is {}). Full output: {path}]",
            format_size(t.output_bytes),
            format_size(snap.last_line_bytes)
        )
    } else if t.truncated_by == Some(TruncatedBy::Lines) {
        format!(
            "[Showing lines {start}-{end} of {}. Full output: {path}]",
            t.total_lines
        )
    } else {
        format!(
            "[Showing lines {start}-{end} of {} ({} limit). Full output: {path}]",
            t.total_lines,
            format_size(DEFAULT_MAX_BYTES)
        )
    };
    text.push_str("\n\n");
    text.push_str(&notice);
    (
        text,
        Some(json!({ "truncation": t, "fullOutputPath": path })),
    )
}

/// What a script's call resolves to once the command exited (pi's `structuredContent`),
/// also for a non-zero exit code.
fn script_value(snap: &OutputSnapshot, exit_code: i32, wall: Duration) -> Value {
    let (output, truncated) = read_full_output(snap, SCRIPT_OUTPUT_MAX_BYTES)
        .unwrap_or_else(|_| (snap.text.clone(), snap.truncation.truncated));
    let mut v = json!({
        "output": output,
        "truncated": truncated,
        "exit_code": exit_code,
        "wall_time_seconds": (wall.as_secs_f64() * 10.0).round() / 10.0,
    });
    if let (true, Some(path)) = (truncated, &snap.full_output_path) {
        v["full_output_path"] = json!(path.display().to_string());
    }
    v
}

/// pi's `outputSchema` of `bash`.
fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "output": {"type": "string", "description": "Combined stdout and stderr, possibly truncated"},
            "truncated": {"type": "boolean"},
            "full_output_path": {"type": "string", "description": "Full output, when truncated"},
            "exit_code": {"type": "number"},
            "wall_time_seconds": {"type": "number"}
        },
        "required": ["output", "truncated", "exit_code", "wall_time_seconds"]
    })
}

fn with_status(text: &str, status: &str) -> String {
    if text.is_empty() {
        status.to_string()
    } else {
        format!("{text}\n\n{status}")
    }
}

fn progress_output(snap: &OutputSnapshot) -> ToolOutput {
    let details = snap.truncation.truncated.then(|| {
        json!({
            "truncation": snap.truncation,
            "fullOutputPath": snap.full_output_path.as_ref().map(|p| p.display().to_string()),
        })
    });
    ToolOutput {
        content: vec![ContentBlock::text(snap.text.clone())],
        details,
    }
}

impl AgentTool for BashTool {
    fn name(&self) -> &str {
        match self.is_powershell() {
            true => "powershell",
            false => "bash",
        }
    }
    fn label(&self) -> &str {
        self.name()
    }
    fn description(&self) -> &str {
        match self.is_powershell() {
            true => "Execute a PowerShell command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
            false => "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
        }
    }
    fn parameters(&self) -> Value {
        let command = match self.is_powershell() {
            true => "Shell command to execute",
            false => "Bash command to execute",
        };
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": command},
                "timeout": {"type": "number", "description": "Timeout in seconds (optional, no default timeout)"}
            },
            "required": ["command"]
        })
    }
    fn output_schema(&self) -> Option<Value> {
        Some(output_schema())
    }
    fn take_script_value(&self, call_id: &str) -> Option<Value> {
        self.script_values.take(call_id)
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        let config = self.config.clone();
        let slot = self.script_values.slot(&ctx);
        let name = self.name().to_string();
        let kind = self.kind;
        Box::pin(async move {
            let args: BashArgs = parse(&name, args)?;
            let timeout = args
                .timeout
                .filter(|t| t.is_finite() && *t > 0.0)
                .map(Duration::from_secs_f64);
            let progress = ctx.progress.clone();
            progress(ToolOutput::default());
            let started = std::time::Instant::now();
            let shell = ShellRun {
                command: &args.command,
                cwd: &cwd,
                timeout,
                cancel: &ctx.cancel,
            };
            let mut on_snapshot = |snap: &OutputSnapshot| progress(progress_output(snap));
            let run = run_in(kind, shell, &config, Progress::Snapshots(&mut on_snapshot))
                .await
                .map_err(|err| ToolError::new(err.to_string()))?;
            match run.end {
                ExecEnd::Aborted => {
                    let (text, _) = format_output(&run.output, "");
                    Err(ToolError::new(with_status(&text, "Command aborted")))
                }
                ExecEnd::TimedOut => {
                    let (text, _) = format_output(&run.output, "");
                    let secs = js_number(args.timeout.unwrap_or_default());
                    Err(ToolError::new(with_status(
                        &text,
                        &format!("Command timed out after {secs} seconds"),
                    )))
                }
                ExecEnd::Exited(code) => {
                    if let (Some(slot), Some(code)) = (slot, code) {
                        slot.keep(script_value(&run.output, code, started.elapsed()));
                    }
                    let (text, details) = format_output(&run.output, "(no output)");
                    match code {
                        Some(code) if code != 0 => Err(ToolError::new(with_status(
                            &text,
                            &format!("Command exited with code {code}"),
                        ))),
                        _ => Ok(ToolOutput {
                            content: vec![ContentBlock::text(text)],
                            details,
                        }),
                    }
                }
            }
        })
    }
}
