//! Prompt templates: `/name args` expands a `*.md` file's body with pi's `$` placeholders
//! (interfaces spec §6.7, rules TPL-1..7, decision D10), so pi template files work unchanged.

use std::path::{Path, PathBuf};

use super::frontmatter;
use super::Diagnostic;

/// One loaded template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    /// File name without `.md`; invoked as `/name`.
    pub name: String,
    /// Frontmatter description or the first body line (60 chars + `...`).
    pub description: String,
    /// Optional `argument-hint` for autocomplete.
    pub argument_hint: Option<String>,
    /// The body after frontmatter, trimmed.
    pub content: String,
    /// Where it came from.
    pub file_path: PathBuf,
}

/// Parses one template file's text.
pub fn parse_template(name: &str, text: &str, file_path: PathBuf) -> PromptTemplate {
    let doc = frontmatter::parse(text);
    let description = match doc.get("description").filter(|d| !d.trim().is_empty()) {
        Some(d) => d.to_string(),
        None => first_line_description(&doc.body),
    };
    PromptTemplate {
        name: name.to_string(),
        description,
        argument_hint: doc.get("argument-hint").map(str::to_string),
        content: doc.body,
        file_path,
    }
}

fn first_line_description(body: &str) -> String {
    let line = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if line.chars().count() > 60 {
        let cut: String = line.chars().take(60).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

/// Loads templates from `sources` in precedence order (a source is a `.md` file or a
/// directory whose `*.md` children are read, non-recursively). The first of a name wins; later
/// ones yield a `name "/<name>" collision` diagnostic. Unreadable files are diagnostics too.
pub fn load_templates(sources: &[PathBuf]) -> (Vec<PromptTemplate>, Vec<Diagnostic>) {
    let mut templates: Vec<PromptTemplate> = Vec::new();
    let mut diagnostics = Vec::new();
    for source in sources {
        for file in template_files(source) {
            let Some(name) = file
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string)
            else {
                continue;
            };
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    diagnostics.push(Diagnostic {
                        path: file.clone(),
                        message: format!("cannot read template: {e}"),
                    });
                    continue;
                }
            };
            if templates.iter().any(|t| t.name == name) {
                diagnostics.push(Diagnostic {
                    path: file.clone(),
                    message: format!("name \"/{name}\" collision"),
                });
                continue;
            }
            templates.push(parse_template(&name, &text, file));
        }
    }
    (templates, diagnostics)
}

fn template_files(source: &Path) -> Vec<PathBuf> {
    if source.is_file() {
        return vec![source.to_path_buf()];
    }
    let Ok(entries) = std::fs::read_dir(source) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md") && p.is_file())
        .collect();
    files.sort();
    files
}

/// Splits an argument string: spaces and tabs separate, `'…'`/`"…"` group (quotes removed, no
/// escapes), empty tokens dropped, newlines do not split (TPL-3).
pub fn parse_args(input: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in input.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, ' ' | '\t') => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            (None, c) => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// Substitutes the placeholders of `body` in pi's four passes (TPL-4/5): `$N`, then
/// `${@:N}`/`${@:N:L}`, then `$ARGUMENTS`, then `$@`. Each pass runs over the whole current text.
pub fn substitute(body: &str, args: &[String]) -> String {
    let all = args.join(" ");
    let pass1 = replace_positional(body, args);
    let pass2 = replace_slices(&pass1, args);
    pass2.replace("$ARGUMENTS", &all).replace("$@", &all)
}

