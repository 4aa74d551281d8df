//! Starting extension processes: `-e PATH` (always), then, unless `--no-extensions`, what
//! start-up resolved in pi's order (`packages`): the project's `extensions` list and its
//! `.rho/extensions/`, `.pi/extensions/` (a file named as one in `.rho/` is left to
//! `.rho/`'s, D17; both only in a trusted project), the user's list and
//! `<agentDir>/extensions/`, then the installed packages' extensions, each with the lists'
//! `!`/`+`/`-` patterns applied. A failing extension is a warning; the session starts without
//! it. pi extensions (TypeScript files, directories, JS modules with a default export) all run
//! in one node host process (`rho-pi-host`); without any, no node starts. pi's built-in
//! extensions (`builtin:mcp`, `builtin:codemode`) are rho's own parts, switched by the same
//! lists and flags ([`builtin_on`]).

use std::path::{Path, PathBuf};

use rho_core::settings::Settings;
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::Extension;
use rho_packages::local::BUILTIN_PREFIX;
use rho_packages::{Kind, Resolved};

use crate::args::Args;
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

/// Resolves the extension paths, starts each one (failures become warnings) and keeps the
/// tools the flags and permissions allow.
pub async fn start_all(setup: &ExtensionSetup<'_>, warnings: &mut Vec<String>) -> Vec<Extension> {
    let cwd = setup.project.cwd.as_path();
    let paths = sources(setup.args, setup.packages, cwd);
    let told = Told {
        has_ui: setup.mode.has_ui(),
        mode: setup.mode.name(),
        project_trusted: setup.project.trusted(),
    };
    let pi = PiHost {
        agent_dir: setup.agent_dir,
        node_path: setup
            .settings
            .raw()
            .get("nodePath")
            .and_then(|v| v.as_str()),
    };
    let flags = flag_values(setup.args);
    let mut loaded = load(&paths, cwd, told, flags, &pi, warnings).await;
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

/// What every extension is told at start (`hello`).
#[derive(Debug, Clone, Copy)]
pub struct Told<'a> {
    /// Whether a UI answers its `ui_*` calls.
    pub has_ui: bool,
    /// How rho runs (`ctx.mode`).
    pub mode: &'a str,
    /// Whether the project's own resources are trusted (`ctx.isProjectTrusted()`).
    pub project_trusted: bool,
}

/// Starts every extension; failures become warnings. pi extensions go to one host process,
/// loaded where the first of them stands in the order.
pub async fn load(
    paths: &[PathBuf],
    cwd: &Path,
    told: Told<'_>,
    flags: serde_json::Map<String, serde_json::Value>,
    pi: &PiHost<'_>,
    warnings: &mut Vec<String>,
) -> Vec<Extension> {
    let options = ProcessOptions {
        cwd: Some(cwd.to_path_buf()),
        has_ui: told.has_ui,
        flags,
        mode: Some(told.mode.to_string()),
        project_trusted: told.project_trusted,
        ..ProcessOptions::default()
    };
    let (pi_paths, others): (Vec<PathBuf>, Vec<PathBuf>) = paths
        .iter()
        .cloned()
        .partition(|p| rho_pi_host::is_pi_extension(p));
    let mut loaded = Vec::new();
    let mut pi_pending = !pi_paths.is_empty();
    for path in paths {
        if pi_pending && pi_paths.first() == Some(path) {
            pi_pending = false;
            loaded.extend(load_pi(&pi_paths, &options, pi, warnings).await);
        }
        if !others.contains(path) {
            continue;
        }
        let (program, args) = program_for(path);
        match ProcessExtension::spawn(&program, &args, options.clone()).await {
            Ok(ext) => loaded.push(ext.extension()),
            Err(e) => warnings.push(e.to_string()),
        }
    }
    loaded
}

/// Where the pi host finds node and its files.
pub struct PiHost<'a> {
    /// The agent dir (`pi-host/` beneath it holds the host and pi's packages).
    pub agent_dir: &'a Path,
    /// The settings key `nodePath`.
    pub node_path: Option<&'a str>,
}

/// Starts the pi extension host for `paths`; its load notices become warnings.
async fn load_pi(
    paths: &[PathBuf],
    options: &ProcessOptions,
    pi: &PiHost<'_>,
    warnings: &mut Vec<String>,
) -> Option<Extension> {
    let names = || {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let node = match rho_pi_host::find_node(pi.node_path) {
        Ok(node) => node,
        Err(e) => {
            warnings.push(format!("pi extensions not loaded ({}): {e}", names()));
            return None;
        }
    };
    let host_dir = pi.agent_dir.join("pi-host");
    let entry = match rho_pi_host::install_host(&host_dir) {
        Ok(entry) => entry,
        Err(e) => {
            let dir = host_dir.display();
            warnings.push(format!(
                "pi extensions not loaded ({}): cannot write the host into {dir}: {e}",
                names()
            ));
            return None;
        }
    };
    let packages = rho_pi_host::packages_dir(pi.agent_dir);
    let mut options = options.clone();
    // Loading many extensions takes a while; the first npm install of pi's packages longer.
    options.handshake_timeout = if rho_pi_host::packages_ready(&packages) {
        std::time::Duration::from_secs(60)
    } else {
        std::time::Duration::from_secs(600)
    };
    let host = rho_pi_host::HostPaths {
        node: &node,
        entry: &entry,
        packages: &packages,
        agent_dir: pi.agent_dir,
    };
    let (program, args) = rho_pi_host::command(&host, paths);
    match ProcessExtension::spawn(&program, &args, options.clone()).await {
        Ok(ext) => {
            warnings.extend(ext.registration().notices.iter().cloned());
            let launch = crate::pi_supervisor::Launch {
                program,
                args,
                options,
                files: names(),
            };
            Some(crate::pi_supervisor::Supervisor::extension(launch, ext))
        }
        Err(e) => {
            warnings.push(format!("pi extensions not loaded ({}): {e}", names()));
            None
        }
    }
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
