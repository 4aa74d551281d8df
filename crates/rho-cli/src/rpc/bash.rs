//! The `bash` and `abort_bash` commands: runs a command line with `sh -c` through
//! [`rho_tools::combined`] (own process group, so `abort_bash` and shutdown kill the whole
//! tree; stdout and stderr in arrival order) and builds the `BashResult` (interfaces spec
//! §1.4).

use std::path::{Path, PathBuf};

use rho_agent::BashExecutionMessage;
use rho_tools::combined::CombinedRuns;
use serde::Serialize;

use super::bash_output::{sanitize, truncate_tail, MAX_BYTES};

/// The `bash` response data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// Cleaned, tail-truncated output.
    pub output: String,
    /// Absent when the command was cancelled or killed by a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True after `abort_bash`.
    pub cancelled: bool,
    /// True when `output` is a tail.
    pub truncated: bool,
    /// The whole output, when it was cut or large.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl BashResult {
    /// The `bashExecution` message recorded in the session.
    pub fn to_message(&self, command: &str) -> BashExecutionMessage {
        BashExecutionMessage {
            command: command.to_string(),
            output: self.output.clone(),
            exit_code: self.exit_code,
            cancelled: self.cancelled,
            truncated: self.truncated,
            full_output_path: self.full_output_path.clone(),
            timestamp: rho_ai::now_ms(),
            exclude_from_context: None,
        }
    }
}

/// Runs user commands through [`rho_tools::combined`]: stdout and stderr in one ordered
/// pipe, any number at once, each in a process group killed by `abort_bash` or rho's exit.
#[derive(Default)]
pub struct BashRunner {
    runs: CombinedRuns,
}

impl BashRunner {
    /// Runs `command` in `cwd` (`prefix`, the `shellCommandPrefix` setting, goes first on
    /// its own line) until it exits or is killed; `on_output` gets the output as it arrives
    /// (cleaned like the result; a character split between reads waits for its rest).
    pub async fn run(
        &self,
        command: &str,
        cwd: &Path,
        prefix: Option<&str>,
        mut on_output: impl FnMut(String),
    ) -> std::io::Result<BashResult> {
        let script = match prefix {
            Some(p) if !p.is_empty() => format!("{p}\n{command}"),
            _ => command.to_string(),
        };
        let mut pending: Vec<u8> = Vec::new();
        let out = self
            .runs
            .run_streaming(&script, cwd, |chunk| {
                pending.extend_from_slice(chunk);
                let complete = match std::str::from_utf8(&pending) {
                    Ok(_) => pending.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => pending.len(),
                };
                let text = sanitize(&pending[..complete]);
                pending.drain(..complete);
                if !text.is_empty() {
                    on_output(text);
                }
            })
            .await?;
        if !pending.is_empty() {
            on_output(sanitize(&pending));
        }
        Ok(finish(&out.raw, out.exit_code, out.cancelled))
    }

    /// Kills every running command's process group; their results report `cancelled`.
    pub fn abort_all(&self) {
        self.runs.abort_all();
    }
}

fn finish(raw: &[u8], exit_code: Option<i32>, cancelled: bool) -> BashResult {
    let text = sanitize(raw);
    let (output, truncated) = truncate_tail(&text);
    let full_output_path = (truncated || text.len() > MAX_BYTES)
        .then(|| save_full_output(&text))
        .flatten();
    BashResult {
        output,
        exit_code,
        cancelled,
        truncated,
        full_output_path,
    }
}

/// `$TMPDIR/pi-bash-<16 hex>.log`; `None` (with a warning) if it cannot be written.
fn save_full_output(text: &str) -> Option<String> {
    let id = rho_core::session::ids::uuid_v4().replace('-', "");
    let path: PathBuf = std::env::temp_dir().join(format!("pi-bash-{}.log", &id[..16]));
    match std::fs::write(&path, text) {
        Ok(()) => Some(path.to_string_lossy().into_owned()),
        Err(e) => {
            eprintln!(
                "Warning: cannot save the full bash output to {}: {e}",
                path.display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_in_cwd_with_combined_output_and_exit_code() {
        let dir = tempfile::tempdir().expect("tempdir");
        let runner = BashRunner::default();
        let r = runner
            .run(
                "pwd; echo err >&2; exit 3",
                dir.path(),
                Some("echo pre"),
                |_| {},
            )
            .await
            .expect("runs");
        let cwd = dir.path().canonicalize().expect("canonical");
        assert_eq!(r.exit_code, Some(3));
        assert!(!r.cancelled && !r.truncated);
        assert!(
            r.output.starts_with(&format!("pre\n{}\n", cwd.display())),
            "{}",
            r.output
        );
        assert!(r.output.contains("err\n"));
    }

    #[tokio::test]
    async fn large_output_is_cut_and_saved() {
        let dir = tempfile::tempdir().expect("tempdir");
        let r = BashRunner::default()
            .run("seq 1 3000", dir.path(), None, |_| {})
            .await
            .expect("runs");
        assert!(r.truncated);
        assert!(r.output.ends_with("3000\n"));
        let path = r.full_output_path.expect("saved");
        let full = std::fs::read_to_string(&path).expect("log file");
        assert!(full.starts_with("1\n2\n"));
        let _ = std::fs::remove_file(path);
    }
}
