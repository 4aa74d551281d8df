//! The completion popup's state: which completion the text before the cursor calls for (a
//! slash command at the start, the arguments of a command that completes them, an `@file`
//! reference at a word start), the ranked candidates, and the selection.

use std::path::PathBuf;

use super::buffer::Buffer;
use super::{files, fuzzy, popup, CompletionItem};
use crate::theme::Theme;

/// What the open popup completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Command,
    /// The arguments of a command that completes them (pi's `getArgumentCompletions`).
    Argument,
    File,
    /// A bare path completed on Tab (no `@`).
    Path,
}

/// An open popup.
#[derive(Debug)]
struct Open {
    kind: Kind,
    /// Where the text being completed starts (the `/` or the `@`).
    start: usize,
    /// What was typed after the `/` or `@` (without an opening quote).
    query: String,
    items: Vec<CompletionItem>,
    selected: usize,
}

/// The replacement an accepted completion makes.
#[derive(Debug, PartialEq)]
pub(crate) struct Accepted {
    /// Replace `start..cursor` with `text`.
    pub start: usize,
    pub text: String,
    /// A command that was already typed in full: Enter submits it.
    pub complete_command: bool,
    /// An argument taken: the popup stays closed until the user types again (the answer
    /// for the new text would open it on its own).
    pub settles: bool,
}

/// Completion sources and the popup.
#[derive(Debug)]
pub(crate) struct Completion {
    cwd: PathBuf,
    commands: Vec<CompletionItem>,
    /// The commands that complete their arguments.
    argument_commands: Vec<String>,
    /// The argument completions last supplied: for which command and prefix, and the items.
    arguments: Option<(String, String, Vec<CompletionItem>)>,
    open: Option<Open>,
    /// Paths walked for the current completion session.
    files: Option<Vec<String>>,
    /// Esc closed the popup: it stays closed until the text changes.
    dismissed: bool,
    /// Tab asked for path completion of the word before the cursor.
    forced: bool,
    /// Rows the popup shows at most.
    max_visible: usize,
}

/// Popups show at most this many rows unless told otherwise.
const DEFAULT_MAX_VISIBLE: usize = 8;
/// File completion offers this many best paths (scrolling through them), as pi does.
const MAX_FILE_CANDIDATES: usize = 20;

