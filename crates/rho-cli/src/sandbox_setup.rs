//! The session's sandbox from the flags and the global settings (`sandbox.mode`,
//! `sandbox.network`, `sandbox.writableRoots`). Project settings cannot change it: a folder
//! must not be able to switch off what protects the user from it. The policy is part of the
//! start-up plan; the sandbox that enforces it is built with the session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;
use rho_core::settings::Settings;
use rho_sandbox::{NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy, UnknownSandboxMode};
use serde_json::Value;

use crate::args::Args;
use crate::plan::RunMode;

fn mode(
    args: &Args,
    settings: &Settings,
    warnings: &mut Vec<String>,
) -> anyhow::Result<SandboxMode> {
    if let Some(flag) = &args.sandbox {
        return Ok(flag.parse()?);
    }
    match settings
        .global_value("sandbox.mode")
        .and_then(Value::as_str)
    {
        Some(text) => Ok(text.parse().unwrap_or_else(|e: UnknownSandboxMode| {
            warnings.push(format!(
                "settings.json sandbox.mode: {e}; using workspace-write"
            ));
            SandboxMode::WorkspaceWrite
        })),
        None => Ok(default_mode()),
    }
}

/// The mode when neither the flag nor the settings name one: `workspace-write`, except on
/// Windows, where rho has no sandbox (README "rho on Windows"): there the default is `off`,
/// permission rules alone fence commands, and a mode asked for by name is refused, not
/// silently dropped.
fn default_mode() -> SandboxMode {
    if cfg!(windows) {
        SandboxMode::Off
    } else {
        SandboxMode::WorkspaceWrite
    }
}

fn network(args: &Args, settings: &Settings) -> anyhow::Result<NetworkAccess> {
    match args.sandbox_network.as_deref() {
        Some("on") => return Ok(NetworkAccess::On),
        Some("off") => return Ok(NetworkAccess::Off),
        Some(other) => bail!("--sandbox-network takes on or off, not {other}"),
        None => {}
    }
    Ok(match settings.global_value("sandbox.network") {
        Some(Value::Bool(false)) => NetworkAccess::Off,
        _ => NetworkAccess::On,
    })
}

fn expand_home(path: &str, home: Option<&Path>) -> PathBuf {
    match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

/// The sandbox policy for a session in `cwd`; a bad flag is an error, a bad setting a warning.
pub fn policy(
    args: &Args,
    settings: &Settings,
    cwd: &Path,
    agent_dir: &Path,
    warnings: &mut Vec<String>,
) -> anyhow::Result<SandboxPolicy> {
    let mode = mode(args, settings, warnings)?;
    let network = network(args, settings)?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let extra: Vec<PathBuf> = settings
        .global_value("sandbox.writableRoots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|p| expand_home(p, home.as_deref()))
        .collect();
    Ok(SandboxPolicy::new(
        mode,
        network,
        cwd,
        home.as_deref(),
        Some(agent_dir),
        &extra,
    ))
}

/// The sandbox enforcing `policy` with what this system offers, plus a warning when its mode
/// cannot be enforced here.
pub fn build(policy: SandboxPolicy, warnings: &mut Vec<String>) -> Arc<Sandbox> {
    let sandbox = Sandbox::new(policy, &Probe::detect());
    warnings.extend(sandbox.warning());
    Arc::new(sandbox)
}

/// Whether blocked commands are offered to run once unsandboxed: in the interactive mode, and
/// elsewhere (RPC) only with `"sandbox": {"escalate": true}` (global settings), because a pi
/// client that never answers UI requests would wait forever.
pub fn escalate(mode: RunMode, settings: &Settings) -> bool {
    mode == RunMode::Interactive
        || settings
            .global_value("sandbox.escalate")
            .and_then(Value::as_bool)
            .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(global: &str, project: &str) -> Settings {
        let parse = |text: &str| match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        Settings::from_scopes(parse(global), parse(project))
    }

    fn args(argv: &[&str]) -> Args {
        crate::args::parse(&argv.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    fn resolved(argv: &[&str], global: &str, project: &str) -> (SandboxPolicy, Vec<String>) {
        let mut warnings = Vec::new();
        let dir = Path::new("/work");
        let policy = policy(
            &args(argv),
            &settings(global, project),
            dir,
            dir,
            &mut warnings,
        )
        .expect("a policy");
        (policy, warnings)
    }

    #[test]
    fn the_flag_wins_over_the_global_setting_and_the_project_cannot_loosen_it() {
        let global = r#"{"sandbox":{"mode":"read-only","network":false}}"#;
        let (p, warnings) = resolved(&[], global, r#"{"sandbox":{"mode":"off"}}"#);
        assert_eq!(
            (p.mode, p.network),
            (SandboxMode::ReadOnly, NetworkAccess::Off)
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let (p, _) = resolved(
            &["--sandbox", "off", "--sandbox-network", "on"],
            global,
            "{}",
        );
        assert_eq!((p.mode, p.network), (SandboxMode::Off, NetworkAccess::On));
        let (p, _) = resolved(&[], "{}", r#"{"sandbox":{"mode":"off","network":false}}"#);
        assert_eq!(
            (p.mode, p.network),
            (SandboxMode::WorkspaceWrite, NetworkAccess::On),
            "without a global setting: workspace-write with network"
        );
    }

    #[test]
    fn a_bad_setting_is_a_warning_and_a_bad_flag_an_error() {
        let (p, warnings) = resolved(&[], r#"{"sandbox":{"mode":"loose"}}"#, "{}");
        assert_eq!(p.mode, SandboxMode::WorkspaceWrite);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].starts_with("settings.json sandbox.mode:"));
        let dir = Path::new("/work");
        let s = Settings::default();
        assert!(policy(
            &args(&["--sandbox", "loose"]),
            &s,
            dir,
            dir,
            &mut Vec::new()
        )
        .is_err());
        let bad_network = args(&["--sandbox-network", "maybe"]);
        assert!(policy(&bad_network, &s, dir, dir, &mut Vec::new()).is_err());
    }

    #[test]
    fn only_the_interactive_mode_escalates_unless_the_global_setting_says_so() {
        let none = Settings::default();
        assert!(escalate(RunMode::Interactive, &none));
        assert!(!escalate(RunMode::Rpc, &none));
        let on = settings(r#"{"sandbox":{"escalate":true}}"#, "{}");
        assert!(escalate(RunMode::Rpc, &on));
        let project = settings("{}", r#"{"sandbox":{"escalate":true}}"#);
        assert!(
            !escalate(RunMode::Rpc, &project),
            "a project cannot turn it on"
        );
    }
}
