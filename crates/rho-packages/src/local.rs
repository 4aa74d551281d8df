//! The resources settings.json names itself (`extensions`, `skills`, `prompts`, `themes`) and
//! those found in the conventional folders, resolved as pi 1.6's package manager resolves
//! them (settings.md, "Resources"):
//!
//! - A list's plain entries are files or folders, relative to the folder of the settings file
//!   naming them (the agent dir, or the project's `.rho`/`.pi`); `~` and absolute paths work.
//!   Its other entries choose among what the plain ones found: globs keep only their matches,
//!   `!glob` leaves matches out, `+path` brings one exact path back, `-path` leaves one out
//!   whatever else says.
//! - The folders (`<agent dir>/skills`, `.pi/prompts`, `.agents/skills`, ...) load whatever
//!   they hold, less what the same scope's list turns off with `!`/`-` (and `+` back on).
//! - Order, and so which of two same-named skills or templates wins: the project's list, the
//!   project's folders, the user's list, the user's folders, then packages.
//! - `builtin:<name>` entries of `extensions` switch pi's built-in extensions (`mcp`,
//!   `codemode`, ...): on unless the user's list turns one off; a project's `+`/`-`/`!` entry
//!   for it wins over the user's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::collect;
use super::config::{resolve_path, Scope};
use super::kind::Kind;
use super::patterns;
use super::resolve::{Origin, Provenance, Resolved};

/// The prefix of a built-in extension's name in `extensions` lists and `-e`.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// pi 1.6's built-in extensions, by the names its lists use.
pub const BUILTINS: [&str; 4] = ["mcp", "llama.cpp", "codemode", "tool-search"];

/// One settings file's folder and contents.
#[derive(Debug, Clone, Default)]
pub struct SettingsFile {
    /// The folder holding `settings.json`: the list's relative paths resolve from it, and its
    /// `extensions/`, `skills/`, `prompts/` and `themes/` are searched.
    pub dir: PathBuf,
    /// The file's object (`{}` when missing or broken).
    pub values: Map<String, Value>,
}

impl SettingsFile {
    /// Reads `<dir>/settings.json`.
    pub fn read(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            values: rho_core::settings::file_scope(&dir.join("settings.json")),
        }
    }

    /// The file's list for `kind` (pi 0.x's `skills` object keeps its `customDirectories`).
    fn list(&self, kind: Kind) -> Option<Vec<String>> {
        let value = match self.values.get(kind.key())? {
            Value::Object(old) if kind == Kind::Skills => old.get("customDirectories")?,
            value => value,
        };
        let items = value.as_array()?;
        Some(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        )
    }
}

/// Where resources are looked for.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The agent dir's settings.
    pub user: SettingsFile,
    /// The trusted project's folders, highest precedence first (`.rho`, `.pi`); empty when
    /// the project is not trusted.
    pub project: Vec<SettingsFile>,
    /// `.agents/skills` of the project folder and its parents (trusted projects only).
    pub project_agents_skills: Vec<PathBuf>,
    /// The user's `~/.agents/skills`.
    pub user_agents_skills: Option<PathBuf>,
}

impl Layout {
    /// The project's list for `kind` with the folder it resolves from: the first project
    /// folder whose settings name it (`.rho`'s replaces `.pi`'s, as settings layers do).
    fn project_list(&self, kind: Kind) -> Option<(Vec<String>, &Path)> {
        self.project
            .iter()
            .find_map(|f| f.list(kind).map(|l| (l, f.dir.as_path())))
    }
}