impl Completion {
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            commands: Vec::new(),
            argument_commands: Vec::new(),
            arguments: None,
            open: None,
            files: None,
            dismissed: false,
            forced: false,
            max_visible: DEFAULT_MAX_VISIBLE,
        }
    }

    pub fn set_commands(&mut self, items: Vec<CompletionItem>) {
        self.commands = items;
    }

    pub fn set_argument_commands(&mut self, names: Vec<String>) {
        self.argument_commands = names;
    }

    /// The command and argument prefix the text asks completions for: the one line is
    /// `/name <prefix>` with the cursor at its end, for a command that completes arguments.
    pub fn argument_query(&self, buf: &Buffer) -> Option<(String, String)> {
        let before = buf.text[..buf.cursor].strip_prefix('/')?;
        if buf.cursor != buf.text.len() || before.contains('\n') {
            return None;
        }
        let (name, prefix) = before.split_once(' ')?;
        self.argument_commands
            .iter()
            .any(|c| c == name)
            .then(|| (name.to_string(), prefix.to_string()))
    }

    /// The completions of `command`'s arguments for `prefix` (they arrive after the typing).
    pub fn set_arguments(&mut self, command: String, prefix: String, items: Vec<CompletionItem>) {
        self.arguments = Some((command, prefix, items));
    }

    pub fn set_max_visible(&mut self, rows: usize) {
        self.max_visible = rows.clamp(3, 20);
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Closes the popup and ends the completion session (the file cache goes).
    pub fn close(&mut self) {
        self.open = None;
        self.files = None;
        self.forced = false;
    }

    /// Tab outside a popup: completes the word before the cursor as a path when it looks like
    /// one (holds a `/` or starts with `.`, and is not absolute). Returns the replacement when
    /// exactly one path matches (applied at once, as in a shell); otherwise opens the popup.
    /// `None` with the popup closed: nothing to complete.
    pub fn force_path(&mut self, buf: &Buffer) -> Option<Accepted> {
        let (_, word) = word_before(buf);
        if word.starts_with('/') || !(word.contains('/') || word.starts_with('.')) {
            return None;
        }
        self.forced = true;
        self.dismissed = false;
        self.refresh(buf, false);
        match self.open.as_ref().map(|o| o.items.len()) {
            None => {
                self.close();
                return None;
            }
            Some(1) => {}
            Some(_) => return None,
        }
        let accepted = self.accept();
        self.close();
        accepted
    }

    /// Esc: closes until the text changes.
    pub fn dismiss(&mut self) {
        self.close();
        self.dismissed = true;
    }

    /// Moves the selection by `delta`, wrapping around.
    pub fn select(&mut self, delta: isize) {
        if let Some(open) = &mut self.open {
            let n = open.items.len() as isize;
            open.selected = (open.selected as isize + delta).rem_euclid(n) as usize;
        }
    }

    /// PageUp/PageDown: moves the selection by a screenful, stopping at the ends.
    pub fn page(&mut self, direction: isize) {
        let step = self.max_visible;
        if let Some(open) = &mut self.open {
            let last = open.items.len().saturating_sub(1);
            open.selected = if direction < 0 {
                open.selected.saturating_sub(step)
            } else {
                (open.selected + step).min(last)
            };
        }
    }

    /// Re-evaluates the popup after an input. `changed`: the text changed (which lifts an Esc
    /// dismissal); otherwise only the cursor moved.
    pub fn refresh(&mut self, buf: &Buffer, changed: bool) {
        if changed {
            self.dismissed = false;
        }
        if self.dismissed {
            return;
        }
        let argument = self.argument_query(buf);
        let asked = argument.clone().map(|(_, prefix)| {
            let start = buf.cursor - prefix.len();
            (Kind::Argument, start, prefix)
        });
        let Some((kind, start, query)) = asked.or_else(|| trigger(buf, self.forced)) else {
            self.close();
            return;
        };
        let items = match kind {
            Kind::Command => rank(&self.commands, |c| fuzzy::score(&query, command_name(c))),
            Kind::Argument => match (&self.arguments, argument) {
                (Some((c, p, items)), Some((command, prefix))) if (c, p) == (&command, &prefix) => {
                    items.clone()
                }
                _ => Vec::new(),
            },
            Kind::File => self.file_items(&query),
            Kind::Path => self.file_items(query.strip_prefix("./").unwrap_or(&query)),
        };
        if items.is_empty() {
            self.open = None;
            return;
        }
        let keep = self
            .open
            .as_ref()
            .filter(|o| o.kind == kind && o.start == start && o.query == query)
            .map_or(0, |o| o.selected);
        self.open = Some(Open {
            kind,
            start,
            query,
            selected: keep.min(items.len() - 1),
            items,
        });
    }

    fn file_items(&mut self, query: &str) -> Vec<CompletionItem> {
        let cwd = &self.cwd;
        let paths = self
            .files
            .get_or_insert_with(|| files::walk(cwd, files::MAX_PATHS));
        let mut scored: Vec<(i64, &String)> = paths
            .iter()
            .filter_map(|p| files::score(query, p).map(|s| (s, p)))
            .collect();
        scored.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
        scored
            .into_iter()
            .take(MAX_FILE_CANDIDATES)
            .map(|(_, p)| file_item(p))
            .collect()
    }

    /// The replacement for the selected candidate.
    pub fn accept(&self) -> Option<Accepted> {
        let open = self.open.as_ref()?;
        let item = open.items.get(open.selected)?;
        Some(match open.kind {
            Kind::Command => {
                let name = command_name(item);
                Accepted {
                    start: open.start,
                    text: format!("/{name} "),
                    complete_command: open.query == name,
                    settles: false,
                }
            }
            Kind::Argument => Accepted {
                start: open.start,
                text: item.value.clone(),
                complete_command: false,
                settles: true,
            },
            Kind::File => Accepted {
                start: open.start,
                text: file_reference(&item.value),
                complete_command: false,
                settles: false,
            },
            Kind::Path => {
                let dot = if open.query.starts_with("./") {
                    "./"
                } else {
                    ""
                };
                let reference = file_reference(&format!("{dot}{}", item.value));
                Accepted {
                    start: open.start,
                    text: reference[1..].to_string(),
                    complete_command: false,
                    settles: false,
                }
            }
        })
    }

    /// The popup's lines (none when closed).
    pub fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        self.open.as_ref().map_or_else(Vec::new, |o| {
            popup::render(&o.items, o.selected, self.max_visible, width, theme)
        })
    }
}

/// A path as pi lists it: the name (with `/` for a directory), the path as description.
fn file_item(path: &str) -> CompletionItem {
    let bare = path.trim_end_matches('/');
    let name = bare.rsplit('/').next().unwrap_or(bare);
    let slash = if path.ends_with('/') { "/" } else { "" };
    CompletionItem {
        value: path.to_string(),
        label: format!("{name}{slash}"),
        description: bare.to_string(),
    }
}

/// A command's name as typed after `/`.
fn command_name(item: &CompletionItem) -> &str {
    item.value.strip_prefix('/').unwrap_or(&item.value)
}

/// `@path ` for a file, `@dir/` for a directory (completion continues inside it), quoted when
/// the path holds a space.
fn file_reference(path: &str) -> String {
    match (path.contains(' '), path.ends_with('/')) {
        (false, true) => format!("@{path}"),
        (false, false) => format!("@{path} "),
        (true, true) => format!("@\"{path}"),
        (true, false) => format!("@\"{path}\" "),
    }
}

