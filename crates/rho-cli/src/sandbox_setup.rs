//! The session's sandbox from the flags and the global settings (`sandbox.mode`,
//! `sandbox.network`, `sandbox.writableRoots`). Project settings cannot change it: a folder
//! must not be able to switch off what protects the user from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::bail;
use rho_core::settings::Settings;
use rho_sandbox::{NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy, UnknownSandboxMode};
use serde_json::Value;

use crate::args::Args;

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
        None => Ok(SandboxMode::WorkspaceWrite),
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

/// The sandbox for a session in `cwd`, plus a warning when its mode cannot be enforced here.
pub fn build(
    args: &Args,
    settings: &Settings,
    cwd: &Path,
    agent_dir: &Path,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Arc<Sandbox>> {
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
    let policy = SandboxPolicy::new(mode, network, cwd, home.as_deref(), Some(agent_dir), &extra);
    let sandbox = Sandbox::new(policy, &Probe::detect());
    warnings.extend(sandbox.warning());
    Ok(Arc::new(sandbox))
}

/// Whether blocked commands are offered to run once unsandboxed: in the interactive mode, and
/// in RPC only with `"sandbox": {"escalate": true}` (global settings), because a pi client that
/// never answers UI requests would wait forever.
pub fn escalate(args: &Args, settings: &Settings) -> bool {
    use std::io::IsTerminal;
    let interactive = args.mode.unwrap_or_default() == crate::args::Mode::Text
        && !args.print
        && std::io::stdin().is_terminal();
    interactive
        || settings
            .global_value("sandbox.escalate")
            .and_then(Value::as_bool)
            .unwrap_or(false)
}
