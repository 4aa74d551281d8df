//! From installed packages to resource files, as pi 1.6's package manager resolves them:
//! each package's manifest or conventional folders, narrowed by the settings entry's
//! filters. The first package to name a file decides whether it is on (pi's "first wins").
//! The settings' own lists and the conventional folders join them (`local`), and every
//! kind is then ordered by pi's precedence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::collect;
use super::config::{Declared, Entry, Filter, Scope};
use super::kind::Kind;
use super::patterns;

/// Where a resource comes from, for `get_commands`' `sourceInfo` and messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// A package's source as written in settings.json; `local` or `auto` for the others.
    pub source: String,
    /// Whose settings declare it (or whose folder holds it).
    pub scope: Scope,
    /// The package's folder; the folder of the settings file or the searched folder's parent
    /// (pi's `baseDir`) for the others.
    pub root: PathBuf,
    /// How it was found.
    pub provenance: Provenance,
}

/// How a resource was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provenance {
    /// A package.
    Package,
    /// A settings list names it.
    Local,
    /// A conventional folder holds it.
    Auto,
}

impl Provenance {
    /// pi's word in `sourceInfo.source` for the non-package ones.
    pub fn as_str(self) -> &'static str {
        match self {
            Provenance::Package => "package",
            Provenance::Local => "local",
            Provenance::Auto => "auto",
        }
    }
}

impl Origin {
    /// pi's precedence rank (lower wins a name): the project's list, the project's folders,
    /// the user's list, the user's folders, packages.
    fn rank(&self) -> u8 {
        let scope = if self.scope == Scope::Project { 0 } else { 2 };
        match self.provenance {
            Provenance::Package => 4,
            Provenance::Local => scope,
            Provenance::Auto => scope + 1,
        }
    }
}

/// One resource file and whether it loads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// The file (an extension may also be a folder with an entry).
    pub path: PathBuf,
    /// Off when a filter or manifest pattern left it out.
    pub enabled: bool,
    /// Its package.
    pub origin: Arc<Origin>,
}

/// Every package resource, per kind, in load order.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    lists: [Vec<Resource>; 4],
    seen: [HashSet<PathBuf>; 4],
    /// pi's built-in extensions by name and whether they load (see `local`); empty until
    /// [`Resolved::add_top_level`] ran, when every one loads.
    pub(crate) builtins: Vec<(String, bool)>,
}

impl Resolved {
    /// The resources of `kind`, enabled or not.
    pub fn all(&self, kind: Kind) -> &[Resource] {
        &self.lists[kind as usize]
    }

    /// The paths of `kind` that load.
    pub fn enabled(&self, kind: Kind) -> Vec<PathBuf> {
        self.all(kind)
            .iter()
            .filter(|r| r.enabled)
            .map(|r| r.path.clone())
            .collect()
    }

    /// The paths of `kind` that load, in pi's order: the `-e` packages' first, then (when
    /// `discovered`; `--no-skills` and its kin say not) the rest. The command line's own
    /// resources load whatever those flags say, as in pi.
    pub fn loading(&self, kind: Kind, discovered: bool) -> Vec<PathBuf> {
        let (cli, rest): (Vec<&Resource>, Vec<&Resource>) = self
            .all(kind)
            .iter()
            .filter(|r| r.enabled)
            .partition(|r| r.origin.scope == Scope::Temporary);
        let rest = rest.into_iter().filter(|_| discovered);
        cli.into_iter()
            .chain(rest)
            .map(|r| r.path.clone())
            .collect()
    }

    /// Whether pi's built-in extension `name` (`mcp`, `codemode`, ...) loads as far as the
    /// settings' `extensions` lists say.
    pub fn builtin_enabled(&self, name: &str) -> bool {
        self.builtins
            .iter()
            .find(|(n, _)| n == name)
            .is_none_or(|(_, on)| *on)
    }

    /// Orders each kind by [`Origin::rank`], keeping the order within a rank.
    pub(crate) fn sort_by_precedence(&mut self) {
        for list in &mut self.lists {
            list.sort_by_key(|r| r.origin.rank());
        }
    }