/// The candidates that match, best first (ties keep their given order).
fn rank(
    items: &[CompletionItem],
    score: impl Fn(&CompletionItem) -> Option<i64>,
) -> Vec<CompletionItem> {
    let mut scored: Vec<(i64, &CompletionItem)> = items
        .iter()
        .filter_map(|i| score(i).map(|s| (s, i)))
        .collect();
    scored.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
    scored.into_iter().map(|(_, i)| i.clone()).collect()
}

/// Which completion the text before the cursor calls for: where it starts and the query.
fn trigger(buf: &Buffer, forced: bool) -> Option<(Kind, usize, String)> {
    let before = &buf.text[..buf.cursor];
    if let Some(q) = before.strip_prefix('/') {
        if !q.contains(char::is_whitespace) {
            return Some((Kind::Command, 0, q.to_string()));
        }
    }
    let line_start = buf.line_start(buf.cursor);
    let line = &before[line_start..];
    for (i, _) in line.match_indices('@').rev() {
        let at_word_start = line[..i]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        let rest = &line[i + 1..];
        if let Some(quoted) = rest.strip_prefix('"') {
            if at_word_start && !quoted.contains('"') {
                return Some((Kind::File, line_start + i, quoted.to_string()));
            }
        } else if !rest.contains(char::is_whitespace) {
            if at_word_start {
                return Some((Kind::File, line_start + i, rest.to_string()));
            }
        } else {
            break;
        }
    }
    let (start, word) = word_before(buf);
    (forced && !word.is_empty()).then(|| (Kind::Path, start, word.to_string()))
}

/// The run of non-blank characters before the cursor and where it starts.
fn word_before(buf: &Buffer) -> (usize, &str) {
    let before = &buf.text[..buf.cursor];
    let start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    (start, &before[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(text: &str) -> Buffer {
        Buffer {
            text: text.into(),
            cursor: text.len(),
        }
    }

    fn trigger_of(b: &Buffer) -> Option<(Kind, usize, String)> {
        trigger(b, false)
    }

    #[test]
    fn forced_path_completion_takes_the_word_before_the_cursor() {
        assert_eq!(
            trigger(&buf("see src/ma"), true),
            Some((Kind::Path, 4, "src/ma".into()))
        );
        assert_eq!(trigger(&buf("see "), true), None);
        assert_eq!(trigger(&buf("see src/ma"), false), None);
    }

    #[test]
    fn triggers() {
        assert_eq!(
            trigger_of(&buf("/mo")),
            Some((Kind::Command, 0, "mo".into()))
        );
        assert_eq!(trigger_of(&buf("/model x")), None);
        assert_eq!(trigger_of(&buf("x /mo")), None);
        assert_eq!(
            trigger_of(&buf("see @src/ma")),
            Some((Kind::File, 4, "src/ma".into()))
        );
        assert_eq!(trigger_of(&buf("a\n@x")), Some((Kind::File, 2, "x".into())));
        assert_eq!(trigger_of(&buf("mail@host")), None);
        assert_eq!(trigger_of(&buf("@a b")), None);
        assert_eq!(
            trigger_of(&buf("@\"my fi")),
            Some((Kind::File, 0, "my fi".into()))
        );
        assert_eq!(trigger_of(&buf("@\"my file\" x")), None);
    }

    #[test]
    fn a_command_that_completes_arguments_offers_what_was_supplied_for_the_prefix() {
        let mut c = Completion::new(PathBuf::from("."));
        c.set_argument_commands(vec!["deploy".into()]);
        assert_eq!(
            c.argument_query(&buf("/deploy st")),
            Some(("deploy".into(), "st".into()))
        );
        assert_eq!(c.argument_query(&buf("/other st")), None);
        assert_eq!(
            c.argument_query(&buf("/deploy")),
            None,
            "no space yet: the name"
        );
        let item = |v: &str| CompletionItem {
            value: v.into(),
            label: v.into(),
            description: String::new(),
        };
        c.refresh(&buf("/deploy st"), true);
        assert!(!c.is_open(), "nothing supplied yet");
        c.set_arguments("deploy".into(), "st".into(), vec![item("staging")]);
        c.refresh(&buf("/deploy st"), false);
        let accepted = c.accept().expect("an item");
        assert_eq!((accepted.start, accepted.text.as_str()), (8, "staging"));
        c.refresh(&buf("/deploy sta"), true);
        assert!(!c.is_open(), "a new prefix waits for its own completions");
    }

    #[test]
    fn file_references_are_quoted_when_needed() {
        assert_eq!(file_reference("src/a.rs"), "@src/a.rs ");
        assert_eq!(file_reference("src/"), "@src/");
        assert_eq!(file_reference("my file.txt"), "@\"my file.txt\" ");
        assert_eq!(file_reference("my dir/"), "@\"my dir/");
    }
}
