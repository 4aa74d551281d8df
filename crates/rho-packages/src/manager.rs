//! What `rho install/remove/list/update` and a starting session do with packages, following
//! pi 1.6's package manager: declarations are read per settings file, a missing package is
//! installed into the folder of the file declaring it, and the settings entry is added or
//! removed keeping the rest of the file as the user wrote it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::config::{self, resolve_path, Declared, Entry, Scope};
use super::install::Installer;
use super::locate::{self, Locations};
use super::resolve::Resolved;
use super::source::{NpmSource, Source};
use super::PackageError;

/// Where packages are declared and installed for one working directory.
#[derive(Debug, Clone)]
pub struct PackageManager {
    /// The directory commands run in: relative sources given on the command line resolve
    /// from it.
    pub cwd: PathBuf,
    /// rho's agent dir (user scope).
    pub agent_dir: PathBuf,
    /// The trusted project's `.rho` folder, `None` when the project is not trusted.
    pub project_dir: Option<PathBuf>,
    /// Where else installs are found.
    pub locations: Locations,
    /// npm and git.
    pub installer: Installer,
    /// `--offline`: nothing is installed or updated.
    pub offline: bool,
}

/// A configured package as `rho list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The source as written.
    pub source: String,
    /// User or project.
    pub scope: Scope,
    /// The object form (with filters).
    pub filtered: bool,
    /// Where it is installed, if it is.
    pub installed: Option<PathBuf>,
}

impl PackageManager {
    fn dirs(&self) -> Vec<(Scope, PathBuf)> {
        config::settings_dirs(&self.agent_dir, self.project_dir.as_deref())
    }

    /// Every declaration, each package once (see [`config::dedupe`]), with problems found.
    pub fn declared(&self) -> (Vec<Declared>, Vec<String>) {
        let (all, problems) = config::declared(&self.dirs());
        (config::dedupe(all), problems)
    }

    /// The configured packages, user ones first, as `rho list` shows them.
    pub fn list(&self) -> Vec<Listed> {
        let (all, _) = config::declared(&self.dirs());
        let (users, projects): (Vec<_>, Vec<_>) =
            all.into_iter().partition(|d| d.scope == Scope::User);
        users
            .into_iter()
            .chain(projects)
            .map(|d| Listed {
                installed: self.locations.installed(&d),
                filtered: d.entry.filter.is_some(),
                source: d.entry.source,
                scope: d.scope,
            })
            .collect()
    }

    /// The resources of `decls`, installing each missing package first unless `install` is
    /// false or rho is offline. `progress` gets pi's `Installing <source>...` lines; a package
    /// that fails to install is left out with a warning naming how to remove it.
    pub fn prepare(
        &self,
        decls: &[Declared],
        install: bool,
        progress: &mut dyn FnMut(&str),
    ) -> (Resolved, Vec<String>) {
        let mut resolved = Resolved::default();
        let mut warnings = Vec::new();
        let mut global_root: Option<Option<PathBuf>> = None;
        for decl in decls {
            // A narrowing project entry loads the user's installation of the package.
            let base = decl
                .is_delta()
                .then(|| {
                    decls
                        .iter()
                        .find(|d| d.scope == Scope::User && d.identity() == decl.identity())
                })
                .flatten()
                .unwrap_or(decl);
            if let Source::Local(path) = base.source() {
                let path = resolve_path(&path, &base.dir);
                if path.is_file() {
                    resolved.add_extension_file(&path, decl);
                } else if path.is_dir() && !resolved.add_package(&path, decl) {
                    resolved.add_extension_folder(&path, decl);
                }
                continue;
            }
            let installed = self.locations.installed(base);
            if installed.is_none() && install && !self.offline {
                if let Some(found) = self.global_install(base, &mut global_root) {
                    resolved.add_package(&found, decl);
                    continue;
                }
            }
            let root = match installed {
                Some(root) => root,
                None if !install || self.offline => continue,
                None => {
                    progress(&format!("Installing {}...", base.entry.source));
                    if let Err(e) = self.install_declared(base) {
                        let local = if base.scope == Scope::Project {
                            " --local"
                        } else {
                            ""
                        };
                        warnings.push(format!(
                            "Extension package \"{}\": failed to install ({e}). Run \"rho remove {}{local}\" to remove it from settings.json.",
                            base.entry.source, base.entry.source
                        ));
                        continue;
                    }
                    match self.locations.installed(base) {
                        Some(root) => root,
                        None => continue,
                    }
                }
            };
            resolved.add_package(&root, decl);
        }
        (resolved, warnings)
    }

