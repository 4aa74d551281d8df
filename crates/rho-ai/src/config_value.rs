//! Secret-bearing config values (`apiKey`, header values) in auth.json and models.json, as pi
//! 1.x reads them (pi 1.6 `docs/models.md`).
//!
//! A value is `!<shell command>` (its trimmed stdout) or a template: `$NAME` and `${NAME}`
//! are replaced by that environment variable, `$$` and `$!` stand for a literal `$` and `!`,
//! and everything else is literal, so a bare name such as `MY_KEY` is the key itself (pi 0.73
//! read a bare name as a variable; pi 1.x does not). A template naming a variable that is
//! unset or empty has no value. Resolution is explicit and injectable so callers decide when
//! commands run (never during "is auth configured?" checks) and tests need no real
//! environment.
//!
//! A command runs through `rho-process` as every child of rho does: its own process group,
//! recorded so rho's exit ends it, and stopped (the whole group) when it has not finished
//! within [`COMMAND_TIMEOUT`], pi's limit, so a command waiting on a locked keychain cannot
//! hang a request for good.

use std::borrow::Cow;
use std::time::Duration;

use rho_process::{ChildSpec, KeyScrub, Output};

/// Where a value comes from, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueSource<'a> {
    /// `!cmd`: run `cmd` through the shell.
    Command(&'a str),
    /// Literal text with `$NAME` / `${NAME}` references.
    Template(&'a str),
}

/// Classifies a raw value without resolving it.
pub fn value_source(raw: &str) -> ValueSource<'_> {
    match raw.strip_prefix('!') {
        Some(command) => ValueSource::Command(command),
        None => ValueSource::Template(raw),
    }
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part<'a> {
    Literal(Cow<'a, str>),
    Env(&'a str),
}

/// The length of the variable name `text` starts with (`[A-Za-z_][A-Za-z0-9_]*`).
fn name_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count(),
        _ => 0,
    }
}

/// Splits a template into literal text and variable references, as pi 1.x does: `${...}`
/// that is not a valid name, an unclosed `${` and a lone `$` stay literal.
fn parse_template(text: &str) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(c @ ('$' | '!')) = after.chars().next() {
            literal.push(c);
            rest = &after[1..];
            continue;
        }
        let (name, consumed) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) if name_len(braced) == end && end > 0 => (Some(&braced[..end]), end + 2),
                Some(end) => {
                    literal.push_str(&rest[at..at + end + 3]);
                    rest = &after[end + 2..];
                    continue;
                }
                None => (None, 0),
            },
            None => {
                let len = name_len(after);
                ((len > 0).then(|| &after[..len]), len)
            }
        };
        match name {
            Some(name) => {
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal).into()));
                }
                parts.push(Part::Env(name));
            }
            None => literal.push('$'),
        }
        rest = &after[consumed..];
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Literal(literal.into()));
    }
    parts
}

