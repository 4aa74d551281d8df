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

/// Splits an argument string as pi 1.6 does (prompt-templates.md): whitespace separates; a
/// `'` or `"` opens a quoted run only at the start of an argument (so `doesn't` stays one
/// word), a backslash before the open quote's character keeps it, other backslashes stay as
/// typed, a quoted empty string is an argument, and a quote never closed is plain text.
pub fn parse_args(input: &str) -> Vec<String> {
    let chars: Vec<char> = input.chars().collect();
    let mut args = Vec::new();
    let mut current = String::new();
    let mut has_token = false;
    let mut quote: Option<(char, usize)> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some((q, _)) if c == '\\' && chars.get(i + 1) == Some(&q) => {
                current.push(q);
                i += 1;
            }
            Some((q, _)) if c == q => quote = None,
            Some(_) => current.push(c),
            None if (c == '"' || c == '\'') && !has_token => {
                quote = Some((c, i));
                has_token = true;
            }
            None if c.is_whitespace() => {
                if has_token {
                    args.push(std::mem::take(&mut current));
                    has_token = false;
                }
            }
            None => {
                current.push(c);
                has_token = true;
            }
        }
        if let (Some((q, start)), true) = (quote, i + 1 == chars.len()) {
            // Never closed: the quote is text and what follows it is read again as words.
            quote = None;
            current = q.to_string();
            i = start;
        }
        i += 1;
    }
    if has_token {
        args.push(current);
    }
    args
}

/// Substitutes the placeholders of `body` in one pass, as pi 1.6 does: `${N:-default}`,
/// `${@:-default}` and `${ARGUMENTS:-default}` (the default when the value is missing or
/// empty), `${@:N}` and `${@:N:L}` (a slice, `0` read as `1`), `$@` and `$ARGUMENTS` (all
/// arguments joined with spaces), `$N` (one argument, empty when missing). Inserted values are
/// never read again, so an argument holding `$1` stays as typed.
pub fn substitute(body: &str, args: &[String]) -> String {
    let all = args.join(" ");
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(p) = rest.find('$') {
        out.push_str(&rest[..p]);
        let after = &rest[p + 1..];
        match placeholder(after, args, &all) {
            Some((value, used)) => {
                out.push_str(&value);
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of the placeholder at the start of `text` (after its `$`) and the bytes it
/// spans, `None` when `text` starts none.
fn placeholder(text: &str, args: &[String], all: &str) -> Option<(String, usize)> {
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let arg = |n: usize| n.checked_sub(1).and_then(|i| args.get(i)).cloned();
    if let Some(inner) = text.strip_prefix('{') {
        let close = inner.find('}')?;
        let body = &inner[..close];
        let used = close + 2;
        if let Some((target, default)) = body.split_once(":-") {
            let value = match target {
                "@" | "ARGUMENTS" => Some(all.to_string()),
                t if !t.is_empty() && digits(t) == t.len() => arg(t.parse().ok()?),
                _ => return None,
            };
            let value = value.filter(|v| !v.is_empty());
            return Some((value.unwrap_or_else(|| default.to_string()), used));
        }
        let slice = body.strip_prefix("@:")?;
        let (start, len) = match slice.split_once(':') {
            Some((s, l)) => (s, Some(l)),
            None => (slice, None),
        };
        let ok = |s: &str| !s.is_empty() && digits(s) == s.len();
        if !ok(start) || len.is_some_and(|l| !ok(l)) {
            return None;
        }
        let from = start.parse::<usize>().ok()?.max(1) - 1;
        let take = match len {
            Some(l) => l.parse().ok()?,
            None => usize::MAX,
        };
        let parts: Vec<&str> = args
            .iter()
            .skip(from)
            .take(take)
            .map(String::as_str)
            .collect();
        return Some((parts.join(" "), used));
    }
    for name in ["ARGUMENTS", "@"] {
        if text.starts_with(name) {
            return Some((all.to_string(), name.len()));
        }
    }
    let n = digits(text);
    if n == 0 {
        return None;
    }
    let value = text[..n].parse().ok().and_then(arg).unwrap_or_default();
    Some((value, n))
}

/// Expands `/name args` when a template has that name (the name runs to the first
/// whitespace); otherwise returns the text unchanged.
pub fn expand_template(text: &str, templates: &[PromptTemplate]) -> String {
    let Some(rest) = text.strip_prefix('/') else {
        return text.to_string();
    };
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(p) => (&rest[..p], rest[p..].trim_start()),
        None => (rest, ""),
    };
    if name.is_empty() {
        return text.to_string();
    }
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
    fn tpl_3_argument_parsing_as_pi_1_6_documents_it() {
        assert_eq!(parse_args(r#"a "b c" ''"#), ["a", "b c", ""]);
        assert_eq!(parse_args("x\ty\nz"), ["x", "y", "z"]);
        assert_eq!(parse_args("doesn't matter"), ["doesn't", "matter"]);
        assert_eq!(
            parse_args(r#""the \"fast\" path" c:\dir"#),
            [r#"the "fast" path"#, r"c:\dir"]
        );
        assert_eq!(parse_args(r#"say "unclosed x"#), ["say", "\"unclosed", "x"]);
    }

    #[test]
    fn defaults_apply_to_missing_and_empty_arguments() {
        let body = "Focus on ${1:-correctness}; all=${@:-everything}; ${ARGUMENTS:-none}; ${2:-}.";
        assert_eq!(
            substitute(body, &[]),
            "Focus on correctness; all=everything; none; ."
        );
        assert_eq!(
            substitute(body, &["".into(), "b".into()]),
            "Focus on correctness; all= b;  b; b."
        );
        assert_eq!(substitute("${1:-a b}", &["x".into()]), "x");
        assert_eq!(substitute("${x:-y} ${@:z} $", &[]), "${x:-y} ${@:z} $");
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

    /// pi 1.6 substitutes in one pass (pi 0.73.1 ran four, and rewrote what the first
    /// inserted): an argument is inserted as typed.
    #[test]
    fn tpl_5_inserted_arguments_are_not_read_again() {
        assert_eq!(substitute("$1", &["$@".into(), "x".into()]), "$@");
        assert_eq!(substitute("${1:-$2}", &[]), "$2");
    }

    #[test]
    fn the_name_runs_to_the_first_whitespace() {
        let t = tpl("review", "Review ${1:-everything}");
        assert_eq!(
            expand_template("/review\nthe parser", std::slice::from_ref(&t)),
            "Review the"
        );
        assert_eq!(expand_template("/review", &[t]), "Review everything");
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
