//! An architecture test: the crate's modules name each other without a circle. The interactive
//! screen is split into parts (screen, dialogs, extension UI, session control) under a small
//! top-level; each part may use the ones below it, never the other way, so a change to one part
//! cannot quietly need another that needs it back.
//!
//! Every module file is read; the paths its code names (`crate::a::b`, `super::x`,
//! `self::y`, a child module by name; in `use` lines and in code; comments and strings left
//! out) are its edges, each to the deepest module file the path reaches. The graph is checked
//! twice: file by file, and with each top-level module's files taken together (a part as one
//! node), so neither a circle of files nor one between parts can come back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path from the crate root (`[]` for lib.rs, `["screen", "frame"]`).
type Module = Vec<String>;

/// Every `.rs` file under `dir` as (module path, text).
fn modules(root: &Path, dir: &Path, out: &mut BTreeMap<Module, String>) {
    let entries = std::fs::read_dir(dir).expect("read the source dir");
    for entry in entries {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            modules(root, &path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(root).expect("under the root");
        let mut module: Module = relative
            .with_extension("")
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(module.last().map(String::as_str), Some("lib" | "mod")) {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        out.insert(module, text);
    }
}

/// The tokens of `text` that matter for paths: identifiers, `::`, `{`, `}`, `,`, `*`, `;`.
/// Comments, strings and character literals are dropped; lifetimes are not mistaken for
/// character literals.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !out_ends_in_ident(&chars, i) {
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push("r".into());
                i += 1;
                continue;
            }
            let closing: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let rest: String = chars[j + 1..].iter().collect();
            let end = rest
                .find(&closing)
                .map_or(rest.len(), |e| e + closing.len());
            i = j + 1 + rest[..end].chars().count();
        } else if c == '\'' {
            // `'x'`, `'\n'`, `'\''`: a character; `'a` (no closing quote after one char): a
            // lifetime.
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && ident(chars[i]) {
                    i += 1;
                }
            }
        } else if ident(c) {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == Some(':') {
            out.push("::".into());
            i += 2;
        } else {
            if "{},*;".contains(c) {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Whether the character before `i` continues an identifier (`for"` is not a raw string).
fn out_ends_in_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Reads a path or use-tree at `i`: every full path it names, and where it ends.
fn path_tree(tokens: &[String], mut i: usize) -> (Vec<Vec<String>>, usize) {
    let mut segments = Vec::new();
    while let Some(t) = tokens.get(i) {
        if t == "{" {
            let mut paths = Vec::new();
            i += 1;
            while tokens.get(i).is_some_and(|t| t != "}") {
                let (inner, next) = path_tree(tokens, i);
                for p in inner {
                    paths.push(segments.iter().chain(&p).cloned().collect());
                }
                i = next;
                // `use a::{b as c}`: the alias names nothing.
                if tokens.get(i).is_some_and(|t| t == "as") {
                    i += 2;
                }
                if tokens.get(i).is_some_and(|t| t == ",") {
                    i += 1;
                }
            }
            return (paths, i + 1);
        }
        if t == "*" {
            i += 1;
            break;
        }
        if !t.chars().all(|c| c.is_alphanumeric() || c == '_') {
            break;
        }
        // `use a::{self, B}`: `self` names `a` itself.
        if t != "self" || segments.is_empty() {
            segments.push(t.clone());
        }
        i += 1;
        if tokens.get(i).is_some_and(|t| t == "::") {
            i += 1;
        } else {
            break;
        }
    }
    (vec![segments], i)
}

/// The modules `module`'s text names.
fn edges(module: &Module, text: &str, known: &BTreeSet<Module>) -> BTreeSet<Module> {
    let tokens = tokens(text);
    let children: BTreeSet<&str> = tokens
        .windows(3)
        .filter(|w| w[0] == "mod" && w[2] == ";")
        .map(|w| w[1].as_str())
        .collect();
    // Inline modules (`mod tests { ... }`) and the brace depth each opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut named = BTreeSet::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t == "{") => {
                inline.push((tokens[i + 1].clone(), depth));
            }
            _ => {}
        }
        let starts_path = tokens.get(i + 1).is_some_and(|t| t == "::")
            && (i == 0 || tokens[i - 1] != "::")
            && (matches!(t, "crate" | "super" | "self") || children.contains(t));
        if !starts_path {
            i += 1;
            continue;
        }
        let here: Module = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(name, _)| name.clone()))
            .collect();
        let (paths, next) = path_tree(&tokens, i);
        for path in paths {
            let mut base = match path[0].as_str() {
                "crate" => Vec::new(),
                "super" | "self" => here.clone(),
                _ => {
                    let mut child = here.clone();
                    child.push(path[0].clone());
                    child
                }
            };
            let mut rest = &path[1..];
            if path[0] == "super" {
                base.pop();
            }
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            let full: Module = base.into_iter().chain(rest.iter().cloned()).collect();
            let reached = (0..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| known.contains(m));
            if let Some(target) = reached.filter(|m| m != module) {
                named.insert(target);
            }
        }
        i = next.max(i + 1);
    }
    named
}

