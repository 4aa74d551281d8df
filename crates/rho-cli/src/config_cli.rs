//! `rho config`: the resource switches of pi 1.6's `pi config`, on the command line instead
//! of a full-screen list. `rho config [-l]` lists pi's built-in extensions and every
//! resource the settings' lists, the conventional folders and the packages offer, each on or
//! off; `rho config enable|disable <name>` switches one, writing what pi's selector writes: a
//! `+`/`-` entry in the settings list of its scope (`-builtin:mcp` in `extensions`, `-path`
//! relative to the settings file), or in the package entry's filter for a package's resource.
//! `-l` writes the project's settings (for built-ins).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rho_packages::local::BUILTINS;
use rho_packages::patterns::relative;
use rho_packages::{Kind, Provenance, Resolved, Resource, Scope};
use serde_json::{json, Value};

use crate::args::Args;
use crate::project::Project;

const USAGE: &str = "Usage:
  rho config [-l]                      List built-ins and resources, on [x] or off [ ]
  rho config enable <name> [-l]        Switch one on (builtin:<name>, or a resource as listed)
  rho config disable <name> [-l]       Switch one off

-l, --local writes the project's settings.json (built-ins; a resource is written where it
is declared).
";

/// Why `rho config` could not list or switch, with what to do instead.
#[derive(Debug, thiserror::Error)]
enum ConfigError {
    /// The words are not a `rho config` command.
    #[error("{}", USAGE.trim_end())]
    Usage,
    /// `-l` with no project folder to write.
    #[error("no project folder")]
    NoProjectFolder,
    /// The name matches no built-in and no resource.
    #[error("No resource named \"{0}\": see `rho config` for the names")]
    NoResource(String),
    /// A resource of an `-e` folder lives for that run only: no settings file lists it.
    #[error(
        "\"{0}\" comes from an -e folder, loaded for one run only; there is no setting to switch"
    )]
    Temporary(String),
    /// The package's settings file no longer lists the package.
    #[error("{} does not declare {package}", .file.display())]
    NotDeclared {
        /// The settings file.
        file: PathBuf,
        /// The package source.
        package: String,
    },
    /// The settings file could not be written.
    #[error(transparent)]
    Settings(#[from] rho_core::settings::SettingsError),
}

