//! Starting extension processes: `-e PATH` (always), then, unless `--no-extensions`, what
//! start-up resolved in pi's order (`packages`): the project's `extensions` list and its
//! `.rho/extensions/`, `.pi/extensions/` (a file named as one in `.rho/` is left to
//! `.rho/`'s, D17; both only in a trusted project), the user's list and
//! `<agentDir>/extensions/`, then the installed packages' extensions, each with the lists'
//! `!`/`+`/`-` patterns applied. A failing extension is a warning; the session starts without
//! it. Their processes are started in `extension_processes`. pi's built-in
//! extensions (`builtin:mcp`, `builtin:codemode`) are rho's own parts, switched by the same
//! lists and flags ([`builtin_on`]).

use std::path::{Path, PathBuf};

use rho_core::settings::Settings;
use rho_extension_host::Extension;
use rho_packages::local::BUILTIN_PREFIX;
use rho_packages::{Kind, Resolved};

use crate::args::Args;
use crate::extension_processes::{Launcher, Started, Told};
use crate::plan::RunMode;
use crate::project::Project;
use crate::tool_names::ToolSelection;

/// The interpreter for an extension file: `python3` for `.py`, `node` for `.js`/`.mjs`/`.cjs`,
/// else the file itself is run.
pub fn program_for(path: &Path) -> (String, Vec<String>) {
    let file = path.display().to_string();
    match path.extension().and_then(|e| e.to_str()) {
        Some("py") => ("python3".into(), vec![file]),
        Some("js" | "mjs" | "cjs") => ("node".into(), vec![file]),
        _ => (file, Vec::new()),
    }
}