/// A circle in `graph`, as the modules along it, if there is one.
fn circle(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    fn visit(
        node: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        done: &mut BTreeSet<Module>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(at) = path.iter().position(|m| m == node) {
            let mut found = path[at..].to_vec();
            found.push(node.clone());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, done, path) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

fn show(circle: &[Module]) -> String {
    let names: Vec<String> = circle
        .iter()
        .map(|m| {
            if m.is_empty() {
                "lib".into()
            } else {
                m.join("::")
            }
        })
        .collect();
    names.join(" -> ")
}

/// The crate's module graph, file by file.
fn file_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut texts = BTreeMap::new();
    modules(&root, &root, &mut texts);
    let known: BTreeSet<Module> = texts.keys().cloned().collect();
    texts
        .iter()
        .map(|(m, text)| (m.clone(), edges(m, text, &known)))
        .collect()
}

#[test]
fn no_module_file_names_one_that_names_it_back() {
    let graph = file_graph();
    assert!(graph.len() > 20, "every module file is read: {graph:?}");
    if let Some(found) = circle(&graph) {
        panic!("a circle of modules: {}", show(&found));
    }
}

#[test]
fn the_parts_depend_one_way() {
    let top = |m: &Module| m.iter().take(1).cloned().collect::<Module>();
    let mut parts: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, named) in file_graph() {
        let from = top(&module);
        let to: BTreeSet<Module> = named.iter().map(top).filter(|m| *m != from).collect();
        parts.entry(from).or_default().extend(to);
    }
    if let Some(found) = circle(&parts) {
        panic!("a circle of top-level modules: {}", show(&found));
    }
    // The layering the crate doc describes: control over extension UI over dialogs over the
    // screen, none of them over the top-level.
    let uses = |a: &str, b: &str| parts[&vec![a.to_string()]].contains(&vec![b.to_string()]);
    assert!(uses("control", "dialogs") && uses("ext_ui", "dialogs") && uses("dialogs", "screen"));
    for part in ["screen", "dialogs", "ext_ui", "control"] {
        assert!(!uses(part, "app"), "{part} names the top-level");
    }
}

#[test]
fn paths_are_read_as_the_compiler_resolves_them() {
    let known: BTreeSet<Module> = [
        vec![],
        vec!["a".to_string()],
        vec!["a".to_string(), "b".to_string()],
        vec!["c".to_string()],
    ]
    .into_iter()
    .collect();
    let b = vec!["a".to_string(), "b".to_string()];
    let text = r#"
        // use crate::c::X; (a comment names nothing)
        use super::{self as parent, b::Thing};
        const S: &str = "crate::c::Y";
        fn f<'a>(x: &'a str) -> char { let _ = crate::c::Z::new(); '"' }
        mod tests { use super::*; }
    "#;
    let named = edges(&b, text, &known);
    assert_eq!(
        named,
        [vec!["a".to_string()], vec!["c".to_string()]]
            .into_iter()
            .collect::<BTreeSet<_>>()
    );
    let mut graph = BTreeMap::new();
    graph.insert(vec!["a".to_string()], [b.clone()].into_iter().collect());
    graph.insert(b.clone(), [vec!["a".to_string()]].into_iter().collect());
    assert_eq!(show(&circle(&graph).unwrap_or_default()), "a -> a::b -> a");
}