    /// Where a loaded resource file came from.
    pub fn origin_of(&self, path: &Path) -> Option<&Origin> {
        self.lists
            .iter()
            .flatten()
            .find(|r| r.path == path)
            .map(|r| r.origin.as_ref())
    }

    /// Records `path` unless an earlier package already decided about it.
    pub(crate) fn add(&mut self, kind: Kind, path: PathBuf, enabled: bool, origin: &Arc<Origin>) {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.seen[kind as usize].insert(key) {
            self.lists[kind as usize].push(Resource {
                path,
                enabled,
                origin: origin.clone(),
            });
        }
    }

    /// Adds the resources of the package installed at `root`, declared by `decl` (whose
    /// filter applies; `base` is the declaration whose source was installed, for a narrowing
    /// entry the user's one). Returns whether the package offered any resource folder or list.
    pub fn add_package(&mut self, root: &Path, decl: &Declared) -> bool {
        let origin = Arc::new(Origin {
            source: decl.entry.source.clone(),
            scope: decl.scope,
            root: root.to_path_buf(),
            provenance: Provenance::Package,
        });
        let manifest = collect::read_manifest(root);
        if let Some(filter) = &decl.entry.filter {
            for kind in Kind::ALL {
                self.add_filtered(root, kind, filter, manifest.as_ref(), &origin);
            }
            return true;
        }
        if let Some(manifest) = manifest.as_ref().filter(|m| m.lists_resources()) {
            for kind in Kind::ALL {
                self.add_listed(root, kind, manifest.of(kind), &origin);
            }
            return true;
        }
        let mut any = false;
        for kind in Kind::ALL {
            let dir = root.join(kind.key());
            if dir.exists() {
                any = true;
                for file in collect::in_folder(&dir, kind) {
                    self.add(kind, file, true, &origin);
                }
            }
        }
        any
    }

    /// A folder given with `-e`: as in pi, a package when it has a manifest listing resources
    /// or a conventional resource folder (`extensions/`, `skills/`, `prompts/`, `themes/`),
    /// whose resources then load from there (an `index.ts` beside them does not). Returns
    /// whether it was one; otherwise the folder is itself an extension.
    pub fn add_temporary(&mut self, dir: &Path) -> bool {
        let is_package = collect::read_manifest(dir).is_some_and(|m| m.lists_resources())
            || Kind::ALL.iter().any(|k| dir.join(k.key()).is_dir());
        is_package && self.add_installed_temporary(dir, &dir.to_string_lossy())
    }

    /// The npm or git package `-e <source>` installed at `root` (see `temporary`): what it
    /// offers loads for this run, marked as coming from `source`. Returns whether it offered
    /// any resource.
    pub fn add_installed_temporary(&mut self, root: &Path, source: &str) -> bool {
        let decl = Declared {
            entry: Entry {
                source: source.to_string(),
                filter: None,
            },
            scope: Scope::Temporary,
            dir: root.to_path_buf(),
        };
        self.add_package(root, &decl)
    }

    /// The extensions that load from the package `-e <source>` named by npm or git (empty
    /// when it could not be installed).
    pub fn temporary_source_extensions(&self, source: &str) -> Vec<PathBuf> {
        self.all(Kind::Extensions)
            .iter()
            .filter(|r| {
                r.enabled && r.origin.scope == Scope::Temporary && r.origin.source == source
            })
            .map(|r| r.path.clone())
            .collect()
    }

    /// The extensions that load from the `-e` package at `dir`; `None` when `dir` was not
    /// taken as one ([`Self::add_temporary`]).
    pub fn temporary_extensions(&self, dir: &Path) -> Option<Vec<PathBuf>> {
        let taken = self.lists.iter().flatten().any(|r| is_temporary(r, dir));
        taken.then(|| {
            self.all(Kind::Extensions)
                .iter()
                .filter(|r| r.enabled && is_temporary(r, dir))
                .map(|r| r.path.clone())
                .collect()
        })
    }

    /// A local file source: one extension.
    pub fn add_extension_file(&mut self, file: &Path, decl: &Declared) {
        let origin = Arc::new(Origin {
            source: decl.entry.source.clone(),
            scope: decl.scope,
            root: file.parent().unwrap_or(file).to_path_buf(),
            provenance: Provenance::Package,
        });
        self.add(Kind::Extensions, file.to_path_buf(), true, &origin);
    }

