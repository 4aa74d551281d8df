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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("command `{command}` failed: {reason}")]
pub struct CommandFailed {
    /// The command as configured (without `!`).
    pub command: String,
    /// Exit status, spawn error or "printed nothing".
    pub reason: String,
}

/// Resolves `raw`: commands through `run` (trimmed stdout; empty output is a failure), other
/// values through `env` (set and non-empty wins) and otherwise literally.
pub fn resolve_value(
    raw: &str,
    env: &dyn Fn(&str) -> Option<String>,
    run: &dyn Fn(&str) -> Result<String, String>,
) -> Result<String, CommandFailed> {
    match value_source(raw) {
        ValueSource::Command(command) => {
            let failed = |reason: String| CommandFailed {
                command: command.to_string(),
                reason,
            };
            let out = run(command).map_err(failed)?;
            let trimmed = out.trim();
            if trimmed.is_empty() {
                return Err(failed("it printed nothing".into()));
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
pub fn run_shell(command: &str) -> Result<String, String> {
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
        .map_err(|e| format!("could not start the shell: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{} {}", output.status, stderr.trim())
            .trim()
            .to_string());
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

    fn no_run(_: &str) -> Result<String, String> {
        panic!("no command expected")
    }

    #[test]
    fn forms_table() {
        let run = |cmd: &str| match cmd {
            "pass show key" => Ok("  secret\n".to_string()),
            "silent" => Ok("\n".to_string()),
            _ => Err("exit status: 1".to_string()),
        };
        assert_eq!(
            resolve_value("MY_KEY", &env, &no_run),
            Ok("from-env".into())
        );
        assert_eq!(
            resolve_value("EMPTY_KEY", &env, &no_run),
            Ok("EMPTY_KEY".into())
        );
        assert_eq!(
            resolve_value("sk-literal", &env, &no_run),
            Ok("sk-literal".into())
        );
        assert_eq!(
            resolve_value("!pass show key", &env, &run),
            Ok("secret".into())
        );
        let err = resolve_value("!silent", &env, &run).expect_err("empty output");
        assert_eq!(err.command, "silent");
        let err = resolve_value("!false", &env, &run).expect_err("failure");
        assert_eq!(err.to_string(), "command `false` failed: exit status: 1");
    }

    #[cfg(unix)]
    #[test]
    fn real_shell_commands() {
        assert_eq!(run_shell("printf 'k-123\\n'"), Ok("k-123\n".into()));
        let err = run_shell("echo oops >&2; exit 3").expect_err("non-zero exit");
        assert!(err.contains('3') && err.contains("oops"), "{err}");
        let resolved = resolve_value("!echo '  spaced  '", &env, &run_shell);
        assert_eq!(resolved, Ok("spaced".into()));
    }
}