    /// A user npm package pi 0.x installed globally (`npm root -g`, asked once per start and
    /// only for a package found nowhere else).
    fn global_install(
        &self,
        decl: &Declared,
        root: &mut Option<Option<PathBuf>>,
    ) -> Option<PathBuf> {
        let Source::Npm(npm) = decl.source() else {
            return None;
        };
        if decl.scope != Scope::User {
            return None;
        }
        let root = root.get_or_insert_with(|| self.installer.global_npm_root());
        root.as_ref()
            .map(|r| r.join(&npm.name))
            .filter(|p| p.is_dir())
    }

    /// Installs a declared npm or git package into its settings folder.
    fn install_declared(&self, decl: &Declared) -> Result<(), PackageError> {
        match decl.source() {
            Source::Npm(npm) => self.installer.npm_install(&decl.dir, &[npm.spec]),
            Source::Git(git) => self.installer.git_install(&decl.dir, &git),
            Source::Local(_) => Ok(()),
        }
    }

    /// The settings folder of a scope; project scope needs a trusted project.
    fn scope_dir(&self, local: bool) -> Result<(Scope, PathBuf), PackageError> {
        if !local {
            return Ok((Scope::User, self.agent_dir.clone()));
        }
        let dir = self.project_dir.clone().ok_or(PackageError::Untrusted)?;
        Ok((Scope::Project, dir))
    }

    /// `rho install <source> [-l]`: installs the package, then declares it in the user's (or
    /// with `local` the project's `.rho/`) settings.json.
    pub fn install(&self, source: &str, local: bool) -> Result<(), PackageError> {
        let (scope, dir) = self.scope_dir(local)?;
        match Source::parse(source) {
            Source::Npm(npm) => self.installer.npm_install(&dir, &[npm.spec])?,
            Source::Git(git) => self.installer.git_install(&dir, &git)?,
            Source::Local(path) => {
                let path = resolve_path(&path, &self.cwd);
                if !path.exists() {
                    return Err(PackageError::PathMissing(path));
                }
            }
        }
        self.add_to_settings(source, scope, &dir)?;
        Ok(())
    }

    /// The input's identity, a local path resolving from the working directory.
    fn input_identity(&self, source: &str) -> String {
        Source::parse(source).identity(|p| resolve_path(p, &self.cwd))
    }

    /// Adds `source` to `dir`'s settings.json, replacing an entry of the same package (an
    /// object entry keeps its filters). Returns whether the file changed.
    fn add_to_settings(
        &self,
        source: &str,
        scope: Scope,
        dir: &Path,
    ) -> Result<bool, PackageError> {
        let file = dir.join("settings.json");
        let mut list = packages_value(&file);
        let stored = match Source::parse(source) {
            Source::Local(path) => {
                let rel = super::patterns::relative(dir, &resolve_path(&path, &self.cwd));
                if rel.is_empty() {
                    ".".to_string()
                } else {
                    rel
                }
            }
            _ => source.to_string(),
        };
        let identity = self.input_identity(source);
        match list
            .iter_mut()
            .find(|v| names_package(v, scope, dir, &identity))
        {
            Some(Value::String(s)) if *s == stored => return Ok(false),
            Some(Value::Object(o)) if o.get("source").and_then(Value::as_str) == Some(&stored) => {
                return Ok(false)
            }
            Some(Value::Object(o)) => {
                o.insert("source".into(), Value::String(stored));
            }
            Some(other) => *other = Value::String(stored),
            None => list.push(Value::String(stored)),
        }
        rho_core::settings::set_in_file(&file, "packages", Value::Array(list))?;
        Ok(true)
    }