    /// A folder source that offers no resources is itself one extension.
    pub fn add_extension_folder(&mut self, dir: &Path, decl: &Declared) {
        self.add_extension_file(dir, decl);
    }

    /// The files a manifest list selects (its own `!`/`+`/`-` applied).
    fn add_listed(
        &mut self,
        root: &Path,
        kind: Kind,
        entries: Option<&[String]>,
        origin: &Arc<Origin>,
    ) {
        for file in listed(root, kind, entries) {
            self.add(kind, file, true, origin);
        }
    }

    fn add_filtered(
        &mut self,
        root: &Path,
        kind: Kind,
        filter: &Filter,
        manifest: Option<&collect::Manifest>,
        origin: &Arc<Origin>,
    ) {
        let offered = || offered(root, kind, manifest);
        if filter.autoload == Some(false) {
            let patterns = filter.of(kind).unwrap_or_default();
            if !patterns.is_empty() {
                for (file, on) in patterns::switches(&offered(), patterns, root) {
                    self.add(kind, file, on, origin);
                }
            }
            return;
        }
        match filter.of(kind) {
            None => {
                let entries = manifest.and_then(|m| m.of(kind));
                match entries {
                    Some(_) => self.add_listed(root, kind, entries, origin),
                    None => {
                        for file in offered() {
                            self.add(kind, file, true, origin);
                        }
                    }
                }
            }
            Some(patterns) => {
                let all = offered();
                let on: HashSet<PathBuf> = if patterns.is_empty() {
                    HashSet::new()
                } else {
                    patterns::apply(&all, patterns, root).into_iter().collect()
                };
                for file in all {
                    let enabled = on.contains(&file);
                    self.add(kind, file, enabled, origin);
                }
            }
        }
    }
}

/// What a manifest list selects: its files less those its own patterns leave out.
fn is_temporary(resource: &Resource, root: &Path) -> bool {
    resource.origin.scope == Scope::Temporary && resource.origin.root == root
}

fn listed(root: &Path, kind: Kind, entries: Option<&[String]>) -> Vec<PathBuf> {
    let Some(entries) = entries else {
        return Vec::new();
    };
    let all = collect::manifest_files(entries, root, kind);
    let own: Vec<String> = entries
        .iter()
        .filter(|e| patterns::is_override(e))
        .cloned()
        .collect();
    if own.is_empty() {
        all
    } else {
        patterns::apply(&all, &own, root)
    }
}

