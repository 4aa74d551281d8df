//! Which session file a run uses (interfaces spec §4.7): `--no-session`, `--session <path|id>`,
//! `--fork <path|id>`, `-c/--continue`, `--session-dir`, or a new session. It is opened before
//! the rest of start-up is resolved: a resumed session may work in another folder, and that
//! folder's trust and settings are the ones that count.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use rho_core::resources::project_dirs::folders_of;
use rho_core::settings::Settings;
use rho_session::listing::{is_path_argument, list_sessions};
use rho_session::paths::{process_env, resolve_session_dir};
use rho_session::{find_session, most_recent_session, ForkScope, SessionManager};

use crate::args::Args;
use crate::project::PROJECT_DIR;

/// Opens or creates the session the flags ask for, from the process's working directory,
/// with `--name` recorded; what loading it tolerated goes to `warnings`. The session dir is
/// looked up in the start-up folder's settings, its project's included whether trusted or
/// not: pi looks it up before it knows which folder the session works in, so before any
/// trust decision.
pub fn open(
    args: &Args,
    (global, agent_dir): (&Settings, &Path),
    warnings: &mut Vec<String>,
) -> anyhow::Result<SessionManager> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let project = folders_of(Some(&cwd.join(PROJECT_DIR)));
    let settings = global.with_project_layers(&project);
    let mut session = open_session(args, &settings, agent_dir, &cwd)?;
    if let Some(name) = &args.name {
        let name = name.trim();
        if name.is_empty() {
            bail!("--name requires a non-empty value");
        }
        session.append_session_info(name)?;
    }
    // Skipped bad lines and broken parent cycles: the user should know the file is damaged.
    warnings.extend(session.warnings().iter().map(ToString::to_string));
    Ok(session)
}