    /// `rho remove <source> [-l]`: takes the package out of the user's (or the project's
    /// `.rho/` and `.pi/`) settings and deletes what rho installed for that file. Returns
    /// false when no such package is declared there.
    pub fn remove(&self, source: &str, local: bool) -> Result<bool, PackageError> {
        let dirs: Vec<PathBuf> = if local {
            let dir = self.project_dir.as_deref().ok_or(PackageError::Untrusted)?;
            rho_core::resources::project_dirs::folders_of(Some(dir))
        } else {
            vec![self.agent_dir.clone()]
        };
        let scope = if local { Scope::Project } else { Scope::User };
        let identity = self.input_identity(source);
        let mut removed = false;
        for dir in dirs {
            let file = dir.join("settings.json");
            let list = packages_value(&file);
            let (gone, kept): (Vec<Value>, Vec<Value>) = list
                .into_iter()
                .partition(|v| names_package(v, scope, &dir, &identity));
            if gone.is_empty() {
                continue;
            }
            match Source::parse(source) {
                Source::Npm(npm) if locate::npm_path(&dir, &npm).exists() => {
                    self.installer.npm_uninstall(&dir, &npm.name)?
                }
                Source::Git(git) => self.installer.git_remove(&dir, &git)?,
                _ => {}
            }
            rho_core::settings::set_in_file(&file, "packages", Value::Array(kept))?;
            removed = true;
        }
        Ok(removed)
    }

    /// `rho update [source]`: brings every configured unpinned npm package to its newest
    /// version and every git package to its ref's newest commit, in the folder of the file
    /// declaring it. Returns pi's lines for what changed (`npm:x 1.0.0 -> 1.1.0`).
    pub fn update(
        &self,
        source: Option<&str>,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Vec<String>, PackageError> {
        let (all, _) = config::declared(&self.dirs());
        let (users, projects): (Vec<_>, Vec<_>) =
            all.into_iter().partition(|d| d.scope == Scope::User);
        let all: Vec<Declared> = users.into_iter().chain(projects).collect();
        let chosen: Vec<&Declared> = match source {
            None => all.iter().collect(),
            Some(s) => {
                let identity = self.input_identity(s);
                let hits: Vec<&Declared> =
                    all.iter().filter(|d| d.identity() == identity).collect();
                if hits.is_empty() {
                    return Err(PackageError::NoMatch(no_match(s, &all)));
                }
                hits
            }
        };
        if self.offline {
            return Ok(Vec::new());
        }
        let mut changes = Vec::new();
        let mut batches: Vec<(PathBuf, Scope, Vec<NpmUpdate>)> = Vec::new();
        for decl in &chosen {
            let Source::Npm(npm) = decl.source() else {
                continue;
            };
            if npm.pinned() {
                continue;
            }
            let before = self
                .locations
                .installed(decl)
                .and_then(|p| locate::installed_version(&p));
            match batches.iter_mut().find(|(dir, _, _)| *dir == decl.dir) {
                Some(batch) => batch.2.push((decl, npm, before)),
                None => batches.push((decl.dir.clone(), decl.scope, vec![(decl, npm, before)])),
            }
        }
        for (dir, scope, items) in batches {
            let label = match items.as_slice() {
                [(d, _, _)] => d.entry.source.clone(),
                _ => format!("{} npm packages", scope.as_str()),
            };
            progress(&format!("Updating {label}..."));
            let specs: Vec<String> = items
                .iter()
                .map(|(_, n, _)| match n.version {
                    Some(_) => n.spec.clone(),
                    None => format!("{}@latest", n.name),
                })
                .collect();
            self.installer.npm_install(&dir, &specs)?;
            for (decl, npm, before) in items {
                let after = locate::installed_version(&locate::npm_path(&dir, &npm));
                if after != before {
                    changes.push(change(decl, before.as_deref(), after.as_deref(), 64));
                }
            }
        }
        for decl in &chosen {
            let Source::Git(git) = decl.source() else {
                continue;
            };
            progress(&format!("Updating {}...", decl.entry.source));
            let before = self
                .locations
                .installed(decl)
                .and_then(|p| self.installer.git_head(&p));
            self.installer.git_update(&decl.dir, &git)?;
            let after = locate::git_path(&decl.dir, &git).and_then(|p| self.installer.git_head(&p));
            if after != before {
                changes.push(change(decl, before.as_deref(), after.as_deref(), 7));
            }
        }
        Ok(changes)
    }
}

/// An unpinned npm package to update: its declaration, source and version before.
type NpmUpdate<'a> = (&'a Declared, NpmSource, Option<String>);