impl Resolved {
    /// Adds the settings' lists and the conventional folders of `layout` (after the packages,
    /// which were added first and so decide about a file they also name), then orders every
    /// kind by pi's precedence.
    pub fn add_top_level(&mut self, layout: &Layout) {
        for kind in Kind::ALL {
            if let Some((list, dir)) = layout.project_list(kind) {
                self.add_listed_paths(kind, &list, dir, Scope::Project);
            }
            if let Some(list) = layout.user.list(kind) {
                self.add_listed_paths(kind, &list, &layout.user.dir, Scope::User);
            }
        }
        for kind in Kind::ALL {
            let overrides = layout
                .project_list(kind)
                .map(|(l, _)| l)
                .unwrap_or_default();
            let mut project_extensions: Vec<PathBuf> = Vec::new();
            for folder in &layout.project {
                let mut found = in_folder(&folder.dir.join(kind.key()), kind);
                if kind == Kind::Extensions {
                    // `.rho/extensions/x.ts` hides `.pi/extensions/x.ts` (D17).
                    found.retain(|f| !project_extensions.iter().any(|p| same_name(p, f)));
                    project_extensions.extend(found.iter().cloned());
                }
                self.add_found(kind, found, &overrides, &folder.dir, Scope::Project);
            }
            if kind == Kind::Skills {
                for dir in &layout.project_agents_skills {
                    let base = dir.parent().unwrap_or(dir);
                    let found = agents_skills(dir);
                    self.add_found(kind, found, &overrides, base, Scope::Project);
                }
            }
            let user = &layout.user;
            let overrides = user.list(kind).unwrap_or_default();
            let found = in_folder(&user.dir.join(kind.key()), kind);
            self.add_found(kind, found, &overrides, &user.dir, Scope::User);
            if let (Kind::Skills, Some(dir)) = (kind, &layout.user_agents_skills) {
                let base = dir.parent().unwrap_or(dir);
                self.add_found(kind, agents_skills(dir), &overrides, base, Scope::User);
            }
        }
        self.builtins = builtin_switches(layout);
        self.sort_by_precedence();
    }

    /// A list's plain entries collected, its patterns choosing which load.
    fn add_listed_paths(&mut self, kind: Kind, list: &[String], base: &Path, scope: Scope) {
        let (plain, chosen): (Vec<&String>, Vec<&String>) = list
            .iter()
            .filter(|e| !e.starts_with(BUILTIN_PREFIX) && !is_builtin_override(e))
            .partition(|e| !patterns::is_pattern(e));
        let paths: Vec<PathBuf> = plain.iter().map(|p| resolve_path(p, base)).collect();
        let files = at_paths(&paths, kind);
        let chosen: Vec<String> = chosen.into_iter().cloned().collect();
        let on = patterns::apply(&files, &chosen, base);
        let origin = origin(Provenance::Local, scope, base);
        for file in files {
            let enabled = on.contains(&file);
            self.add(kind, file, enabled, &origin);
        }
    }

    /// Files found in a folder: on unless the scope's list switches them off.
    fn add_found(
        &mut self,
        kind: Kind,
        found: Vec<PathBuf>,
        list: &[String],
        base: &Path,
        scope: Scope,
    ) {
        let origin = origin(Provenance::Auto, scope, base);
        let overrides = Overrides::new(list);
        for file in found {
            let enabled = overrides.enabled(&file, base);
            self.add(kind, file, enabled, &origin);
        }
    }
}

fn origin(provenance: Provenance, scope: Scope, base: &Path) -> Arc<Origin> {
    Arc::new(Origin {
        source: provenance.as_str().to_string(),
        scope,
        root: base.to_path_buf(),
        provenance,
    })
}

fn same_name(a: &Path, b: &Path) -> bool {
    a.file_name() == b.file_name()
}

/// `+builtin:x`, `-builtin:x` or `!builtin:x`: a switch, not a path.
fn is_builtin_override(entry: &str) -> bool {
    entry
        .strip_prefix(['+', '-', '!'])
        .is_some_and(|rest| rest.starts_with(BUILTIN_PREFIX))
}

/// A list's `!`/`+`/`-` entries, compiled once for the files of a folder.
struct Overrides {
    excluded: patterns::Globs,
    force_in: patterns::Exact,
    force_out: patterns::Exact,
}

impl Overrides {
    fn new(list: &[String]) -> Self {
        let with = |prefix: char| -> Vec<&str> {
            list.iter().filter_map(|p| p.strip_prefix(prefix)).collect()
        };
        Self {
            excluded: patterns::Globs::new(&with('!')),
            force_in: patterns::Exact::new(&with('+')),
            force_out: patterns::Exact::new(&with('-')),
        }
    }

    /// pi's rule for a file found in a folder: `!glob` turns it off, then `+path` on, then
    /// `-path` off.
    fn enabled(&self, file: &Path, base: &Path) -> bool {
        let mut enabled = !self.excluded.matches(file, base);
        if self.force_in.matches(file, base) {
            enabled = true;
        }
        if self.force_out.matches(file, base) {
            enabled = false;
        }
        enabled
    }
}

