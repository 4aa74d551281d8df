//! How the `/resume` picker draws, after pi 1.6: an accent rule; the title with the scope,
//! name filter and sort on the right; two hint lines (or the delete question, or a status);
//! the search line; one row per session (`› ` on the selected one, tree glyphs, the name or
//! first message, and on the right the path, the folder, the message count and the age); a
//! rule. Renaming replaces it all with a one-line prompt.

use std::path::Path;

use super::{Mode, SessionPicker, SessionScope};
use crate::ansi::{truncate_to_width, truncate_with_ellipsis, visible_width};
use crate::dialogs::frame::edit_line;
use crate::theme::{bold, Theme};

/// pi's short age: `now`, `5m`, `3h`, `2d`, `1w`, `4mo`, `1y`.
pub fn session_age(at_ms: i64, now_ms: i64) -> String {
    let mins = (now_ms - at_ms).max(0) / 60_000;
    let (hours, days) = (mins / 60, mins / 1440);
    match () {
        _ if mins < 1 => "now".into(),
        _ if mins < 60 => format!("{mins}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// `path` with the home folder written `~`.
fn shorten(path: &str, home: Option<&Path>) -> String {
    let Some(home) = home else {
        return path.to_string();
    };
    match Path::new(path).strip_prefix(home) {
        Ok(rest) if rest.as_os_str().is_empty() => "~".into(),
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.to_string(),
    }
}

/// A key and what it does, as pi's hints show them (key dim, words muted).
fn hint(t: &Theme, key: &str, what: &str) -> String {
    format!(
        "{}{}",
        t.fg(t.colors.dim, key),
        t.fg(t.colors.muted, &format!(" {what}"))
    )
}

pub(super) fn render(p: &SessionPicker, width: usize, t: &Theme) -> Vec<String> {
    let rule = t.fg(t.colors.accent, &"─".repeat(width));
    let mut out = vec![String::new(), rule.clone(), String::new()];
    if let Mode::Rename(_, edit) = &p.mode {
        out.push(format!(" {}", bold("Rename Session")));
        out.push(String::new());
        let room = width.saturating_sub(2).max(1);
        out.push(format!(
            "{}{}",
            t.fg(t.colors.accent, "> "),
            edit_line(edit.chars(), edit.cursor(), room)
        ));
        out.push(String::new());
        let keys = &p.keys;
        let help = format!("{} to save · {} to cancel", keys.confirm, keys.cancel);
        out.push(format!(" {}", t.fg(t.colors.muted, &help)));
    } else {
        out.extend(header(p, width, t));
        out.push(String::new());
        out.extend(list(p, width, t));
    }
    out.push(String::new());
    out.push(rule);
    out.into_iter()
        .map(|l| truncate_to_width(&l, width))
        .collect()
}

/// The title line and the two hint lines.
fn header(p: &SessionPicker, width: usize, t: &Theme) -> Vec<String> {
    let c = &t.colors;
    let title = match p.scope {
        SessionScope::CurrentFolder => "Resume Session (Current Folder)",
        SessionScope::All => "Resume Session (All)",
    };
    let scope = match p.scope {
        SessionScope::CurrentFolder => format!(
            "{}{}",
            t.fg(c.accent, "◉ Current Folder"),
            t.fg(c.muted, " | ○ All")
        ),
        SessionScope::All => format!(
            "{}{}",
            t.fg(c.muted, "○ Current Folder | "),
            t.fg(c.accent, "◉ All")
        ),
    };
    let name = if p.named_only { "Named" } else { "All" };
    let right = format!(
        "{scope}  {}{}  {}{}",
        t.fg(c.muted, "Name: "),
        t.fg(c.accent, name),
        t.fg(c.muted, "Sort: "),
        t.fg(c.accent, p.sort.label())
    );
    let right = truncate_to_width(&right, width);
    let room = width.saturating_sub(visible_width(&right) + 1);
    let left = truncate_to_width(&bold(title), room);
    let gap = width.saturating_sub(visible_width(&left) + visible_width(&right));
    let first = format!("{left}{}{right}", " ".repeat(gap));
    let keys = &p.keys;
    let (one, two) = if let Mode::ConfirmDelete(_) = p.mode {
        let ask = format!(
            "Delete session? {} · {}",
            hint(t, &keys.confirm, "confirm"),
            hint(t, &keys.cancel, "cancel")
        );
        (
            t.fg(c.error, &truncate_with_ellipsis(&ask, width)),
            String::new(),
        )
    } else if let Some((text, error)) = &p.status {
        let color = if *error { c.error } else { c.accent };
        (
            t.fg(color, &truncate_with_ellipsis(text, width)),
            String::new(),
        )
    } else {
        let sep = t.fg(c.muted, " · ");
        let one = format!(
            "{}{sep}{}",
            hint(t, &keys.tab, "scope"),
            t.fg(c.muted, "re:<pattern> regex · \"phrase\" exact")
        );
        let state = if p.show_path { "(on)" } else { "(off)" };
        let mut parts = vec![
            hint(t, &keys.sort, "sort"),
            hint(t, &keys.named, "named"),
            hint(t, &keys.delete, "delete"),
            hint(t, &keys.path, &format!("path {state}")),
        ];
        if p.rename_hint {
            parts.push(hint(t, &keys.rename, "rename"));
        }
        (
            truncate_with_ellipsis(&one, width),
            truncate_with_ellipsis(&parts.join(&sep), width),
        )
    };
    vec![first, one, two]
}

/// The search line, a blank, the rows and the position when they scroll.
fn list(p: &SessionPicker, width: usize, t: &Theme) -> Vec<String> {
    let c = &t.colors;
    let chars = p.query.chars();
    let mut out = vec![
        format!(
            "{}{}",
            t.fg(c.accent, "> "),
            edit_line(chars, p.query.cursor(), width.saturating_sub(2).max(1))
        ),
        String::new(),
    ];
    if p.rows.is_empty() {
        let empty = match (p.named_only, p.scope) {
            (true, SessionScope::All) => format!(
                "  No named sessions found. Press {} to show all.",
                p.keys.named
            ),
            (true, SessionScope::CurrentFolder) => format!(
                "  No named sessions in current folder. Press {} to show all, or Tab to view all.",
                p.keys.named
            ),
            (false, SessionScope::All) => "  No sessions found".into(),
            (false, SessionScope::CurrentFolder) => {
                "  No sessions in current folder. Press Tab to view all.".into()
            }
        };
        out.push(t.fg(c.muted, &truncate_with_ellipsis(&empty, width)));
        return out;
    }
    let n = p.rows.len();
    let start = p
        .selected
        .saturating_sub(p.max_rows / 2)
        .min(n.saturating_sub(p.max_rows));
    let end = (start + p.max_rows).min(n);
    for i in start..end {
        out.push(row(p, i, width, t));
    }
    if start > 0 || end < n {
        let pos = format!("  ({}/{n})", p.selected + 1);
        out.push(t.fg(c.muted, &truncate_to_width(&pos, width)));
    }
    out
}

/// One session's row.
fn row(p: &SessionPicker, i: usize, width: usize, t: &Theme) -> String {
    let c = &t.colors;
    let r = &p.rows[i];
    let s = &p.sessions()[r.index];
    let selected = i == p.selected;
    let deleting = matches!(&p.mode, Mode::ConfirmDelete(path) if *path == s.path);
    let active = p.is_active(&s.path);
    let named = s.name.is_some();
    let text = s
        .name
        .as_deref()
        .or(s.first_message.as_deref())
        .unwrap_or("");
    let text: String = text
        .chars()
        .map(|ch| if ch.is_control() { ' ' } else { ch })
        .collect();
    let text = text.trim();
    let home = p.home.as_deref();
    let mut right = format!(
        "{} {}",
        s.message_count,
        session_age(s.modified_ms, p.now_ms)
    );
    if p.scope == SessionScope::All && !s.header.cwd.is_empty() {
        right = format!("{} {right}", shorten(&s.header.cwd, home));
    }
    if p.show_path {
        right = format!("{} {right}", shorten(&s.path.display().to_string(), home));
    }
    let prefix = r.prefix();
    let room = width
        .saturating_sub(2 + visible_width(&prefix) + visible_width(&right) + 2)
        .max(10);
    let mut message = truncate_with_ellipsis(text, room);
    let color = if deleting {
        Some(c.error)
    } else if active {
        Some(c.accent)
    } else if named {
        Some(c.warning)
    } else {
        None
    };
    if let Some(color) = color {
        message = t.fg(color, &message);
    }
    if selected {
        message = bold(&message);
    }
    let cursor = if selected {
        t.fg(c.accent, "› ")
    } else {
        "  ".to_string()
    };
    let left = format!("{cursor}{}{message}", t.fg(c.dim, &prefix));
    let gap = width
        .saturating_sub(visible_width(&left) + visible_width(&right))
        .max(1);
    let right = t.fg(if deleting { c.error } else { c.dim }, &right);
    let line = truncate_with_ellipsis(&format!("{left}{}{right}", " ".repeat(gap)), width);
    if selected {
        t.bg(c.selected_bg, &line)
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_home_paths_as_pi_writes_them() {
        let now = 10_000_000_000;
        let ago = |mins: i64| session_age(now - mins * 60_000, now);
        assert_eq!(ago(0), "now");
        assert_eq!(ago(5), "5m");
        assert_eq!(ago(3 * 60), "3h");
        assert_eq!(ago(2 * 1440), "2d");
        assert_eq!(ago(14 * 1440), "2w");
        assert_eq!(ago(61 * 1440), "2mo");
        assert_eq!(ago(800 * 1440), "2y");
        let home = Some(Path::new("/home/me"));
        assert_eq!(shorten("/home/me/rho", home), "~/rho");
        assert_eq!(shorten("/home/me", home), "~");
        assert_eq!(shorten("/tmp/x", home), "/tmp/x");
    }
}