/// pi's line for an updated package: `<source>[ (project)] <from> -> <to>`, commits cut to
/// `width` characters.
fn change(decl: &Declared, from: Option<&str>, to: Option<&str>, width: usize) -> String {
    let show =
        |v: Option<&str>| v.map_or("(none)".to_string(), |v| v.chars().take(width).collect());
    let scope = if decl.scope == Scope::Project {
        " (project)"
    } else {
        ""
    };
    format!(
        "{}{scope} {} -> {}",
        decl.entry.source,
        show(from),
        show(to)
    )
}

/// `<source>`, or with pi's hint when it names a configured package without its prefix:
/// `<source>. Did you mean npm:<source>?`.
fn no_match(source: &str, all: &[Declared]) -> String {
    let wanted = source.trim();
    let suggestion = all.iter().find_map(|d| {
        let hit = match d.source() {
            Source::Npm(npm) => wanted == npm.name || wanted == npm.spec,
            Source::Git(git) => {
                let short = format!("{}/{}", git.host, git.path);
                wanted == short
                    || git
                        .git_ref
                        .as_ref()
                        .is_some_and(|r| wanted == format!("{short}@{r}"))
            }
            Source::Local(_) => false,
        };
        hit.then(|| d.entry.source.clone())
    });
    match suggestion {
        Some(s) => format!("{source}. Did you mean {s}?"),
        None => source.to_string(),
    }
}

/// Whether the settings entry `value` of the file in `dir` is the package `identity`.
fn names_package(value: &Value, scope: Scope, dir: &Path, identity: &str) -> bool {
    Entry::from_value(value).is_some_and(|entry| {
        let decl = Declared {
            entry,
            scope,
            dir: dir.to_path_buf(),
        };
        decl.identity() == identity
    })
}