/// Everything the package offers of `kind`: its manifest's selection, else the conventional
/// folder's files. Filters choose among these and never add to them.
fn offered(root: &Path, kind: Kind, manifest: Option<&collect::Manifest>) -> Vec<PathBuf> {
    match manifest.and_then(|m| m.of(kind)).filter(|e| !e.is_empty()) {
        Some(entries) => listed(root, kind, Some(entries)),
        None => {
            let dir = root.join(kind.key());
            if dir.exists() {
                collect::in_folder(&dir, kind)
            } else {
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::Entry;
    use super::*;
    use serde_json::json;

    fn package(files: &[&str], manifest: Option<serde_json::Value>) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().expect("tempdir");
        for rel in files {
            let path = tmp.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "---\ndescription: d\n---\n").expect("write");
        }
        let pkg = json!({"name": "p", "version": "1.0.0", "pi": manifest});
        std::fs::write(tmp.path().join("package.json"), pkg.to_string()).expect("pkg");
        tmp
    }

    fn declared(entry: serde_json::Value, scope: Scope) -> Declared {
        Declared {
            entry: Entry::from_value(&entry).expect("entry"),
            scope,
            dir: PathBuf::from("/agent"),
        }
    }

    fn on(resolved: &Resolved, kind: Kind, root: &Path) -> Vec<String> {
        resolved
            .enabled(kind)
            .iter()
            .map(|p| patterns::relative(root, p))
            .collect()
    }

    const FILES: [&str; 5] = [
        "extensions/a.ts",
        "extensions/legacy.ts",
        "skills/one/SKILL.md",
        "prompts/review.md",
        "prompts/other.md",
    ];

    #[test]
    fn the_object_form_narrows_what_loads() {
        let pkg = package(&FILES, None);
        let root = pkg.path();
        let mut resolved = Resolved::default();
        let decl = declared(
            json!({"source": "npm:p", "extensions": ["extensions/*.ts", "!extensions/legacy.ts"],
                   "skills": [], "prompts": ["prompts/review.md"]}),
            Scope::User,
        );
        assert!(resolved.add_package(root, &decl));
        assert_eq!(on(&resolved, Kind::Extensions, root), ["extensions/a.ts"]);
        assert!(on(&resolved, Kind::Skills, root).is_empty());
        assert_eq!(on(&resolved, Kind::Prompts, root), ["prompts/review.md"]);
        assert_eq!(resolved.all(Kind::Skills).len(), 1, "known, switched off");
        let origin = resolved
            .origin_of(&root.join("prompts/review.md"))
            .expect("origin");
        assert_eq!(origin.source, "npm:p");
    }

    #[test]
    fn filters_cannot_reach_past_the_manifest() {
        let pkg = package(&FILES, Some(json!({"prompts": ["prompts/review.md"]})));
        let root = pkg.path();
        let mut resolved = Resolved::default();
        let decl = declared(
            json!({"source": "npm:p", "prompts": ["prompts/*.md"]}),
            Scope::User,
        );
        resolved.add_package(root, &decl);
        assert_eq!(on(&resolved, Kind::Prompts, root), ["prompts/review.md"]);
        assert_eq!(
            on(&resolved, Kind::Extensions, root).len(),
            2,
            "as in pi, a kind the manifest leaves out falls back to its folder under a filter"
        );
    }

    #[test]
    fn a_narrowing_project_entry_switches_before_the_users_entry_loads_the_rest() {
        let pkg = package(&FILES, None);
        let root = pkg.path();
        let mut resolved = Resolved::default();
        let delta = declared(
            json!({"source": "npm:p", "autoload": false, "prompts": ["-prompts/other.md"]}),
            Scope::Project,
        );
        resolved.add_package(root, &delta);
        resolved.add_package(root, &declared(json!("npm:p"), Scope::User));
        assert_eq!(on(&resolved, Kind::Prompts, root), ["prompts/review.md"]);
        assert_eq!(on(&resolved, Kind::Skills, root), ["skills/one/SKILL.md"]);
    }

    #[test]
    fn an_e_folder_with_resource_folders_is_a_package_and_one_without_is_not() {
        let pkg = package(&["index.ts", "prompts/plan.md", "agents/scout.md"], None);
        let mut resolved = Resolved::default();
        assert!(resolved.add_temporary(pkg.path()));
        assert_eq!(
            on(&resolved, Kind::Prompts, pkg.path()),
            ["prompts/plan.md"]
        );
        assert_eq!(
            resolved.temporary_extensions(pkg.path()),
            Some(Vec::new()),
            "its index.ts is not loaded"
        );
        let plain = package(&["index.ts", "utils.ts"], None);
        assert!(!resolved.add_temporary(plain.path()));
        assert_eq!(resolved.temporary_extensions(plain.path()), None);
    }

    #[test]
    fn the_e_packages_resources_load_first_and_whatever_the_flags_say() {
        let user = package(&["prompts/mine.md"], None);
        let cli = package(&["prompts/tried.md"], None);
        let mut resolved = Resolved::default();
        resolved.add_package(user.path(), &declared(json!("npm:p"), Scope::User));
        assert!(resolved.add_installed_temporary(cli.path(), "npm:q@1.0.0"));
        let loading = resolved.loading(Kind::Prompts, true);
        assert_eq!(
            loading,
            [
                cli.path().join("prompts/tried.md"),
                user.path().join("prompts/mine.md")
            ]
        );
        assert_eq!(
            resolved.loading(Kind::Prompts, false),
            [cli.path().join("prompts/tried.md")],
            "--no-prompt-templates leaves the command line's on"
        );
        assert_eq!(
            resolved.origin_of(&loading[0]).map(|o| o.source.as_str()),
            Some("npm:q@1.0.0")
        );
    }

    #[test]
    fn a_folder_without_resources_offers_none() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut resolved = Resolved::default();
        assert!(!resolved.add_package(tmp.path(), &declared(json!("./x"), Scope::User)));
    }
}
