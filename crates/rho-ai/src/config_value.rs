//! Secret-bearing config values (`apiKey`, header values) in auth.json and models.json
//! (interfaces §6.3, §6.4).
//!
//! A value is one of: `!<shell command>` (its trimmed stdout), the name of a set, non-empty
//! environment variable (its value), or a literal. Resolution is explicit and injectable so
//! callers decide when commands run (never during "is auth configured?" checks) and tests
//! need no real environment.

use std::process::{Command, Stdio};

/// Where a value comes from, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource<'a> {
    /// `!cmd`: run `cmd` through the shell.
    Command(&'a str),
    /// An environment variable name or, if no such variable is set, the literal text.
    EnvOrLiteral(&'a str),
}

/// Classifies a raw value without resolving it.
pub fn value_source(raw: &str) -> ValueSource<'_> {
    match raw.strip_prefix('!') {
        Some(command) => ValueSource::Command(command),
        None => ValueSource::EnvOrLiteral(raw),
    }
}

/// A shell command that failed or printed nothing.
#[derive(Debug, thiserror::Error)]
#[error("command `{command}` failed: {reason}")]
pub struct CommandFailed {
    /// The command as configured (without `!`).
    pub command: String,
    /// Exit status, spawn error or "printed nothing".
    #[source]
    pub reason: ShellError,
}

/// Why a `!command` value produced no value.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// The shell itself could not be started.
    #[error("could not start the shell: {0}")]
    Spawn(#[source] std::io::Error),
    /// The command exited unsuccessfully; `status` is the exit status as the OS words it.
    #[error("{}", exited_text(.status, .stderr))]
    Exited {
        /// The exit status (`exit status: 3`).
        status: String,
        /// What the command wrote to stderr.
        stderr: String,
    },
    /// The command succeeded but its output was blank.
    #[error("it printed nothing")]
    Empty,
    /// The caller does not run commands at this point (e.g. an "is auth configured?" check);
    /// the text says why.
    #[error("{0}")]
    NotRun(&'static str),
}

fn exited_text(status: &str, stderr: &str) -> String {
    format!("{status} {}", stderr.trim()).trim().to_string()
}

/// A runner for `!command` values: the command's stdout, or why there is none.
pub type ShellRunner<'a> = dyn Fn(&str) -> Result<String, ShellError> + 'a;

/// Resolves `raw`: commands through `run` (trimmed stdout; empty output is a failure), other
/// values through `env` (set and non-empty wins) and otherwise literally.
pub fn resolve_value(
    raw: &str,
    env: &dyn Fn(&str) -> Option<String>,
    run: &ShellRunner,
) -> Result<String, CommandFailed> {
    match value_source(raw) {
        ValueSource::Command(command) => {
            let failed = |reason: ShellError| CommandFailed {
                command: command.to_string(),
                reason,
            };
            let out = run(command).map_err(failed)?;
            let trimmed = out.trim();
            if trimmed.is_empty() {
                return Err(failed(ShellError::Empty));
            }
            Ok(trimmed.to_string())
        }
        ValueSource::EnvOrLiteral(text) => Ok(env(text)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| text.to_string())),
    }
}

/// The process environment, for [`resolve_value`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Runs `command` through `sh -c` (`cmd /C` on Windows) and returns its stdout; a non-zero
/// exit or a spawn failure is an error. Stdin is closed so a command cannot hang waiting for
/// input.
pub fn run_shell(command: &str) -> Result<String, ShellError> {
    let mut cmd = if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/C", command]);
        c
    } else {
        let mut c = Command::new("sh");
        c.args(["-c", command]);
        c
    };
    let output = cmd
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(ShellError::Spawn)?;
    if !output.status.success() {
        return Err(ShellError::Exited {
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "MY_KEY" => Some("from-env".into()),
            "EMPTY_KEY" => Some(String::new()),
            _ => None,
        }
    }

    fn no_run(_: &str) -> Result<String, ShellError> {
        panic!("no command expected")
    }

    #[test]
    fn forms_table() {
        let run = |cmd: &str| match cmd {
            "pass show key" => Ok("  secret\n".to_string()),
            "silent" => Ok("\n".to_string()),
            _ => Err(ShellError::Exited {
                status: "exit status: 1".to_string(),
                stderr: String::new(),
            }),
        };
        let resolved = |raw, run: &ShellRunner| resolve_value(raw, &env, run).ok();
        assert_eq!(resolved("MY_KEY", &no_run), Some("from-env".into()));
        assert_eq!(resolved("EMPTY_KEY", &no_run), Some("EMPTY_KEY".into()));
        assert_eq!(resolved("sk-literal", &no_run), Some("sk-literal".into()));
        assert_eq!(resolved("!pass show key", &run), Some("secret".into()));
        let err = resolve_value("!silent", &env, &run).expect_err("empty output");
        assert_eq!(err.command, "silent");
        let err = resolve_value("!false", &env, &run).expect_err("failure");
        assert_eq!(err.to_string(), "command `false` failed: exit status: 1");
    }

    #[cfg(unix)]
    #[test]
    fn real_shell_commands() {
        assert_eq!(run_shell("printf 'k-123\\n'").ok(), Some("k-123\n".into()));
        let err = run_shell("echo oops >&2; exit 3")
            .expect_err("non-zero exit")
            .to_string();
        assert!(err.contains('3') && err.contains("oops"), "{err}");
        let resolved = resolve_value("!echo '  spaced  '", &env, &run_shell);
        assert_eq!(resolved.ok(), Some("spaced".into()));
    }
}
