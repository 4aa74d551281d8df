//! Where session files live (interfaces spec §4.1, §6.1 with rho's names): `<agentDir>/sessions/
//! <encoded-cwd>/<timestamp>_<id>.jsonl`, the agent dir being `~/.rho/agent` unless
//! `RHO_CODING_AGENT_DIR` (or pi's `PI_CODING_AGENT_DIR`) says otherwise.

use std::path::{Path, PathBuf};

pub use crate::env::process_env;
use crate::env::{AGENT_DIR, SESSION_DIR};

/// The user's home directory, from the environment.
fn home(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    env("HOME")
        .or_else(|| env("USERPROFILE"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Expands a leading `~` or `~/` against the home directory.
pub fn expand_tilde(value: &str, env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    if value == "~" {
        return home(env);
    }
    match value
        .strip_prefix("~/")
        .or_else(|| value.strip_prefix("~\\"))
    {
        Some(rest) => home(env).join(rest),
        None => PathBuf::from(value),
    }
}

/// The agent dir: `RHO_CODING_AGENT_DIR`, else pi's `PI_CODING_AGENT_DIR` (`~` expanded),
/// else `~/.rho/agent`.
pub fn agent_dir() -> PathBuf {
    agent_dir_from(&process_env)
}

/// pi's agent dir, where a pi user's packages are installed: `PI_CODING_AGENT_DIR` (`~`
/// expanded) else `~/.pi/agent`.
pub fn pi_agent_dir_from(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    match env(AGENT_DIR.pi) {
        Some(dir) => expand_tilde(&dir, env),
        None => home(env).join(".pi").join("agent"),
    }
}

/// [`agent_dir`] with an explicit environment, for tests.
pub fn agent_dir_from(env: &dyn Fn(&str) -> Option<String>) -> PathBuf {
    match AGENT_DIR.read(env) {
        Some(dir) => expand_tilde(&dir, env),
        None => home(env).join(".rho").join("agent"),
    }
}

/// `--` + cwd without one leading separator, with `/`, `\` and `:` turned into `-`, + `--`.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    let body: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

/// All per-project session directories live here.
pub fn sessions_root(agent_dir: &Path) -> PathBuf {
    agent_dir.join("sessions")
}

/// The default session directory of a project.
pub fn default_session_dir(agent_dir: &Path, cwd: &str) -> PathBuf {
    sessions_root(agent_dir).join(encode_cwd(cwd))
}

/// The session directory in force: `--session-dir` > `RHO_CODING_AGENT_SESSION_DIR` or pi's
/// `PI_CODING_AGENT_SESSION_DIR` (`~` expanded) > settings `sessionDir` (`~` expanded, relative to `process_cwd`) > the default.
pub fn resolve_session_dir(
    cli: Option<&Path>,
    settings: Option<&str>,
    agent_dir: &Path,
    cwd: &str,
    process_cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> PathBuf {
    if let Some(dir) = cli {
        return dir.to_path_buf();
    }
    if let Some(dir) = SESSION_DIR.read(env) {
        return expand_tilde(&dir, env);
    }
    if let Some(dir) = settings.filter(|s| !s.is_empty()) {
        return process_cwd.join(expand_tilde(dir, env));
    }
    default_session_dir(agent_dir, cwd)
}

/// `<ISO timestamp with ':' and '.' replaced by '-'>_<sessionId>.jsonl`.
pub fn session_file_name(timestamp_iso: &str, session_id: &str) -> String {
    let stamp: String = timestamp_iso
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn pi_agent_dir_is_pis_variable_else_its_home_folder() {
        let env = env_of(&[("HOME", "/home/ana")]);
        assert_eq!(
            pi_agent_dir_from(&env),
            PathBuf::from("/home/ana/.pi/agent")
        );
        let env = env_of(&[("HOME", "/home/ana"), ("PI_CODING_AGENT_DIR", "~/pi")]);
        assert_eq!(pi_agent_dir_from(&env), PathBuf::from("/home/ana/pi"));
    }

    #[test]
    fn encodes_cwd_like_pi() {
        assert_eq!(encode_cwd("/home/ana/app"), "--home-ana-app--");
        assert_eq!(encode_cwd("C:\\src\\x"), "--C--src-x--");
        assert_eq!(encode_cwd("/"), "----");
    }

    #[test]
    fn names_files_like_pi() {
        assert_eq!(
            session_file_name(
                "2025-03-01T09:15:00.120Z",
                "0195508c-6f10-7a22-9d3e-2c51a0b4e901"
            ),
            "2025-03-01T09-15-00-120Z_0195508c-6f10-7a22-9d3e-2c51a0b4e901.jsonl"
        );
    }

    #[test]
    fn agent_dir_default_and_override() {
        let env = env_of(&[("HOME", "/h")]);
        assert_eq!(agent_dir_from(&env), PathBuf::from("/h/.rho/agent"));
        let env = env_of(&[("HOME", "/h"), ("RHO_CODING_AGENT_DIR", "~/custom")]);
        assert_eq!(agent_dir_from(&env), PathBuf::from("/h/custom"));
        let env = env_of(&[("HOME", "/h"), ("PI_CODING_AGENT_DIR", "~/pi")]);
        assert_eq!(agent_dir_from(&env), PathBuf::from("/h/pi"), "pi's name");
        let env = env_of(&[
            ("HOME", "/h"),
            ("PI_CODING_AGENT_DIR", "~/pi"),
            ("RHO_CODING_AGENT_DIR", "~/rho"),
        ]);
        assert_eq!(agent_dir_from(&env), PathBuf::from("/h/rho"), "rho's wins");
    }

    #[test]
    fn session_dir_precedence() {
        let agent = Path::new("/h/.rho/agent");
        let pcwd = Path::new("/proc/cwd");
        let env = env_of(&[("HOME", "/h"), ("RHO_CODING_AGENT_SESSION_DIR", "~/s")]);
        let pi = env_of(&[("HOME", "/h"), ("PI_CODING_AGENT_SESSION_DIR", "/pi-s")]);
        assert_eq!(
            resolve_session_dir(None, Some("x"), agent, "/w", pcwd, &pi),
            PathBuf::from("/pi-s")
        );
        let none = env_of(&[("HOME", "/h")]);
        let cli = Path::new("/cli");
        assert_eq!(
            resolve_session_dir(Some(cli), Some("x"), agent, "/w", pcwd, &env),
            cli
        );
        assert_eq!(
            resolve_session_dir(None, Some("x"), agent, "/w", pcwd, &env),
            PathBuf::from("/h/s")
        );
        assert_eq!(
            resolve_session_dir(None, Some("rel"), agent, "/w", pcwd, &none),
            PathBuf::from("/proc/cwd/rel")
        );
        assert_eq!(
            resolve_session_dir(None, Some("~/t"), agent, "/w", pcwd, &none),
            PathBuf::from("/h/t")
        );
        assert_eq!(
            resolve_session_dir(None, None, agent, "/w", pcwd, &none),
            PathBuf::from("/h/.rho/agent/sessions/--w--")
        );
    }
}