/// The resources of `kind` a conventional folder holds: skills as in packages (folders with
/// a `SKILL.md`, top-level `.md` files), prompt templates and themes as the folder's own
/// `.md`/`.json` files (pi reads these folders one level deep), extensions as
/// [`extension_files`] finds them.
pub fn in_folder(dir: &Path, kind: Kind) -> Vec<PathBuf> {
    match kind {
        Kind::Skills => collect::in_folder(dir, kind),
        Kind::Extensions => extension_files(dir),
        Kind::Prompts | Kind::Themes => own_files(dir, kind),
    }
}

/// What `paths` name: a file as it is, a folder searched (recursively for templates and
/// themes, as pi searches a listed folder).
pub fn at_paths(paths: &[PathBuf], kind: Kind) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => out.push(path.clone()),
            Ok(m) if m.is_dir() && kind == Kind::Extensions => out.extend(extension_files(path)),
            Ok(m) if m.is_dir() => out.extend(collect::in_folder(path, kind)),
            _ => {}
        }
    }
    out
}

/// A folder's visible files of `kind`, not searched further.
fn own_files(dir: &Path, kind: Kind) -> Vec<PathBuf> {
    visible(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| kind.accepts(&n.to_string_lossy()))
        })
        .collect()
}

/// A folder's entries without dot names and `node_modules`, sorted.
fn visible(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The extensions of a folder: its own entries when it is one (package.json's
/// `pi.extensions`, else `index.ts`/`index.js`); else each file (pi's `.ts`/`.js`, and the
/// other programs rho runs as extensions) and each subfolder's entries.
pub fn extension_files(dir: &Path) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    if let Some(own) = collect::extension_entries(dir) {
        return own;
    }
    let mut out = Vec::new();
    for path in visible(dir) {
        if path.is_dir() {
            out.extend(collect::extension_entries(&path).unwrap_or_default());
        } else if path.is_file() {
            out.push(path);
        }
    }
    out
}

/// Skills of an Agent Skills folder: only folders holding a `SKILL.md` (no loose `.md`).
fn agents_skills(dir: &Path) -> Vec<PathBuf> {
    collect::in_folder(dir, Kind::Skills)
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "SKILL.md"))
        .collect()
}

/// Which built-in extensions load, in [`BUILTINS`] order: the project's switch for one wins,
/// else the user's list's overrides decide (on by default).
fn builtin_switches(layout: &Layout) -> Vec<(String, bool)> {
    let user = layout.user.list(Kind::Extensions).unwrap_or_default();
    let project = layout
        .project_list(Kind::Extensions)
        .map(|(l, _)| l)
        .unwrap_or_default();
    BUILTINS
        .iter()
        .map(|name| {
            let path = format!("{BUILTIN_PREFIX}{name}");
            let on = last_switch(&path, &project).unwrap_or_else(|| {
                let mut on = !builtin_matches(&path, &user, '!');
                if builtin_matches(&path, &user, '+') {
                    on = true;
                }
                if builtin_matches(&path, &user, '-') {
                    on = false;
                }
                on
            });
            (name.to_string(), on)
        })
        .collect()
}

/// The last of `list`'s `+`/`-`/`!` entries naming `path`: on for `+`, off otherwise.
fn last_switch(path: &str, list: &[String]) -> Option<bool> {
    list.iter().rev().find_map(|entry| {
        let prefix = entry.chars().next()?;
        let target = entry.strip_prefix(['+', '-', '!'])?;
        let hit = match prefix {
            '!' => glob_matches(target, path),
            _ => target == path,
        };
        hit.then_some(prefix == '+')
    })
}

/// Whether an entry of `list` starting with `prefix` names `path` (a glob for `!`).
fn builtin_matches(path: &str, list: &[String], prefix: char) -> bool {
    list.iter()
        .filter_map(|e| e.strip_prefix(prefix))
        .any(|target| match prefix {
            '!' => glob_matches(target, path),
            _ => target == path,
        })
}

fn glob_matches(pattern: &str, text: &str) -> bool {
    globset::Glob::new(pattern)
        .map(|g| g.compile_matcher().is_match(text))
        .unwrap_or(false)
}

#[cfg(test)]
#[path = "local_tests.rs"]
mod tests;
