//! The `packages` entries of settings.json, per file: pi 1.6 keeps user and project packages
//! apart (a project entry replaces the user's one of the same package, or with
//! `autoload: false` narrows it), so they are read from each file rather than from the
//! merged settings. A project's `.rho/settings.json` and `.pi/settings.json` both count,
//! `.rho/`'s entry winning for the same package (D17).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::kind::Kind;
use super::source::Source;

/// Whose settings declare a package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The agent dir's settings.json.
    User,
    /// A trusted project's settings.json.
    Project,
    /// A folder, npm or git package given with `-e` for this run only (pi's temporary
    /// package).
    Temporary,
}

impl Scope {
    /// pi's word for it (`user`, `project`, `temporary`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Temporary => "temporary",
        }
    }
}

/// The object form's narrowing of what a package loads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Per resource type: `None` loads what the package offers, `[]` none, else patterns.
    pub patterns: [Option<Vec<String>>; 4],
    /// `autoload: false` in a project entry: a change to the user's entry, not a replacement.
    pub autoload: Option<bool>,
}

impl Filter {
    /// The patterns for `kind`.
    pub fn of(&self, kind: Kind) -> Option<&[String]> {
        self.patterns[kind as usize].as_deref()
    }
}

/// One `packages` entry: a source string, or an object with `source` and filters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The source as written.
    pub source: String,
    /// The object form's filters (`None` for the string form).
    pub filter: Option<Filter>,
}

impl Entry {
    /// Reads one entry; `None` for anything that is neither form.
    pub fn from_value(value: &Value) -> Option<Entry> {
        match value {
            Value::String(source) => Some(Entry {
                source: source.clone(),
                filter: None,
            }),
            Value::Object(map) => {
                let source = map.get("source")?.as_str()?.to_string();
                let mut filter = Filter {
                    autoload: map.get("autoload").and_then(Value::as_bool),
                    ..Filter::default()
                };
                for kind in Kind::ALL {
                    filter.patterns[kind as usize] =
                        map.get(kind.key()).and_then(Value::as_array).map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect()
                        });
                }
                Some(Entry {
                    source,
                    filter: Some(filter),
                })
            }
            _ => None,
        }
    }
}

/// An entry where it was declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The entry.
    pub entry: Entry,
    /// User or project.
    pub scope: Scope,
    /// The folder of the settings.json holding it: relative local paths resolve from it and
    /// its `npm/` and `git/` hold what it installs.
    pub dir: PathBuf,
}

impl Declared {
    /// The parsed source.
    pub fn source(&self) -> Source {
        Source::parse(&self.entry.source)
    }

    /// The package's identity (see [`Source::identity`]).
    pub fn identity(&self) -> String {
        self.source().identity(|p| resolve_path(p, &self.dir))
    }
}

/// `packages` of one settings file's object, with the entries it cannot read.
pub fn entries_of(settings: &Map<String, Value>) -> (Vec<Entry>, Vec<String>) {
    let Some(list) = settings.get("packages") else {
        return (Vec::new(), Vec::new());
    };
    let Some(items) = list.as_array() else {
        return (Vec::new(), vec!["\"packages\" must be an array".into()]);
    };
    let mut bad = Vec::new();
    let entries = items
        .iter()
        .filter_map(|v| {
            let entry = Entry::from_value(v);
            if entry.is_none() {
                bad.push(format!(
                    "package entry {v} is neither a source string nor an object with \"source\""
                ));
            }
            entry
        })
        .collect();
    (entries, bad)
}

/// The settings folders that may declare packages, highest precedence first: the trusted
/// project's folders (`.rho/`, `.pi/`; none when `project_dir` is `None`), then the agent dir.
pub fn settings_dirs(agent_dir: &Path, project_dir: Option<&Path>) -> Vec<(Scope, PathBuf)> {
    rho_core::resources::project_dirs::folders_of(project_dir)
        .into_iter()
        .map(|d| (Scope::Project, d))
        .chain([(Scope::User, agent_dir.to_path_buf())])
        .collect()
}

