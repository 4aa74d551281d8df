//! A shell line as the simple commands it runs, so a `bash(...)` rule sees each of them:
//! those in pipelines, lists, subshells, functions, command and process substitutions
//! (heredoc bodies included), and those wrappers run (`sh -c '...'`, `eval`, `env`,
//! `xargs`, `sudo`, `find -exec`, ...). Parsed with tree-sitter's bash grammar. Words lose
//! their quotes and escapes (`'r'm` is `rm`); a part the shell computes at run time (`$X`,
//! `$(...)`) becomes [`DYNAMIC`], which may stand for anything. A line the grammar cannot
//! parse, or a script that is itself computed, becomes one command that is all [`DYNAMIC`].

use std::cell::RefCell;

use tree_sitter::{Node, Parser};

/// Stands for text the shell computes when it runs the line.
pub const DYNAMIC: char = '\0';

/// How deep `sh -c` / `eval` scripts are followed.
const MAX_DEPTH: usize = 4;

/// One simple command: its words as the shell will see them, joined by spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words; [`DYNAMIC`] marks computed parts.
    pub text: String,
    /// The index of the wrapper command that runs this one (`sh -c`, `env`, ...), if any.
    pub via: Option<usize>,
}

impl SimpleCommand {
    fn opaque(via: Option<usize>) -> Self {
        Self {
            text: DYNAMIC.to_string(),
            via,
        }
    }

    /// Whether nothing in it is computed at run time.
    pub fn is_literal(&self) -> bool {
        !self.text.contains(DYNAMIC)
    }

    /// The command for people: computed parts shown as `…`.
    pub fn display(&self) -> String {
        self.text.replace(DYNAMIC, "…")
    }

    /// The same command named by its program's file name (`/bin/rm -rf x` → `rm -rf x`).
    pub fn by_basename(&self) -> Option<SimpleCommand> {
        let (name, rest) = self.text.split_once(' ').unwrap_or((&self.text, ""));
        let base = name.rsplit_once('/')?.1;
        let text = if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base} {rest}")
        };
        Some(SimpleCommand {
            text,
            via: self.via,
        })
    }
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// The simple commands of `line`, in source order (wrapped commands after their wrapper).
pub fn simple_commands(line: &str) -> Vec<SimpleCommand> {
    let mut out = Vec::new();
    collect(line, 0, None, &mut out);
    out
}

fn collect(line: &str, depth: usize, via: Option<usize>, out: &mut Vec<SimpleCommand>) {
    let tree = PARSER.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *cell = Some(parser);
        }
        cell.as_mut()?.parse(line, None)
    });
    match tree {
        Some(tree) if !tree.root_node().has_error() => {
            walk(tree.root_node(), line.as_bytes(), depth, via, out)
        }
        _ => out.push(SimpleCommand::opaque(via)),
    }
}

fn walk(node: Node, src: &[u8], depth: usize, via: Option<usize>, out: &mut Vec<SimpleCommand>) {
    if matches!(
        node.kind(),
        "command" | "declaration_command" | "unset_command"
    ) {
        let words = command_words(node, src);
        if !words.is_empty() {
            push(words, depth, via, out);
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        walk(child, src, depth, via, out);
    }
}

/// Records a command and what it runs in turn.
fn push(words: Vec<String>, depth: usize, via: Option<usize>, out: &mut Vec<SimpleCommand>) {
    out.push(SimpleCommand {
        text: words.join(" "),
        via,
    });
    unwrap(&words, depth, out.len() - 1, out);
}

/// The words of a command node: its name and arguments (assignments and redirections are
/// not words of the command).
fn command_words(node: Node, src: &[u8]) -> Vec<String> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        let field = node.field_name_for_child(i as u32);
        let keyword = node.kind() != "command" && !child.is_named();
        match (field, child.kind()) {
            (Some("name"), _) | (Some("argument"), _) => words.push(word(child, src)),
            (_, "variable_assignment" | "file_redirect" | "herestring_redirect") => {}
            _ if keyword => words.push(text(child, src).to_string()),
            (None, "word" | "string" | "raw_string" | "concatenation" | "variable_name")
                if node.kind() != "command" =>
            {
                words.push(word(child, src))
            }
            _ => {}
        }
    }
    words
}

fn text<'a>(node: Node, src: &'a [u8]) -> &'a str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

/// A word as the shell passes it: quotes and escapes removed, computed parts [`DYNAMIC`].
fn word(node: Node, src: &[u8]) -> String {
    match node.kind() {
        "word" | "number" | "variable_name" | "special_variable_name" => unescape(text(node, src)),
        "raw_string" => text(node, src).trim_matches('\'').to_string(),
        "string" | "concatenation" | "command_name" | "translated_string" => {
            let mut out = String::new();
            let mut at = node.start_byte();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                out.push_str(&between(node, src, at, child.start_byte()));
                out.push_str(&word(child, src));
                at = child.end_byte();
            }
            out.push_str(&between(node, src, at, node.end_byte()));
            out
        }
        "string_content" => unescape_quoted(text(node, src)),
        _ => DYNAMIC.to_string(),
    }
}