/// Every extension path to start, in load order, each once: `-e` paths (relative to `cwd`;
/// `builtin:` names are not files), then unless `--no-extensions` the resolved ones.
pub fn sources(args: &Args, resolved: &Resolved, cwd: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = args
        .extensions
        .iter()
        .filter(|p| !p.starts_with(BUILTIN_PREFIX))
        // An `-e` npm or git package, or a folder that is a package (pi's temporary
        // packages), loads its extensions here.
        .flat_map(|p| match rho_packages::temporary::is_remote(p) {
            true => resolved.temporary_source_extensions(p),
            false => {
                let p = rho_packages::config::resolve_path(p, cwd);
                resolved.temporary_extensions(&p).unwrap_or_else(|| vec![p])
            }
        })
        .collect();
    if !args.no_extensions {
        paths.extend(resolved.enabled(Kind::Extensions));
    }
    let mut seen = Vec::new();
    paths.retain(|p| {
        let key = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    paths
}

/// Whether pi's built-in extension `name` (`mcp`, `codemode`) is on: `-e builtin:<name>`
/// always; else not with `--no-extensions` (nor `mcp` with `--no-mcp`), else as the
/// settings' `extensions` lists say.
pub fn builtin_on(args: &Args, resolved: &Resolved, name: &str) -> bool {
    let asked = args
        .extensions
        .iter()
        .any(|e| e.strip_prefix(BUILTIN_PREFIX) == Some(name));
    if name == "mcp" && args.no_mcp {
        return false;
    }
    asked || (!args.no_extensions && resolved.builtin_enabled(name))
}

/// Where extensions come from and which of their tools may be active: what start-up and
/// /reload resolve the same way.
pub struct ExtensionSetup<'a> {
    /// The command line (`-e`, `--no-extensions`, the unknown flags extensions may claim).
    pub args: &'a Args,
    /// How rho runs (`ctx.mode`, whether the UI answers).
    pub mode: RunMode,
    /// Effective settings (their `extensions` list).
    pub settings: &'a Settings,
    /// The agent dir (`<agentDir>/extensions/`).
    pub agent_dir: &'a Path,
    /// The session's folder and whether its extension folders load.
    pub project: &'a Project,
    /// The permission rules (a tool they hide is left out).
    pub permissions: &'a rho_core::permissions::Permissions,
    /// The tools the flags and settings allow (`--tools`, `--no-tools`, `--exclude-tools`).
    pub tools: &'a ToolSelection,
    /// The installed packages' resources (their extensions load after the folders').
    pub packages: &'a Resolved,
}

/// Starts the extensions of this run's sources ([`sources`]) for a session in `cwd` told
/// `told`: start-up's, /reload's and the ones asked about project trust before start-up.
pub async fn launch(
    args: &Args,
    packages: &Resolved,
    settings: &Settings,
    agent_dir: &Path,
    cwd: &Path,
    told: Told<'_>,
    warnings: &mut Vec<String>,
) -> Started {
    let paths = sources(args, packages, cwd);
    let launcher = Launcher::new(args, settings, agent_dir, cwd, told);
    launcher.start(paths, warnings).await
}

/// Resolves the extension paths, starts each one not `preloaded` (those asked about project
/// trust before start-up; failures become warnings) and keeps the tools the flags and
/// permissions allow.
pub async fn start_all(
    setup: &ExtensionSetup<'_>,
    preloaded: Option<Started>,
    warnings: &mut Vec<String>,
) -> Vec<Extension> {
    let cwd = setup.project.cwd.as_path();
    let told = Told {
        has_ui: setup.mode.has_ui(),
        mode: setup.mode.name(),
        project_trusted: setup.project.trusted(),
    };
    let (started, paths) = match preloaded {
        Some(started) => (started, sources(setup.args, setup.packages, cwd)),
        None => {
            let (args, packages, settings) = (setup.args, setup.packages, setup.settings);
            let started = launch(
                args,
                packages,
                settings,
                setup.agent_dir,
                cwd,
                told,
                warnings,
            );
            let started = started.await;
            let paths = started.paths().to_vec();
            (started, paths)
        }
    };
    let mut loaded = started.finish(&paths, told.project_trusted, warnings).await;
    for ext in &mut loaded {
        ext.retain_tools(|name| {
            setup.tools.allows_extension_tool(name) && setup.permissions.exposes(name)
        });
    }
    if setup.mode != RunMode::Interactive {
        // An extension's own `/mcp` replaces the built-in one, as in pi.
        let own_mcp = loaded
            .iter()
            .any(|e| e.commands().iter().any(|c| c.name == "mcp"));
        let on = |name| builtin_on(setup.args, setup.packages, name);
        loaded.extend(crate::builtin_commands::extensions(
            setup.agent_dir,
            on("mcp") && !own_mcp,
            on("llama.cpp"),
        ));
    }
    loaded
}

/// The `--name [value]` flags rho does not know, for extensions (`hello`'s `flags`): the value
/// given, or `true` without one. Which extension declares which flag is known only after they
/// registered, so every such flag goes to every extension, as in pi.
pub fn flag_values(args: &Args) -> serde_json::Map<String, serde_json::Value> {
    args.extension_flags
        .iter()
        .map(|(name, value)| {
            let value = value
                .clone()
                .map_or(serde_json::Value::Bool(true), Into::into);
            (name.clone(), value)
        })
        .collect()
}

/// `Error: Unknown option: --x` for `--` flags no loaded extension declared (checked once
/// they registered, as pi does after loading extensions).
pub fn unclaimed_flags(args: &Args, loaded: &[Extension]) -> Option<String> {
    let claimed: Vec<String> = loaded.iter().flat_map(|e| e.flags().to_vec()).collect();
    args.unknown_options_error(&claimed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_by_extension() {
        assert_eq!(
            program_for(Path::new("/x/a.py")),
            ("python3".to_string(), vec!["/x/a.py".to_string()])
        );
        assert_eq!(program_for(Path::new("/x/a.mjs")).0, "node");
        assert_eq!(
            program_for(Path::new("/x/tool")),
            ("/x/tool".to_string(), vec![])
        );
    }

    /// D17: `.pi/extensions/` is read too; a file named as one in `.rho/extensions/` is
    /// `.rho/`'s.
    #[test]
    fn pi_project_extensions_load_after_rho_ones_of_the_same_name() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let cwd = tmp.path();
        for rel in [
            ".rho/extensions/a.py",
            ".pi/extensions/a.py",
            ".pi/extensions/b.py",
        ] {
            let path = cwd.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, "").expect("write");
        }
        let agent = cwd.join("agent");
        let project = Project::resolve(Some(true), &agent, cwd, &mut Vec::new());
        let settings = project.settings(&agent);
        let args = Args::default();
        let resolved =
            crate::packages::prepare(&args, &settings, &agent, &project, &mut Vec::new());
        let found = sources(&args, &resolved, cwd);
        assert_eq!(
            found,
            [
                cwd.join(".rho/extensions/a.py"),
                cwd.join(".pi/extensions/b.py")
            ]
        );
        assert!(builtin_on(&args, &resolved, "mcp"));
        let without = Args {
            no_extensions: true,
            extensions: vec!["builtin:mcp".into()],
            ..Args::default()
        };
        assert!(sources(&without, &resolved, cwd).is_empty());
        assert!(builtin_on(&without, &resolved, "mcp"), "-ne -e builtin:mcp");
        assert!(!builtin_on(&without, &resolved, "codemode"));
    }
}