/// The environment variables `raw` refers to, in order of first mention (none for a
/// command: what it reads is its own business).
pub fn env_names(raw: &str) -> Vec<&str> {
    let ValueSource::Template(text) = value_source(raw) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for part in parse_template(text) {
        if let Part::Env(name) = part {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Why a value could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// The `!command` failed or printed nothing.
    #[error("command `{command}` failed: {reason}")]
    Command {
        /// The command as configured (without `!`).
        command: String,
        /// Exit status, spawn error or "printed nothing".
        #[source]
        reason: ShellError,
    },
    /// Variables the template names are unset or empty.
    #[error("{} not set", missing_text(.names))]
    MissingEnv {
        /// The missing variables, in order of mention.
        names: Vec<String>,
    },
}

impl ValueError {
    /// pi 1.x's wording of where resolution failed: `shell command: <cmd>`,
    /// `environment variable: <NAME>` or `environment variables: <A>, <B>`.
    pub fn source_text(&self) -> String {
        match self {
            ValueError::Command { command, .. } => format!("shell command: {command}"),
            ValueError::MissingEnv { names } => missing_text(names),
        }
    }
}

fn missing_text(names: &[String]) -> String {
    match names {
        [one] => format!("environment variable: {one}"),
        _ => format!("environment variables: {}", names.join(", ")),
    }
}

/// How long a `!command` may run (pi 1.x's limit).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a `!command` value produced no value.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// The shell could not be started, or the command was still running at the timeout and
    /// its process group was ended.
    #[error(transparent)]
    Run(#[from] rho_process::RunError),
    /// Windows: no bash to run it in.
    #[error(transparent)]
    NoShell(#[from] rho_process::shell::ShellNotFound),
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

/// Resolves `raw`: a command through `run` (trimmed stdout; empty output is a failure), a
/// template with its variables from `env` (each must be set and non-empty).
pub fn resolve_value(
    raw: &str,
    env: &dyn Fn(&str) -> Option<String>,
    run: &ShellRunner,
) -> Result<String, ValueError> {
    let text = match value_source(raw) {
        ValueSource::Command(command) => return run_command(command, run),
        ValueSource::Template(text) => text,
    };
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    for part in parse_template(text) {
        match part {
            Part::Literal(literal) => out.push_str(&literal),
            Part::Env(name) => match env(name).filter(|v| !v.is_empty()) {
                Some(value) => out.push_str(&value),
                None if missing.iter().any(|m| m == name) => {}
                None => missing.push(name.to_string()),
            },
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(ValueError::MissingEnv { names: missing })
    }
}

fn run_command(command: &str, run: &ShellRunner) -> Result<String, ValueError> {
    let failed = |reason: ShellError| ValueError::Command {
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

/// The process environment, for [`resolve_value`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Runs `command` through `sh -c` (on Windows the bash pi's `bash` tool uses: Git Bash or
/// `bash.exe` on PATH) within [`COMMAND_TIMEOUT`] and returns its stdout; a non-zero exit, a
/// spawn failure or the timeout is an error.
pub fn run_shell(command: &str) -> Result<String, ShellError> {
    run_shell_within(command, COMMAND_TIMEOUT)
}

/// [`run_shell`] with another limit. Stdin is closed so a command cannot wait for input; the
/// environment is passed whole (the user's own configuration runs it, and a key helper may
/// need any of it).
pub fn run_shell_within(command: &str, timeout: Duration) -> Result<String, ShellError> {
    let spec = ChildSpec::new(config_shell()?)
        .args(["-c", command])
        .scrub(KeyScrub::keep_all());
    let done = rho_process::run_to_end(&spec, Output::Captured, Some(timeout))?;
    if !done.status.success() {
        return Err(ShellError::Exited {
            status: done.status.to_string(),
            stderr: String::from_utf8_lossy(&done.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&done.stdout).into_owned())
}

/// The shell `!command` values run in: `sh` on unix, as pi's `execSync`; on Windows the
/// resolved bash, as pi (which falls back to `cmd.exe` where rho reports the missing bash).
fn config_shell() -> Result<std::path::PathBuf, ShellError> {
    if cfg!(windows) {
        let host = rho_process::shell::Host::current();
        return Ok(rho_process::shell::bash(None, &host)?);
    }
    Ok("sh".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "MY_KEY" => Some("from-env".into()),
            "TEAM" => Some("platform".into()),
            "EMPTY_KEY" => Some(String::new()),
            _ => None,
        }
    }

    fn no_run(_: &str) -> Result<String, ShellError> {
        panic!("no command expected")
    }

    fn resolved(raw: &str) -> Result<String, String> {
        resolve_value(raw, &env, &no_run).map_err(|e| e.source_text())
    }

    #[test]
    fn pi1_forms_table() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("$MY_KEY", Ok("from-env")),
            ("${MY_KEY}", Ok("from-env")),
            // A bare name is the key itself in pi 1.x.
            ("MY_KEY", Ok("MY_KEY")),
            ("sk-literal", Ok("sk-literal")),
            ("Bearer ${MY_KEY}-$TEAM", Ok("Bearer from-env-platform")),
            ("$$MY_KEY costs $!", Ok("$MY_KEY costs !")),
            (
                "price $5 ${not valid} ${open",
                Ok("price $5 ${not valid} ${open"),
            ),
            ("${}", Ok("${}")),
            ("$", Ok("$")),
            ("$UNSET", Err("environment variable: UNSET")),
            ("${EMPTY_KEY}", Err("environment variable: EMPTY_KEY")),
            ("$A:$B:$A", Err("environment variables: A, B")),
        ];
        for (raw, expected) in cases {
            let expected = expected.map(str::to_string).map_err(str::to_string);
            assert_eq!(resolved(raw), expected, "{raw}");
        }
    }

    #[test]
    fn env_names_in_order_of_mention() {
        assert_eq!(env_names("$B-${A}-$B-$$C-$!D"), ["B", "A"]);
        assert_eq!(env_names("MY_KEY"), Vec::<&str>::new());
        assert_eq!(env_names("!echo $MY_KEY"), Vec::<&str>::new());
    }

    #[test]
    fn commands() {
        let run = |cmd: &str| match cmd {
            "pass show key" => Ok("  secret\n".to_string()),
            "silent" => Ok("\n".to_string()),
            _ => Err(ShellError::Exited {
                status: "exit status: 1".to_string(),
                stderr: String::new(),
            }),
        };
        let value = resolve_value("!pass show key", &env, &run).ok();
        assert_eq!(value, Some("secret".into()));
        let err = resolve_value("!silent", &env, &run).expect_err("empty output");
        assert_eq!(err.source_text(), "shell command: silent");
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

    /// A `!command` that hangs (with a background child in its group) is stopped at the
    /// timeout through rho-process: the value fails with the reason, and the command's whole
    /// process group is gone.
    #[cfg(unix)]
    #[test]
    fn a_hanging_command_is_stopped_at_the_timeout_with_its_group() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pid_file = dir.path().join("pgid");
        let raw = format!("!echo $$ > '{}'; sleep 30 & sleep 30", pid_file.display());
        let within = |command: &str| run_shell_within(command, Duration::from_secs(1));
        let err = resolve_value(&raw, &env, &within).expect_err("times out");
        assert!(
            matches!(
                &err,
                ValueError::Command {
                    reason: ShellError::Run(rho_process::RunError::TimedOut { .. }),
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .ends_with("failed: sh did not finish within 1 s and was stopped"),
            "{err}"
        );
        let pgid: i32 = std::fs::read_to_string(&pid_file)
            .expect("the shell wrote its pid")
            .trim()
            .parse()
            .expect("a pid");
        assert!(!rho_process::recorded_groups().contains(&pgid));
        let gone = rho_process::group_gone_within(pgid, Duration::from_secs(5));
        assert!(gone, "group {pgid} is gone");
    }
}