/// Refuses flag combinations pi refuses, before anything is read.
pub fn validate(args: &Args) -> anyhow::Result<()> {
    if args.fork.is_some() {
        let conflicts: Vec<&str> = [
            (args.session.is_some(), "--session"),
            (args.continue_session, "--continue"),
            (args.resume, "--resume"),
            (args.no_session, "--no-session"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect();
        if !conflicts.is_empty() {
            bail!("--fork cannot be combined with {}", conflicts.join(", "));
        }
    }
    if let Some(id) = &args.session_id {
        let conflicts: Vec<&str> = [
            (args.session.is_some(), "--session"),
            (args.continue_session, "--continue"),
            (args.resume, "--resume"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect();
        if !conflicts.is_empty() {
            bail!(
                "--session-id cannot be combined with {}",
                conflicts.join(", ")
            );
        }
        if !rho_session::ids::valid_session_id(id) {
            bail!("Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character");
        }
    }
    if args.resume {
        bail!("--resume needs the interactive session picker; use --continue or --session <id> instead");
    }
    Ok(())
}

/// The session directory in force for `cwd`.
fn session_dir(args: &Args, settings: &Settings, agent_dir: &Path, cwd: &Path) -> PathBuf {
    resolve_session_dir(
        args.session_dir.as_deref().map(Path::new),
        settings.session_dir(),
        agent_dir,
        &cwd.to_string_lossy(),
        cwd,
        &process_env,
    )
}

/// Opens or creates the session the flags ask for. A resumed session whose stored cwd is
/// gone is refused with pi's text.
fn open_session(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    cwd: &Path,
) -> anyhow::Result<SessionManager> {
    let cwd_str = cwd.to_string_lossy().to_string();
    let chosen_id = args.session_id.as_deref();
    if args.no_session {
        let memory = SessionManager::in_memory(&cwd_str);
        return Ok(match chosen_id {
            Some(id) => memory.renamed_to_id(id),
            None => memory,
        });
    }
    let dir = session_dir(args, settings, agent_dir, cwd);
    let with_id =
        chosen_id.and_then(|id| list_sessions(&dir).into_iter().find(|s| s.header.id == id));
    let manager = if let Some(target) = &args.fork {
        if let (Some(id), Some(_)) = (chosen_id, &with_id) {
            bail!("Session already exists with id '{id}'");
        }
        let source = locate(target, &dir, agent_dir, cwd)?;
        let source = open_file(&source)?;
        source
            .fork_as(&dir, &cwd_str, ForkScope::All, chosen_id)
            .context("cannot fork the session")?
    } else if let Some(target) = &args.session {
        if is_path_argument(target) {
            let path = cwd.join(target);
            SessionManager::open_or_create(&path, &cwd_str)
                .with_context(|| format!("cannot open session {}", path.display()))?
        } else {
            let found = find_session(target, &dir, agent_dir)?;
            if found.in_current_project {
                open_file(&found.path)?
            } else {
                confirm_fork(&found.path)?;
                open_file(&found.path)?
                    .fork(&dir, &cwd_str, ForkScope::All)
                    .context("cannot fork the session")?
            }
        }
    } else if args.continue_session {
        match most_recent_session(&dir) {
            Some(path) => open_file(&path)?,
            None => SessionManager::create(&dir, &cwd_str),
        }
    } else if let Some(id) = chosen_id {
        match with_id {
            Some(found) => open_file(&found.path)?,
            None => {
                eprintln!("Warning: No project session found with id '{id}'; creating a new session with that id.");
                SessionManager::create_with_id(&dir, &cwd_str, id)
            }
        }
    } else {
        SessionManager::create(&dir, &cwd_str)
    };
    manager.check_cwd_exists()?;
    Ok(manager)
}

fn open_file(path: &Path) -> anyhow::Result<SessionManager> {
    SessionManager::open(path).with_context(|| format!("cannot open session {}", path.display()))
}

/// A `--fork`/`--session` argument as a file: a path (must exist for `--fork`) or an id prefix.
fn locate(target: &str, dir: &Path, agent_dir: &Path, cwd: &Path) -> anyhow::Result<PathBuf> {
    if is_path_argument(target) {
        let path = cwd.join(target);
        if !path.is_file() {
            bail!("Session file not found: {}", path.display());
        }
        return Ok(path);
    }
    Ok(find_session(target, dir, agent_dir)?.path)
}

/// A session of another project is forked into this one only when the user agrees on a TTY.
fn confirm_fork(path: &Path) -> anyhow::Result<()> {
    if !std::io::stdin().is_terminal() {
        bail!(
            "Session {} belongs to another project; run rho with --fork {} to copy it here",
            path.display(),
            path.display()
        );
    }
    eprint!("Fork this session into current directory? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .context("cannot read the answer")?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") {
        Ok(())
    } else {
        bail!("Aborted: session not forked")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_dir_comes_from_the_flag_else_the_start_up_folders_settings() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("work"));
        std::fs::create_dir_all(cwd.join(".pi")).expect("mkdir");
        std::fs::create_dir_all(&agent).expect("mkdir");
        std::fs::write(
            cwd.join(".pi/settings.json"),
            r#"{"sessionDir": "/elsewhere/sessions"}"#,
        )
        .expect("project settings");
        // Nothing is trusted here: the project's setting counts anyway (pi's order).
        let settings = Settings::load(&agent, &cwd.join(PROJECT_DIR));
        let args = Args::default();
        assert_eq!(
            session_dir(&args, &settings, &agent, &cwd),
            Path::new("/elsewhere/sessions")
        );
        let flagged = Args {
            session_dir: Some("/from/the/flag".into()),
            ..Args::default()
        };
        assert_eq!(
            session_dir(&flagged, &settings, &agent, &cwd),
            Path::new("/from/the/flag")
        );
    }

    #[test]
    fn flag_combinations_pi_refuses_are_refused_before_anything_is_read() {
        let args = |argv: &[&str]| {
            crate::args::parse(&argv.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let refused = validate(&args(&["--fork", "abc", "--continue"])).expect_err("refused");
        assert_eq!(
            refused.to_string(),
            "--fork cannot be combined with --continue"
        );
        assert!(validate(&args(&["--session-id", "-bad"])).is_err());
        assert!(validate(&args(&["--session-id", "my.id-1"])).is_ok());
    }
}