fn replace_positional(text: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('$') {
        out.push_str(&rest[..p]);
        let after = &rest[p + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            out.push('$');
            rest = after;
            continue;
        }
        let n: usize = after[..digits].parse().unwrap_or(0);
        if n >= 1 {
            if let Some(a) = args.get(n - 1) {
                out.push_str(a);
            }
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

fn replace_slices(text: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("${@:") {
        out.push_str(&rest[..p]);
        let after = &rest[p + 4..];
        match parse_slice(after) {
            Some((start, len, consumed)) => {
                let from = start.max(1) - 1;
                let slice: Vec<&str> = args
                    .iter()
                    .skip(from)
                    .take(len.unwrap_or(usize::MAX))
                    .map(String::as_str)
                    .collect();
                out.push_str(&slice.join(" "));
                rest = &after[consumed..];
            }
            None => {
                out.push_str("${@:");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses `N}` or `N:L}`; returns (N, L, bytes consumed).
fn parse_slice(s: &str) -> Option<(usize, Option<usize>, usize)> {
    let n_len = s.bytes().take_while(u8::is_ascii_digit).count();
    let n: usize = s.get(..n_len)?.parse().ok()?;
    let rest = &s[n_len..];
    if let Some(r) = rest.strip_prefix('}') {
        return Some((n, None, s.len() - r.len()));
    }
    let r = rest.strip_prefix(':')?;
    let l_len = r.bytes().take_while(u8::is_ascii_digit).count();
    let l: usize = r.get(..l_len)?.parse().ok()?;
    let r = r[l_len..].strip_prefix('}')?;
    Some((n, Some(l), s.len() - r.len()))
}

/// Expands `/name args` when a template has that name; otherwise returns the text unchanged.
pub fn expand_template(text: &str, templates: &[PromptTemplate]) -> String {
    let Some(rest) = text.strip_prefix('/') else {
        return text.to_string();
    };
    let (name, args) = match rest.find(' ') {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, ""),
    };
    match templates.iter().find(|t| t.name == name) {
        Some(t) => substitute(&t.content, &parse_args(args)),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tpl(name: &str, content: &str) -> PromptTemplate {
        parse_template(name, content, PathBuf::from(format!("/t/{name}.md")))
    }

    #[test]
    fn tpl_3_argument_parsing() {
        assert_eq!(parse_args(r#"a "b c" ''"#), ["a", "b c"]);
        assert_eq!(parse_args("x\ty\nz"), ["x", "y\nz"]);
    }

    #[test]
    fn tpl_4_substitution_passes() {
        let t = tpl("comp", "Make $1 with [$@] slice=[${@:2}] one=[${@:2:1}]");
        assert_eq!(
            expand_template(r#"/comp Button "on click" x"#, std::slice::from_ref(&t)),
            "Make Button with [Button on click x] slice=[on click x] one=[on click]"
        );
        assert_eq!(
            expand_template("/comp", &[t]),
            "Make  with [] slice=[] one=[]"
        );
        assert_eq!(
            substitute("$0|$3|${@:0}|$ARGUMENTS", &["a".into(), "b".into()]),
            "||a b|a b"
        );
    }

    #[test]
    fn tpl_5_pass_one_output_is_rewritten_by_later_passes() {
        assert_eq!(substitute("$1", &["$@".into(), "x".into()]), "$@ x");
    }

    #[test]
    fn tpl_1_and_2_unknown_names_and_braces_pass_through() {
        let t = tpl("a", "keep {{x}}");
        assert_eq!(
            expand_template("/a", std::slice::from_ref(&t)),
            "keep {{x}}"
        );
        assert_eq!(expand_template("/b hi", std::slice::from_ref(&t)), "/b hi");
        assert_eq!(expand_template("a", &[t]), "a");
    }

    #[test]
    fn tpl_6_description_from_first_line() {
        let long = "x".repeat(70);
        let t = tpl("d", &format!("\n\n{long}\nmore"));
        assert_eq!(t.description, format!("{}...", "x".repeat(60)));
        let fm = tpl(
            "e",
            "---\ndescription: Review code\nargument-hint: <file>\n---\nBody $1",
        );
        assert_eq!(fm.description, "Review code");
        assert_eq!(fm.argument_hint.as_deref(), Some("<file>"));
        assert_eq!(fm.content, "Body $1");
    }

    #[test]
    fn tpl_2_first_source_wins_with_collision_diagnostic() {
        let project = tempfile::tempdir().expect("tempdir");
        let global = tempfile::tempdir().expect("tempdir");
        std::fs::write(project.path().join("t.md"), "project").expect("write");
        std::fs::write(global.path().join("t.md"), "global").expect("write");
        std::fs::write(global.path().join("other.txt"), "ignored").expect("write");
        let (t, d) = load_templates(&[project.path().into(), global.path().into()]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].content, "project");
        assert_eq!(d[0].message, "name \"/t\" collision");
    }
}
