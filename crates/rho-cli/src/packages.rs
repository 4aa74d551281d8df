//! pi packages in a session: at start and at /reload the `packages` of the user's and the
//! trusted project's settings are found (in rho's folders, else where pi installed them) or
//! installed, and their extensions, skills, prompt templates and themes join the ones found
//! in the usual folders. Without a declared package nothing runs: no npm, no git.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rho_core::settings::Settings;
use rho_packages::{Installer, Kind, Locations, PackageManager, Resolved};
use rho_protocol::rpc::SourceInfo;
use serde_json::Value;

use crate::args::Args;

/// The running session's package resources (replaced by /reload), for `get_commands`'
/// sources and theme names.
static LOADED: Mutex<Option<Arc<Resolved>>> = Mutex::new(None);

fn loaded() -> Option<Arc<Resolved>> {
    LOADED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `--offline`, or `RHO_OFFLINE` (or pi's `PI_OFFLINE`) set to `1`, `true` or `yes`.
pub fn offline(args: &Args) -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
    };
    args.offline || set("RHO_OFFLINE") || set("PI_OFFLINE")
}

/// The `npmCommand` setting (program and arguments), if set.
pub fn npm_command(settings: &Settings) -> Option<Vec<String>> {
    let list = settings.raw().get("npmCommand")?.as_array()?;
    list.iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The package manager for `cwd`; `project_dir` is the trusted project's `.rho` (`None`
/// when untrusted); `capture` keeps npm and git output off the terminal.
pub fn manager(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    cwd: &Path,
    project_dir: Option<&Path>,
    capture: bool,
) -> PackageManager {
    PackageManager {
        cwd: cwd.to_path_buf(),
        agent_dir: agent_dir.to_path_buf(),
        project_dir: project_dir.map(Path::to_path_buf),
        locations: Locations::from_env(),
        installer: Installer::new(npm_command(settings), capture),
        offline: offline(args),
    }
}

/// Finds or installs the declared packages and resolves their resources; problems become
/// warnings and progress lines go to stderr. With every resource kind switched off by flags
/// nothing is looked at.
pub fn prepare(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    cwd: &Path,
    project_dir: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Arc<Resolved> {
    let all_off =
        args.no_extensions && args.no_skills && args.no_prompt_templates && args.no_themes;
    let resolved = if all_off {
        Resolved::default()
    } else {
        let manager = manager(args, settings, agent_dir, cwd, project_dir, true);
        let (decls, problems) = manager.declared();
        warnings.extend(problems);
        if decls.is_empty() {
            Resolved::default()
        } else {
            let (resolved, failures) =
                manager.prepare(&decls, true, &mut |line| eprintln!("{line}"));
            warnings.extend(failures);
            resolved
        }
    };
    let resolved = Arc::new(resolved);
    *LOADED.lock().unwrap_or_else(|p| p.into_inner()) = Some(resolved.clone());
    resolved
}

/// Runs `work` (which may wait for npm or git) without stalling the async workers: on a
/// multi-thread runtime through `block_in_place`, elsewhere (a current-thread runtime in
/// tests, no runtime at all) directly.
pub fn off_the_workers<T>(work: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// Where a loaded skill, template or theme file came from when a package contributed it:
/// the package's source and scope, origin `package` (RPC `get_commands`' `sourceInfo`).
pub fn package_source_info(path: &Path) -> Option<SourceInfo> {
    let package = loaded()?.origin_of(path)?.clone();
    Some(SourceInfo {
        path: path.to_string_lossy().into_owned(),
        source: package.source,
        scope: package.scope.as_str().into(),
        origin: "package".into(),
        base_dir: Some(package.root.to_string_lossy().into_owned()),
    })
}

/// A package theme whose `name` (else file name) is `name`.
pub fn theme_file(name: &str) -> Option<PathBuf> {
    let resolved = loaded()?;
    resolved.enabled(Kind::Themes).into_iter().find(|file| {
        let named = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_string));
        named.as_deref() == Some(name)
            || (named.is_none() && file.file_stem().is_some_and(|s| s == name))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local package (no npm, no git): its resources resolve, its theme is found by the
    /// name inside the file, and every kind switched off by flags leaves it unread.
    #[test]
    fn a_packages_theme_is_found_by_its_name() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (agent, pkg) = (tmp.path().join("agent"), tmp.path().join("pkg"));
        std::fs::create_dir_all(pkg.join("themes")).expect("mkdir");
        std::fs::create_dir_all(&agent).expect("mkdir");
        let theme = pkg.join("themes/ocean.json");
        std::fs::write(&theme, r#"{"name":"deep-sea","vars":{},"colors":{}}"#).expect("theme");
        let declared = serde_json::json!({"packages": [pkg]});
        std::fs::write(agent.join("settings.json"), declared.to_string()).expect("settings");
        let settings = Settings::load_scopes(&agent, None);
        let mut warnings = Vec::new();
        let off = Args {
            no_extensions: true,
            no_skills: true,
            no_prompt_templates: true,
            no_themes: true,
            ..Args::default()
        };
        prepare(&off, &settings, &agent, tmp.path(), None, &mut warnings);
        assert_eq!(theme_file("deep-sea"), None);
        let resolved = prepare(
            &Args::default(),
            &settings,
            &agent,
            tmp.path(),
            None,
            &mut warnings,
        );
        assert_eq!(resolved.enabled(Kind::Themes), std::slice::from_ref(&theme));
        assert_eq!(theme_file("deep-sea"), Some(theme));
        assert_eq!(theme_file("ocean"), None, "named inside, not by file name");
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