/// The `packages` array of a settings file (empty when missing).
fn packages_value(file: &Path) -> Vec<Value> {
    rho_core::settings::file_scope(file)
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn manager(tmp: &Path) -> PackageManager {
        let cwd = tmp.join("proj");
        std::fs::create_dir_all(&cwd).expect("mkdir");
        PackageManager {
            project_dir: Some(cwd.join(".rho")),
            cwd,
            agent_dir: tmp.join("agent"),
            locations: Locations {
                pi_agent_dir: tmp.join("pi"),
            },
            installer: Installer::new(Some(vec!["rho-no-npm-here".into()]), true),
            offline: false,
        }
    }

    fn settings(dir: &Path) -> Value {
        let text = std::fs::read_to_string(dir.join("settings.json")).expect("settings");
        serde_json::from_str(&text).expect("json")
    }

    #[test]
    fn a_local_install_is_stored_relative_to_its_settings_and_removed_by_any_spelling() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let m = manager(tmp.path());
        std::fs::create_dir_all(m.cwd.join("pkg")).expect("mkdir");
        m.install("./pkg", false).expect("install");
        assert_eq!(settings(&m.agent_dir)["packages"], json!(["../proj/pkg"]));
        m.install("./pkg", false).expect("again");
        assert_eq!(
            settings(&m.agent_dir)["packages"],
            json!(["../proj/pkg"]),
            "once"
        );
        let abs = m.cwd.join("pkg").display().to_string();
        assert!(m.remove(&abs, false).expect("remove"));
        assert_eq!(settings(&m.agent_dir)["packages"], json!([]));
        assert!(!m.remove(&abs, false).expect("nothing left"));
        let err = m.install("./missing", false).expect_err("no such path");
        assert!(
            err.to_string().starts_with("Path does not exist: "),
            "{err}"
        );
    }

    #[test]
    fn an_object_entry_keeps_its_filters_when_installed_again() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let m = manager(tmp.path());
        std::fs::create_dir_all(&m.agent_dir).expect("mkdir");
        std::fs::create_dir_all(m.cwd.join("pkg")).expect("mkdir");
        let before = json!({"theme": "dark", "packages": [{"source": "/elsewhere/pkg", "skills": []},
                                                           {"source": "../proj/pkg", "skills": []}]});
        std::fs::write(m.agent_dir.join("settings.json"), before.to_string()).expect("write");
        m.install(&m.cwd.join("pkg").display().to_string(), false)
            .expect("install");
        assert_eq!(
            settings(&m.agent_dir),
            before,
            "already declared: unchanged"
        );
    }

    #[test]
    fn project_scope_needs_trust_and_update_names_what_it_cannot_find() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut m = manager(tmp.path());
        m.project_dir = None;
        std::fs::create_dir_all(m.cwd.join("pkg")).expect("mkdir");
        assert!(matches!(
            m.install("./pkg", true),
            Err(PackageError::Untrusted)
        ));
        assert!(matches!(
            m.remove("./pkg", true),
            Err(PackageError::Untrusted)
        ));
        std::fs::create_dir_all(&m.agent_dir).expect("mkdir");
        std::fs::write(
            m.agent_dir.join("settings.json"),
            json!({"packages": ["npm:@s/tools@1.0.0"]}).to_string(),
        )
        .expect("write");
        let err = m
            .update(Some("@s/tools"), &mut |_| {})
            .expect_err("no match");
        assert_eq!(
            err.to_string(),
            "No matching package found for @s/tools. Did you mean npm:@s/tools@1.0.0?"
        );
    }

    #[test]
    fn a_package_that_cannot_be_installed_is_a_warning_naming_the_way_out() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let m = manager(tmp.path());
        std::fs::create_dir_all(m.project_dir.as_ref().expect("project")).expect("mkdir");
        std::fs::write(
            m.project_dir
                .as_ref()
                .expect("project")
                .join("settings.json"),
            json!({"packages": ["npm:gone"]}).to_string(),
        )
        .expect("write");
        let (decls, _) = m.declared();
        let mut lines = Vec::new();
        let (resolved, warnings) = m.prepare(&decls, true, &mut |l| lines.push(l.to_string()));
        assert!(resolved.enabled(super::super::Kind::Extensions).is_empty());
        assert_eq!(lines, ["Installing npm:gone..."]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with(
                "Extension package \"npm:gone\": failed to install (cannot run rho-no-npm-here: "
            ) && warnings[0]
                .ends_with("Run \"rho remove npm:gone --local\" to remove it from settings.json."),
            "{}",
            warnings[0]
        );
        let offline = PackageManager {
            offline: true,
            ..m.clone()
        };
        let (_, warnings) = offline.prepare(&decls, true, &mut |_| panic!("nothing runs"));
        assert!(warnings.is_empty());
    }
}
