//! Finding a package's resource files as pi 1.6 does: the `pi` object of package.json lists
//! paths and globs per kind, else the conventional `extensions/`, `skills/`, `prompts/` and
//! `themes/` folders are searched. Searches skip dot entries and `node_modules`, follow
//! symbolic links, and honour `.gitignore`, `.ignore` and `.fdignore` files met on the way.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use serde_json::Value;

use super::kind::Kind;
use super::patterns;

/// The resource lists of package.json's `pi` object (only string arrays count).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Per kind, the entries listed.
    pub lists: [Option<Vec<String>>; 4],
}

impl Manifest {
    /// The entries listed for `kind`.
    pub fn of(&self, kind: Kind) -> Option<&[String]> {
        self.lists[kind as usize].as_deref()
    }

    /// Whether it lists any resources (a `pi` object with only metadata does not).
    pub fn lists_resources(&self) -> bool {
        self.lists.iter().any(Option::is_some)
    }
}

/// The `pi` manifest of `<root>/package.json`, `None` without one.
pub fn read_manifest(root: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let pkg: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    let pi = pkg.get("pi")?.as_object()?;
    let mut manifest = Manifest::default();
    for kind in Kind::ALL {
        let Some(list) = pi.get(kind.key()).and_then(Value::as_array) else {
            continue;
        };
        let strings: Option<Vec<String>> = list
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect();
        manifest.lists[kind as usize] = strings;
    }
    Some(manifest)
}

/// The ignore rules of the folders from the search root down to the current one.
#[derive(Clone, Default)]
struct Ignores(Vec<Gitignore>);

impl Ignores {
    /// These rules plus those of `dir`'s ignore files.
    fn with(&self, dir: &Path) -> Ignores {
        let mut builder = GitignoreBuilder::new(dir);
        let mut any = false;
        for name in [".gitignore", ".ignore", ".fdignore"] {
            let file = dir.join(name);
            if file.is_file() {
                any |= builder.add(file).is_none();
            }
        }
        let mut out = self.clone();
        if let Some(rules) = any.then(|| builder.build().ok()).flatten() {
            out.0.push(rules);
        }
        out
    }

    /// Whether the deepest rule that speaks of `path` ignores it.
    fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        for rules in self.0.iter().rev() {
            match rules.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        false
    }
}

/// A folder's visible entries (no dot names, no `node_modules`, not ignored) with whether
/// each is a folder (links followed; broken ones left out), sorted by name.
fn visible(dir: &Path, rules: &Ignores) -> Vec<(PathBuf, bool)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, bool)> = read
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        })
        .filter_map(|e| {
            let path = e.path();
            let meta = std::fs::metadata(&path).ok()?;
            Some((path, meta.is_dir()))
        })
        .filter(|(p, is_dir)| !rules.ignores(p, *is_dir))
        .collect();
    out.sort();
    out
}

/// Every file of `kind` under `dir`, recursively.
fn files(dir: &Path, kind: Kind, rules: &Ignores) -> Vec<PathBuf> {
    let rules = rules.with(dir);
    let mut out = Vec::new();
    for (path, is_dir) in visible(dir, &rules) {
        if is_dir {
            out.extend(files(&path, kind, &rules));
        } else if path
            .file_name()
            .is_some_and(|n| kind.accepts(&n.to_string_lossy()))
        {
            out.push(path);
        }
    }
    out
}

/// Skills under `dir`: a folder holding `SKILL.md` is one skill (not searched further);
/// top-level `.md` files of the searched folder are skills too.
fn skills(dir: &Path, root: &Path, rules: &Ignores) -> Vec<PathBuf> {
    let rules = rules.with(dir);
    let skill = dir.join("SKILL.md");
    if skill.is_file() && !rules.ignores(&skill, false) {
        return vec![skill];
    }
    let mut out = Vec::new();
    for (path, is_dir) in visible(dir, &rules) {
        if is_dir {
            out.extend(skills(&path, root, &rules));
        } else if dir == root && path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out
}

/// A folder's own extension entries: package.json's `pi.extensions` that exist, else
/// `index.ts`, else `index.js`; `None` when it has none.
pub fn extension_entries(dir: &Path) -> Option<Vec<PathBuf>> {
    if let Some(listed) =
        read_manifest(dir).and_then(|mut m| m.lists[Kind::Extensions as usize].take())
    {
        let found: Vec<PathBuf> = listed
            .iter()
            .map(|p| super::config::normalize(&dir.join(p)))
            .filter(|p| p.exists())
            .collect();
        if !found.is_empty() {
            return Some(found);
        }
    }
    ["index.ts", "index.js"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
        .map(|p| vec![p])
}

/// Extensions in `dir`: its own entries if it has them, else its `.ts`/`.js` files and the
/// entries of its subfolders (one level).
fn extensions(dir: &Path) -> Vec<PathBuf> {
    if let Some(own) = extension_entries(dir) {
        return own;
    }
    let rules = Ignores::default().with(dir);
    let mut out = Vec::new();
    for (path, is_dir) in visible(dir, &rules) {
        if is_dir {
            out.extend(extension_entries(&path).unwrap_or_default());
        } else if path
            .file_name()
            .is_some_and(|n| Kind::Extensions.accepts(&n.to_string_lossy()))
        {
            out.push(path);
        }
    }
    out
}

/// The resources of `kind` in the folder `dir`.
pub fn in_folder(dir: &Path, kind: Kind) -> Vec<PathBuf> {
    match kind {
        Kind::Skills => skills(dir, dir, &Ignores::default()),
        Kind::Extensions => extensions(dir),
        Kind::Prompts | Kind::Themes => files(dir, kind, &Ignores::default()),
    }
}

/// The resources of `kind` at `paths`: a file as it is, a folder searched.
pub fn at_paths(paths: &[PathBuf], kind: Kind) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => out.push(path.clone()),
            Ok(m) if m.is_dir() => out.extend(in_folder(path, kind)),
            _ => {}
        }
    }
    out
}

