//! A session's resources: at start and at /reload the `packages` of the user's and the
//! trusted project's settings are found (in rho's folders, else where pi installed them) or
//! installed, and their extensions, skills, prompt templates and themes join the ones the
//! settings' lists name and the conventional folders hold (`rho_packages::local`), in pi's
//! order. Without a declared package nothing runs: no npm, no git.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rho_core::settings::Settings;
use rho_packages::local::BUILTIN_PREFIX;
use rho_packages::{
    Installer, Kind, Layout, Locations, PackageManager, Provenance, Resolved, Scope, SettingsFile,
};
use rho_protocol::rpc::SourceInfo;
use serde_json::Value;

use crate::args::Args;
use crate::project::Project;

/// The running session's package resources (replaced by /reload), for `get_commands`'
/// sources and theme names.
static LOADED: Mutex<Option<Arc<Resolved>>> = Mutex::new(None);

fn loaded() -> Option<Arc<Resolved>> {
    LOADED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `--offline`, or `RHO_OFFLINE` (else pi's `PI_OFFLINE`) set to `1`, `true` or `yes`.
pub fn offline(args: &Args) -> bool {
    args.offline || rho_session::env::OFFLINE.is_on(&rho_session::env::process_env)
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

/// Finds or installs the declared packages and resolves their resources, then those of the
/// settings' lists and the folders of the agent dir and of `project` (when trusted), then the
/// `-e` folders that are packages and the `-e npm:`/`git:` packages (pi's temporary packages,
/// installed into a cache, see `rho_packages::temporary`); problems become warnings and
/// progress lines go to stderr. With every resource kind switched off by flags no declared
/// package is looked at.
pub fn prepare(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    project: &Project,
    warnings: &mut Vec<String>,
) -> Arc<Resolved> {
    let all_off =
        args.no_extensions && args.no_skills && args.no_prompt_templates && args.no_themes;
    let (cwd, project_dir) = (&project.cwd, project.dir());
    let manager = manager(args, settings, agent_dir, cwd, project_dir, true);
    let mut resolved = if all_off {
        Resolved::default()
    } else {
        let (decls, problems) = manager.declared();
        warnings.extend(problems);
        let mut resolved = if decls.is_empty() {
            Resolved::default()
        } else {
            let (resolved, failures) =
                manager.prepare(&decls, true, &mut |line| eprintln!("{line}"));
            warnings.extend(failures);
            resolved
        };
        resolved.add_top_level(&layout(agent_dir, project));
        resolved
    };
    for given in args
        .extensions
        .iter()
        .filter(|e| !e.starts_with(BUILTIN_PREFIX))
    {
        if rho_packages::temporary::is_remote(given) {
            let progress = &mut |line: &str| eprintln!("{line}");
            if let Err(warning) = manager.add_temporary_source(given, &mut resolved, progress) {
                warnings.push(warning.to_string());
            }
            continue;
        }
        let dir = rho_packages::config::resolve_path(given, cwd);
        if dir.is_dir() {
            resolved.add_temporary(&dir);
        }
    }
    let resolved = Arc::new(resolved);
    *LOADED.lock().unwrap_or_else(|p| p.into_inner()) = Some(resolved.clone());
    resolved
}

/// The settings files and folders resources are looked for in: the agent dir's, and the
/// trusted project's `.rho`/`.pi` and Agent Skills folders.
fn layout(agent_dir: &Path, project: &Project) -> Layout {
    use rho_core::resources::agents_skills::{project_agents_skills, user_agents_skills};
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let agents = match project.trusted() {
        true => project_agents_skills(&project.cwd, home.as_deref()),
        false => Vec::new(),
    };
    Layout {
        user: SettingsFile::read(agent_dir),
        project: project
            .folders()
            .iter()
            .map(|dir| SettingsFile::read(dir))
            .collect(),
        project_agents_skills: agents,
        user_agents_skills: home.as_deref().map(user_agents_skills),
    }
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

/// Where a loaded skill, template, theme or extension file came from, as pi 1.6's
/// `sourceInfo` says it (RPC `get_commands`): a package (its source and scope, origin
/// `package`, `baseDir` its folder), a settings list (`local`), a conventional folder (`auto`,
/// `baseDir` the folder searched from), or for a skill or extension of an `-e` package the
/// command line (`cli`). `None` for a file given on the command line.
pub fn source_info(path: &Path) -> Option<SourceInfo> {
    let loaded = loaded()?;
    let origin = loaded.origin_of(path)?.clone();
    let text = |p: &Path| p.to_string_lossy().into_owned();
    // pi 1.6 marks the skills and extensions of an `-e` package as the command line's own
    // (its prompts and themes keep the package).
    let cli_own = [Kind::Skills, Kind::Extensions]
        .iter()
        .any(|k| loaded.all(*k).iter().any(|r| r.path == path));
    if origin.scope == Scope::Temporary && cli_own {
        return Some(SourceInfo {
            path: text(path),
            source: "cli".into(),
            scope: "temporary".into(),
            origin: "top-level".into(),
            base_dir: None,
        });
    }
    let (source, origin_name, base_dir) = match origin.provenance {
        Provenance::Package => (origin.source, "package", Some(text(&origin.root))),
        Provenance::Local => ("local".to_string(), "top-level", None),
        Provenance::Auto => ("auto".to_string(), "top-level", Some(text(&origin.root))),
    };
    Some(SourceInfo {
        path: text(path),
        source,
        scope: origin.scope.as_str().into(),
        origin: origin_name.into(),
        base_dir,
    })
}

/// The loaded theme whose `name` (else file name) is `name`: the `-e` packages' themes, the
/// settings' `themes`, the `themes/` folders and the packages' themes (none of those with
/// `--no-themes`), then `--theme` paths.
pub fn theme_file(name: &str, args: &Args) -> Option<PathBuf> {
    let loaded = loaded()
        .map(|r| r.loading(Kind::Themes, !args.no_themes))
        .unwrap_or_default();
    let cwd = std::env::current_dir().unwrap_or_default();
    let given: Vec<PathBuf> = args
        .themes
        .iter()
        .map(|p| rho_packages::config::resolve_path(p, &cwd))
        .collect();
    let given = rho_packages::local::at_paths(&given, Kind::Themes);
    loaded.into_iter().chain(given).find(|file| {
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
        let project = Project::resolve(Some(false), &agent, tmp.path(), &mut warnings);
        prepare(&off, &settings, &agent, &project, &mut warnings);
        assert_eq!(theme_file("deep-sea", &off), None);
        let resolved = prepare(&Args::default(), &settings, &agent, &project, &mut warnings);
        assert_eq!(resolved.enabled(Kind::Themes), std::slice::from_ref(&theme));
        let args = Args::default();
        assert_eq!(theme_file("deep-sea", &args), Some(theme));
        assert_eq!(
            theme_file("ocean", &args),
            None,
            "named inside, not by file name"
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