/// Unnamed text between a compound word's parts (quotes are dropped).
fn between(node: Node, src: &[u8], from: usize, to: usize) -> String {
    let raw = std::str::from_utf8(&src[from.min(to)..to]).unwrap_or("");
    match node.kind() {
        "string" | "translated_string" => {
            unescape_quoted(raw.trim_start_matches('$').trim_matches('"'))
        }
        _ => unescape(raw),
    }
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline.
fn unescape_quoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&n)) if matches!(n, '$' | '`' | '"' | '\\' | '\n') => {
                chars.next();
                if n != '\n' {
                    out.push(n);
                }
            }
            (c, _) => out.push(c),
        }
    }
    out
}

/// The commands a wrapper runs: `sh -c script` and `eval` parse their script, the others
/// run the rest of their words as a command.
fn unwrap(words: &[String], depth: usize, index: usize, out: &mut Vec<SimpleCommand>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let name = words[0].rsplit('/').next().unwrap_or_default();
    let script = match name {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish" => {
            let flag = words[1..]
                .iter()
                .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'));
            flag.map(|i| words.get(i + 2).cloned().unwrap_or_default())
        }
        "eval" => Some(words[1..].join(" ")),
        _ => None,
    };
    if let Some(script) = script {
        if script.contains(DYNAMIC) {
            out.push(SimpleCommand::opaque(Some(index)));
        } else {
            collect(&script, depth + 1, Some(index), out);
        }
        return;
    }
    if let Some(inner) = wrapped(name, &words[1..]) {
        if !inner.is_empty() {
            push(inner, depth + 1, Some(index), out);
        }
    }
}

/// The command a wrapper program runs, after its own options.
fn wrapped(name: &str, args: &[String]) -> Option<Vec<String>> {
    let (takes_value, appends): (&[&str], bool) = match name {
        "env" => (&["-u", "--unset", "-C", "--chdir", "-S"], false),
        "sudo" | "doas" => (
            &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"],
            false,
        ),
        "nice" => (&["-n"], false),
        "ionice" => (&["-c", "-n", "-p"], false),
        "timeout" => (&["-s", "-k", "--signal", "--kill-after"], false),
        "stdbuf" | "nohup" | "time" | "command" | "builtin" | "setsid" | "coproc" => (&[], false),
        "exec" => (&["-a"], false),
        "xargs" => (
            &[
                "-I",
                "-n",
                "-P",
                "-L",
                "-d",
                "-E",
                "-s",
                "-a",
                "--max-args",
                "--delimiter",
            ],
            true,
        ),
        "find" => return find_exec(args),
        _ => return None,
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let is_assignment = name == "env" && arg.contains('=') && !arg.starts_with('-');
        if takes_value.contains(&arg.as_str()) {
            i += 2;
        } else if arg.starts_with('-') || is_assignment {
            i += 1;
            if arg == "--" {
                break;
            }
        } else {
            break;
        }
    }
    if name == "timeout" && i < args.len() {
        i += 1;
    }
    let mut inner: Vec<String> = args[i.min(args.len())..].to_vec();
    if appends {
        inner.push(DYNAMIC.to_string());
    }
    Some(inner)
}

/// The command of `find ... -exec cmd args {} ;` (also `-execdir`, `-ok`, `-okdir`).
fn find_exec(args: &[String]) -> Option<Vec<String>> {
    let start = args
        .iter()
        .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))?;
    let rest = &args[start + 1..];
    let end = rest
        .iter()
        .position(|a| a == ";" || a == "+")
        .unwrap_or(rest.len());
    Some(rest[..end].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        simple_commands(line)
            .iter()
            .map(SimpleCommand::display)
            .collect()
    }

    #[test]
    fn lists_pipes_and_substitutions_are_split_into_commands() {
        assert_eq!(texts("true && rm -rf x"), ["true", "rm -rf x"]);
        assert_eq!(texts("echo $(rm -rf x) | wc"), ["echo …", "rm -rf x", "wc"]);
        assert_eq!(texts("X=1 'r'm -r\"f\" \\x > /dev/null"), ["rm -rf x"]);
        assert_eq!(texts("sh -c 'rm -rf x'"), ["sh -c rm -rf x", "rm -rf x"]);
        assert_eq!(texts("bash -c \"$CMD\""), ["bash -c …", "…"]);
        assert_eq!(
            texts("env -i A=1 sudo -u me rm x"),
            ["env -i A=1 sudo -u me rm x", "sudo -u me rm x", "rm x"]
        );
        assert_eq!(texts("ls | xargs rm -f"), ["ls", "xargs rm -f", "rm -f …"]);
        assert_eq!(texts("echo \"unterminated"), ["…"]);
    }
}