/// What a glob in a manifest names under `root`, sorted; paths through dot folders are left
/// out (list those directly). The walk starts at the glob's literal folder prefix.
pub fn expand_glob(pattern: &str, root: &Path) -> Vec<PathBuf> {
    let Ok(glob) = globset::GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    let literal: Vec<&str> = pattern
        .trim_start_matches("./")
        .split('/')
        .take_while(|seg| !patterns::has_glob(seg) && !seg.contains(['[', '{']))
        .collect();
    let start = root.join(literal.join("/"));
    let mut found = Vec::new();
    walk(&start, root, &matcher, &mut found);
    found.sort();
    found
}

fn walk(path: &Path, root: &Path, matcher: &globset::GlobMatcher, found: &mut Vec<PathBuf>) {
    let rel = patterns::relative(root, path);
    if rel.split('/').any(|s| s.starts_with('.') && s != "..") {
        return;
    }
    if !rel.is_empty() && matcher.is_match(&rel) {
        found.push(path.to_path_buf());
    }
    if path.is_dir() {
        let Ok(read) = std::fs::read_dir(path) else {
            return;
        };
        for entry in read.filter_map(Result::ok) {
            walk(&entry.path(), root, matcher, found);
        }
    }
}

/// The files a manifest list names under `root`, before its `!`/`+`/`-` patterns apply:
/// globs expanded, plain paths taken as they are (a dot folder may be listed this way).
pub fn manifest_files(entries: &[String], root: &Path, kind: Kind) -> Vec<PathBuf> {
    let paths: Vec<PathBuf> = entries
        .iter()
        .filter(|e| !patterns::is_override(e))
        .flat_map(|e| {
            if patterns::has_glob(e) {
                expand_glob(e, root)
            } else {
                vec![super::config::normalize(&root.join(e))]
            }
        })
        .collect();
    at_paths(&paths, kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().expect("tempdir");
        for (rel, text) in files {
            let path = tmp.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        tmp
    }

    fn rels(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files.iter().map(|f| patterns::relative(root, f)).collect()
    }

    #[test]
    fn conventional_folders_are_searched_as_pi_searches_them() {
        let tmp = tree(&[
            ("extensions/a.ts", ""),
            ("extensions/tool/index.ts", ""),
            ("extensions/tool/helper.ts", ""),
            ("extensions/notes.md", ""),
            ("skills/top.md", ""),
            ("skills/one/SKILL.md", ""),
            ("skills/one/ref.md", ""),
            ("skills/group/two/SKILL.md", ""),
            ("skills/group/loose.md", ""),
            ("prompts/a.md", ""),
            ("prompts/more/b.md", ""),
            ("prompts/.hidden/c.md", ""),
            ("prompts/node_modules/d.md", ""),
            ("prompts/.gitignore", "drafts/\n"),
            ("prompts/drafts/e.md", ""),
            ("themes/t.json", ""),
        ]);
        let root = tmp.path();
        let of = |kind: Kind| rels(root, &in_folder(&root.join(kind.key()), kind));
        assert_eq!(
            of(Kind::Extensions),
            ["extensions/a.ts", "extensions/tool/index.ts"]
        );
        assert_eq!(
            of(Kind::Skills),
            [
                "skills/group/two/SKILL.md",
                "skills/one/SKILL.md",
                "skills/top.md"
            ]
        );
        assert_eq!(of(Kind::Prompts), ["prompts/a.md", "prompts/more/b.md"]);
        assert_eq!(of(Kind::Themes), ["themes/t.json"]);
    }

    #[test]
    fn a_manifest_lists_paths_and_globs() {
        let tmp = tree(&[
            (
                "package.json",
                r#"{"name":"p","pi":{"extensions":["./src/main.ts"],"prompts":["res/*.md","!res/old.md"],"changelogPath":"x"}}"#,
            ),
            ("src/main.ts", ""),
            ("res/a.md", ""),
            ("res/old.md", ""),
            ("res/.dot/b.md", ""),
        ]);
        let root = tmp.path();
        let manifest = read_manifest(root).expect("manifest");
        assert!(manifest.lists_resources());
        assert_eq!(manifest.of(Kind::Skills), None);
        let prompts = manifest.of(Kind::Prompts).expect("prompts");
        assert_eq!(
            rels(root, &manifest_files(prompts, root, Kind::Prompts)),
            ["res/a.md", "res/old.md"],
            "overrides apply later; dot folders are not globbed"
        );
        assert_eq!(
            rels(root, &extension_entries(root).expect("entries")),
            ["src/main.ts"]
        );
    }
}