/// Every declared package of these settings folders, in precedence order, with the problems
/// of entries that could not be read.
pub fn declared(dirs: &[(Scope, PathBuf)]) -> (Vec<Declared>, Vec<String>) {
    let mut all = Vec::new();
    let mut problems = Vec::new();
    for (scope, dir) in dirs {
        let file = dir.join("settings.json");
        let (entries, bad) = entries_of(&rho_core::settings::file_scope(&file));
        problems.extend(bad.into_iter().map(|b| format!("{}: {b}", file.display())));
        all.extend(entries.into_iter().map(|entry| Declared {
            entry,
            scope: *scope,
            dir: dir.clone(),
        }));
    }
    (all, problems)
}

/// Each package once, as pi 1.6 dedupes: the first declaration of an identity wins (project
/// over user, `.rho/` over `.pi/`), except that a project entry with `autoload: false` keeps
/// the user's entry after it, which it narrows.
pub fn dedupe(all: Vec<Declared>) -> Vec<Declared> {
    let mut out: Vec<Declared> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for decl in all {
        let identity = decl.identity();
        match seen.iter().find(|(id, _)| *id == identity) {
            None => {
                seen.push((identity, out.len()));
                out.push(decl);
            }
            Some(&(_, first)) => {
                let narrows = out[first].scope == Scope::Project
                    && decl.scope == Scope::User
                    && out[first].is_delta();
                if narrows {
                    out.push(decl);
                }
            }
        }
    }
    out
}

impl Declared {
    /// A project entry with `autoload: false`.
    pub fn is_delta(&self) -> bool {
        self.scope == Scope::Project
            && self
                .entry
                .filter
                .as_ref()
                .is_some_and(|f| f.autoload == Some(false))
    }
}

/// A settings path: `~` expanded, `file://` URLs made paths, relative ones joined to `base`.
pub fn resolve_path(input: &str, base: &Path) -> PathBuf {
    let input = input.trim();
    let input = input.strip_prefix("file://").unwrap_or(input);
    let expanded = rho_session::paths::expand_tilde(input, &rho_session::paths::process_env);
    normalize(&base.join(expanded))
}

/// `path` with `.` and `..` components folded, as node's `path.resolve` does.
pub fn normalize(path: &Path) -> PathBuf {
    rho_tools::path::normalize_lexically(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decl(entry: Value, scope: Scope, dir: &str) -> Declared {
        Declared {
            entry: Entry::from_value(&entry).expect("entry"),
            scope,
            dir: PathBuf::from(dir),
        }
    }

    #[test]
    fn both_forms_read_and_bad_entries_are_named() {
        let settings = json!({"packages": [
            "npm:a",
            {"source": "npm:b", "skills": [], "prompts": ["prompts/x.md"], "autoload": false},
            3
        ]});
        let (entries, bad) = entries_of(settings.as_object().expect("object"));
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].filter, None);
        let filter = entries[1].filter.as_ref().expect("filter");
        assert_eq!(filter.of(Kind::Skills), Some(&[][..]));
        assert_eq!(filter.of(Kind::Extensions), None);
        assert_eq!(filter.of(Kind::Prompts).map(<[String]>::len), Some(1));
        assert_eq!(filter.autoload, Some(false));
        assert_eq!(bad.len(), 1, "{bad:?}");
    }

    #[test]
    fn the_project_entry_wins_unless_it_narrows_the_users() {
        let all = vec![
            decl(json!("npm:a@2"), Scope::Project, "/p/.rho"),
            decl(json!("npm:a@1"), Scope::Project, "/p/.pi"),
            decl(
                json!({"source": "npm:b", "autoload": false}),
                Scope::Project,
                "/p/.rho",
            ),
            decl(json!("npm:a"), Scope::User, "/agent"),
            decl(json!("npm:b"), Scope::User, "/agent"),
            decl(json!("./local"), Scope::User, "/agent"),
            decl(json!("/agent/local"), Scope::User, "/elsewhere"),
        ];
        let kept: Vec<(String, Scope)> = dedupe(all)
            .into_iter()
            .map(|d| (d.entry.source, d.scope))
            .collect();
        assert_eq!(
            kept,
            [
                ("npm:a@2".to_string(), Scope::Project),
                ("npm:b".to_string(), Scope::Project),
                ("npm:b".to_string(), Scope::User),
                ("./local".to_string(), Scope::User),
            ]
        );
    }
}
