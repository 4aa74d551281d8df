//! pi's `/resume` picker: the sessions of this folder (or, after Tab, of every folder), newest
//! first as given, each row the session's name or first message with its age and size in
//! messages; typing searches names, first messages and folders.

use std::path::PathBuf;

use crossterm::event::KeyCode;
use rho_protocol::session::SessionSummary;

use super::select_list::{SelectItem, SelectList};
use crate::input::{Dialog, DialogAction, Input};
use crate::keymap::Keymap;
use crate::theme::Theme;

/// Which sessions the picker lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionScope {
    /// Sessions of the current working directory.
    CurrentFolder,
    /// Sessions of every project.
    All,
}

impl SessionScope {
    fn label(self) -> &'static str {
        match self {
            SessionScope::CurrentFolder => "Current folder",
            SessionScope::All => "All",
        }
    }
}

/// `5m ago`, `2h ago`, `3d ago` (`just now` under a minute) for a time `now_ms - at_ms` ago.
pub fn relative_age(at_ms: i64, now_ms: i64) -> String {
    let secs = (now_ms - at_ms).max(0) / 1000;
    match secs {
        0..=59 => "just now".to_string(),
        60..=3599 => format!("{}m ago", secs / 60),
        3600..=86_399 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

/// Picks a session; yields its file path.
#[derive(Debug, Clone)]
pub struct SessionPicker {
    current: Vec<SessionSummary>,
    all: Vec<SessionSummary>,
    scope: SessionScope,
    now_ms: i64,
    list: SelectList,
}

/// Whitespace runs (line breaks included) collapsed to single spaces.
fn flatten(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn title_of(s: &SessionSummary) -> String {
    let text = s
        .name
        .as_deref()
        .or(s.first_message.as_deref())
        .unwrap_or("");
    match flatten(text) {
        t if t.is_empty() => "(no messages)".to_string(),
        t => t,
    }
}

impl SessionPicker {
    /// A picker over this folder's sessions and every folder's, each in the order given (the
    /// listing's newest-first). Starts on the current folder unless it has no sessions. `now_ms`
    /// is the time ages are measured from (Unix ms), passed in so renders are reproducible.
    pub fn new(
        current_project: Vec<SessionSummary>,
        all: Vec<SessionSummary>,
        now_ms: i64,
    ) -> Self {
        let scope = if current_project.is_empty() && !all.is_empty() {
            SessionScope::All
        } else {
            SessionScope::CurrentFolder
        };
        let mut picker = Self {
            current: current_project,
            all,
            scope,
            now_ms,
            list: SelectList::new("", Vec::new())
                .with_aligned_descriptions()
                .with_hint("↑↓ navigate · tab scope · enter resume · esc cancel"),
        };
        picker.fill();
        picker
    }

    /// The scope being shown.
    pub fn scope(&self) -> SessionScope {
        self.scope
    }

    /// The list underneath (for its query and selection).
    pub fn list(&self) -> &SelectList {
        &self.list
    }

    fn sessions(&self) -> &[SessionSummary] {
        match self.scope {
            SessionScope::CurrentFolder => &self.current,
            SessionScope::All => &self.all,
        }
    }

    fn fill(&mut self) {
        let all = self.scope == SessionScope::All;
        let mut items = Vec::new();
        let mut keys = Vec::new();
        for s in self.sessions() {
            let count = match s.message_count {
                1 => "1 msg".to_string(),
                n => format!("{n} msgs"),
            };
            let mut desc = format!("{} · {count}", relative_age(s.modified_ms, self.now_ms));
            if all && !s.header.cwd.is_empty() {
                desc.push_str(&format!(" · {}", s.header.cwd));
            }
            let label = title_of(s);
            let first = s.first_message.as_deref().map(flatten).unwrap_or_default();
            keys.push(format!("{label} {first} {}", s.header.cwd));
            items.push(SelectItem::new(label, desc));
        }
        self.list.set_items(items, keys);
        self.list
            .set_title(format!("Resume session · {}", self.scope.label()));
    }
}

impl Dialog for SessionPicker {
    type Output = PathBuf;

    fn handle(&mut self, input: &Input, keys: &Keymap) -> DialogAction<PathBuf> {
        if input.is_plain(KeyCode::Tab) {
            self.scope = match self.scope {
                SessionScope::CurrentFolder => SessionScope::All,
                SessionScope::All => SessionScope::CurrentFolder,
            };
            self.fill();
            return DialogAction::Pending;
        }
        match self.list.handle_key(input, keys) {
            DialogAction::Done(i) => match self.sessions().get(i) {
                Some(s) => DialogAction::Done(s.path.clone()),
                None => DialogAction::Pending,
            },
            DialogAction::Cancelled => DialogAction::Cancelled,
            DialogAction::Pending => DialogAction::Pending,
        }
    }

    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        self.list.render(width, theme)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        let now = 10_000_000_000;
        assert_eq!(relative_age(now - 30_000, now), "just now");
        assert_eq!(relative_age(now - 5 * 60_000, now), "5m ago");
        assert_eq!(relative_age(now - 2 * 3_600_000, now), "2h ago");
        assert_eq!(relative_age(now - 3 * 86_400_000, now), "3d ago");
        assert_eq!(relative_age(now + 1000, now), "just now");
    }
}