/// `rho config ...` (`argv` after `config`).
pub fn command(argv: &[String]) -> ExitCode {
    if argv.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let local = argv.iter().any(|a| a == "-l" || a == "--local");
    let words: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "-l" && *a != "--local")
        .collect();
    let agent_dir = match crate::plan::agent_dir() {
        Ok(dir) => dir,
        Err(e) => return fail(e),
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let project = Project::resolve(None, &agent_dir, &cwd, &mut Vec::new());
    let settings = project.settings(&agent_dir);
    // Reading only: nothing missing is installed.
    let quiet = Args {
        offline: true,
        ..Args::default()
    };
    let resolved =
        crate::packages::prepare(&quiet, &settings, &agent_dir, &project, &mut Vec::new());
    let result = match words.as_slice() {
        [] | ["list"] => Ok(list(&resolved)),
        [verb @ ("enable" | "disable"), name] => {
            let on = *verb == "enable";
            switch(&resolved, name, on, (&agent_dir, &project, local))
        }
        _ => Err(ConfigError::Usage),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("Error: {e}");
    ExitCode::FAILURE
}

/// How a resource is named: its path relative to its package's folder or its settings
/// folder (pi's pattern), or the absolute path when it lies outside.
fn name_of(resource: &Resource) -> String {
    let rel = relative(&resource.origin.root, &resource.path);
    if rel.starts_with("../") {
        resource.path.display().to_string()
    } else {
        rel
    }
}

fn list(resolved: &Resolved) -> String {
    let mark = |on: bool| if on { "[x]" } else { "[ ]" };
    let mut out = String::from("Built-in:\n");
    for name in BUILTINS {
        let on = resolved.builtin_enabled(name);
        out.push_str(&format!("  {} builtin:{name}\n", mark(on)));
    }
    for kind in Kind::ALL {
        let all = resolved.all(kind);
        if all.is_empty() {
            continue;
        }
        let title = kind.key();
        out.push_str(&format!("{}{}:\n", title[..1].to_uppercase(), &title[1..]));
        for r in all {
            let o = &r.origin;
            let from = match o.provenance {
                Provenance::Package => format!("{}, {}", o.source, o.scope.as_str()),
                _ => format!("{}, {}", o.provenance.as_str(), o.scope.as_str()),
            };
            out.push_str(&format!("  {} {} ({from})\n", mark(r.enabled), name_of(r)));
        }
    }
    out
}

/// The settings folder a scope writes: the agent dir, or the project folder whose settings
/// already name `key` (else the first with a settings file, else `.rho`).
fn scope_dir(
    agent_dir: &Path,
    project: &Project,
    local: bool,
    key: &str,
) -> Result<PathBuf, ConfigError> {
    if !local {
        return Ok(agent_dir.to_path_buf());
    }
    let folders = rho_core::resources::project_dirs::project_dirs(&project.cwd);
    let file = |d: &PathBuf| d.join("settings.json");
    let names = |d: &PathBuf| rho_core::settings::file_scope(&file(d)).contains_key(key);
    folders
        .iter()
        .find(|d| names(d))
        .or_else(|| folders.iter().find(|d| file(d).is_file()))
        .or(folders.first())
        .cloned()
        .ok_or(ConfigError::NoProjectFolder)
}

/// `entries` without the switches of `target`, with `on`'s switch appended.
fn switched(entries: &[Value], target: &str, on: bool) -> Value {
    let mut kept: Vec<Value> = entries
        .iter()
        .filter(|e| {
            let text = e.as_str().unwrap_or_default();
            text.strip_prefix(['+', '-', '!']) != Some(target)
        })
        .cloned()
        .collect();
    kept.push(json!(format!("{}{target}", if on { '+' } else { '-' })));
    Value::Array(kept)
}

fn switch(
    resolved: &Resolved,
    name: &str,
    on: bool,
    (agent_dir, project, local): (&Path, &Project, bool),
) -> Result<String, ConfigError> {
    let builtin = name.strip_prefix("builtin:").unwrap_or(name);
    if BUILTINS.contains(&builtin) {
        let dir = scope_dir(agent_dir, project, local, "extensions")?;
        let target = format!("builtin:{builtin}");
        let file = dir.join("settings.json");
        let current = rho_core::settings::file_scope(&file);
        let list = current
            .get("extensions")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        write(&file, "extensions", switched(&list, &target, on))?;
        return Ok(done(&target, on, &file));
    }
    let cwd = &project.cwd;
    let given = rho_packages::config::resolve_path(name, cwd);
    let found = Kind::ALL.iter().find_map(|kind| {
        resolved
            .all(*kind)
            .iter()
            .find(|r| name_of(r) == name || r.path == given)
            .map(|r| (*kind, r))
    });
    let Some((kind, resource)) = found else {
        return Err(ConfigError::NoResource(name.to_string()));
    };
    let origin = &resource.origin;
    let pattern = relative(&origin.root, &resource.path);
    match origin.provenance {
        Provenance::Package => {
            let dir = match origin.scope {
                Scope::User => agent_dir.to_path_buf(),
                Scope::Project => scope_dir(agent_dir, project, true, "packages")?,
                Scope::Temporary => return Err(ConfigError::Temporary(name.to_string())),
            };
            let file = dir.join("settings.json");
            let packages = package_filter(&file, &origin.source, kind, &pattern, on)?;
            write(&file, "packages", packages)?;
            Ok(done(name, on, &file))
        }
        Provenance::Local | Provenance::Auto => {
            let file = settings_file_of(origin, (agent_dir, project), kind)?;
            let current = rho_core::settings::file_scope(&file);
            let list = current
                .get(kind.key())
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            write(&file, kind.key(), switched(&list, &pattern, on))?;
            Ok(done(name, on, &file))
        }
    }
}

/// The settings file whose list governs a folder's or a list's resource: the agent dir's for
/// the user's, the project folder's (`.rho`, `.pi`) it lies in, else the project's.
fn settings_file_of(
    origin: &rho_packages::Origin,
    (agent_dir, project): (&Path, &Project),
    kind: Kind,
) -> Result<PathBuf, ConfigError> {
    let dir = match origin.scope {
        Scope::User => agent_dir.to_path_buf(),
        Scope::Project if project.folders().contains(&origin.root) => origin.root.clone(),
        Scope::Project => scope_dir(agent_dir, project, true, kind.key())?,
        Scope::Temporary => return Err(ConfigError::Temporary(origin.source.clone())),
    };
    Ok(dir.join("settings.json"))
}

/// The `packages` list with `source`'s entry in the object form, `pattern`'s switch in its
/// `kind` filter.
fn package_filter(
    file: &Path,
    source: &str,
    kind: Kind,
    pattern: &str,
    on: bool,
) -> Result<Value, ConfigError> {
    let current = rho_core::settings::file_scope(file);
    let mut packages = current
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let entry = packages
        .iter_mut()
        .find(|p| p.as_str() == Some(source) || p["source"].as_str() == Some(source))
        .ok_or_else(|| ConfigError::NotDeclared {
            file: file.to_path_buf(),
            package: source.to_string(),
        })?;
    if entry.is_string() {
        *entry = json!({"source": source});
    }
    let filter = entry[kind.key()].as_array().cloned().unwrap_or_default();
    entry[kind.key()] = switched(&filter, pattern, on);
    Ok(Value::Array(packages))
}

fn write(file: &Path, key: &str, value: Value) -> Result<(), ConfigError> {
    Ok(rho_core::settings::set_in_file(file, key, value)?)
}

fn done(name: &str, on: bool, file: &Path) -> String {
    let state = if on { "Enabled" } else { "Disabled" };
    format!("{state} {name} in {}\n", file.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_replaces_the_earlier_ones_of_its_target() {
        let list = [
            json!("../lib"),
            json!("!x.md"),
            json!("+a.md"),
            json!("-b.md"),
        ];
        assert_eq!(
            switched(&list, "a.md", false),
            json!(["../lib", "!x.md", "-b.md", "-a.md"])
        );
        assert_eq!(
            switched(&[json!("-builtin:mcp")], "builtin:mcp", true),
            json!(["+builtin:mcp"])
        );
    }
}
