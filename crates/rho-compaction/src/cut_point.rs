//! Where to cut the history (COMP-18): keep roughly `keepRecentTokens` of the newest
//! messages, never start the kept part at a tool result (it would lose its tool call), and
//! note when the cut falls inside a turn so the turn's beginning can be summarised apart.

use rho_agent::AgentMessage;

use super::entry::{EntryKind, PathEntry};
use super::tokens::estimate_tokens;

/// The chosen cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Index of the first entry kept verbatim.
    pub first_kept_index: usize,
    /// When the cut splits a turn: index of the entry that started that turn.
    pub turn_start_index: Option<usize>,
}

impl CutPoint {
    /// Whether the cut falls inside a turn.
    pub fn is_split_turn(&self) -> bool {
        self.turn_start_index.is_some()
    }
}

/// Whether the kept history may start at this entry: any message but a tool result or a
/// pi 1.x system message (the compaction carries the prompt), and `custom_message` /
/// `branch_summary` entries (they reach the model as user messages).
pub fn is_valid_cut(entry: &PathEntry) -> bool {
    match &entry.kind {
        EntryKind::Message(m) => {
            !matches!(m, AgentMessage::ToolResult(_) | AgentMessage::System(_))
        }
        EntryKind::CustomMessage(_) | EntryKind::BranchSummary { .. } => true,
        EntryKind::Compaction(_) | EntryKind::Other => false,
    }
}

/// Whether a turn starts at this entry: a user or bash message, a `custom_message` or a
/// `branch_summary` entry.
pub fn starts_turn(entry: &PathEntry) -> bool {
    match &entry.kind {
        EntryKind::Message(m) => {
            matches!(m, AgentMessage::User(_) | AgentMessage::BashExecution(_))
        }
        EntryKind::CustomMessage(_) | EntryKind::BranchSummary { .. } => true,
        EntryKind::Compaction(_) | EntryKind::Other => false,
    }
}

/// The nearest turn start at or before `index`, not before `start`.
pub fn find_turn_start(path: &[PathEntry], index: usize, start: usize) -> Option<usize> {
    (start..=index).rev().find(|&i| starts_turn(&path[i]))
}

/// Chooses the cut inside `path[start..end]`. Walks back from the newest `message` entry
/// summing ⌈chars/4⌉ until the sum reaches `keep_recent_tokens`, then cuts at the first
/// valid point at or after that entry (default: the first valid point at all), then pulls in
/// directly preceding entries until a `message` or `compaction` entry.
pub fn find_cut_point(
    path: &[PathEntry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let cut_points: Vec<usize> = (start..end).filter(|&i| is_valid_cut(&path[i])).collect();
    let Some(&first_valid) = cut_points.first() else {
        return CutPoint {
            first_kept_index: start,
            turn_start_index: None,
        };
    };
    let mut cut = first_valid;
    let mut accumulated = 0;
    for i in (start..end).rev() {
        let Some(message) = path[i].as_message() else {
            continue;
        };
        accumulated += estimate_tokens(message);
        if accumulated >= keep_recent_tokens {
            if let Some(&c) = cut_points.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    while cut > start {
        match path[cut - 1].kind {
            EntryKind::Message(_) | EntryKind::Compaction(_) => break,
            _ => cut -= 1,
        }
    }
    let turn_start_index = if path[cut].is_user_message() {
        None
    } else {
        find_turn_start(path, cut, start)
    };
    CutPoint {
        first_kept_index: cut,
        turn_start_index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use serde_json::json;

    fn cut(path: &[PathEntry], keep: u64) -> CutPoint {
        find_cut_point(path, 0, path.len(), keep)
    }

    #[test]
    fn small_session_keeps_from_the_first_valid_point() {
        let path = vec![
            other("model"),
            msg("u1", user("hello")),
            msg("a1", assistant("hi", 10)),
        ];
        let c = cut(&path, 20_000);
        // The leading non-message entry is pulled in.
        assert_eq!(c.first_kept_index, 0);
        assert!(!c.is_split_turn());
    }

    #[test]
    fn cuts_at_a_user_message_when_the_budget_is_reached_there() {
        let path = vec![
            msg("u1", user(&chars(400))),
            msg("a1", assistant(&chars(400), 10)),
            msg("u2", user(&chars(400))),
            msg("a2", assistant(&chars(400), 10)),
        ];
        // 100 tokens each; walking back: a2 100, u2 200 >= 200 → cut at u2.
        let c = cut(&path, 200);
        assert_eq!(c.first_kept_index, 2);
        assert!(!c.is_split_turn());
    }

    #[test]
    fn never_starts_at_a_tool_result() {
        let path = vec![
            msg("u1", user(&chars(40))),
            msg(
                "a1",
                assistant_with(vec![tool_call("t1", "read", json!({"path":"x"}))], 10),
            ),
            msg("r1", tool_result("t1", &chars(4000))),
            msg("a2", assistant(&chars(40), 10)),
        ];
        // a2 10, r1 1000 ≥ 500 → budget reached at the tool result; the next valid point
        // after it is a2, so the result stays with its call in the summarised part.
        let c = cut(&path, 500);
        assert_eq!(c.first_kept_index, 3);
        assert_ne!(c.first_kept_index, 2);
        // a2 is an assistant inside the turn started by u1: split turn.
        assert_eq!(c.turn_start_index, Some(0));
        assert!(c.is_split_turn());
    }

    #[test]
    fn cutting_at_an_assistant_with_tool_calls_keeps_its_results() {
        let path = vec![
            msg("u1", user(&chars(40))),
            msg("a1", assistant(&chars(4000), 10)),
            msg(
                "a2",
                assistant_with(vec![tool_call("t1", "read", json!({"path":"x"}))], 10),
            ),
            msg("r1", tool_result("t1", &chars(40))),
        ];
        // r1 10, a2 ~6, a1 1000 → budget reached at a1 (valid) → cut there.
        let c = cut(&path, 500);
        assert_eq!(c.first_kept_index, 1);
        assert_eq!(c.turn_start_index, Some(0));
        for e in &path[..c.first_kept_index] {
            assert!(!matches!(e.as_message(), Some(AgentMessage::ToolResult(_))));
        }
    }

    #[test]
    fn one_huge_turn_is_split() {
        let mut path = vec![msg("u1", user("do it"))];
        for i in 0..10 {
            path.push(msg(
                &format!("a{i}"),
                assistant_with(vec![tool_call(&format!("t{i}"), "bash", json!({}))], 10),
            ));
            path.push(msg(
                &format!("r{i}"),
                tool_result(&format!("t{i}"), &chars(400)),
            ));
        }
        let c = cut(&path, 250);
        assert!(c.is_split_turn());
        assert_eq!(c.turn_start_index, Some(0));
        assert!(matches!(
            path[c.first_kept_index].as_message(),
            Some(AgentMessage::Assistant(_))
        ));
        // Walking back r9, a9, r8, a8, r7 reaches 304 ≥ 250 at r7 (index 16); the first
        // valid point at or after it is a8 (index 17). pi keeps less than the budget here.
        assert_eq!(c.first_kept_index, 17);
    }

    #[test]
    fn pulls_in_preceding_non_message_entries_but_stops_at_compaction() {
        let path = vec![
            msg("u1", user(&chars(400))),
            compaction_entry("c", "S", "u1", json!({})),
            other("model"),
            other("label"),
            msg("u2", user(&chars(400))),
        ];
        let c = find_cut_point(&path, 0, path.len(), 100);
        assert_eq!(c.first_kept_index, 2);
        // The kept entry is not a user message and a turn start exists before it.
        assert_eq!(c.turn_start_index, Some(0));
    }

    #[test]
    fn custom_message_entries_are_cut_points_and_turn_starts() {
        let path = vec![
            msg("u1", user(&chars(400))),
            msg("a1", assistant(&chars(400), 10)),
            custom_entry("c1", &chars(400)),
            msg("a2", assistant(&chars(400), 10)),
        ];
        // custom_message entries are not counted in the walk: a2 100, a1 200 → cut at a1.
        let c = cut(&path, 200);
        assert_eq!(c.first_kept_index, 1);
        assert_eq!(c.turn_start_index, Some(0));
        assert!(is_valid_cut(&path[2]));
        assert!(starts_turn(&path[2]));
    }

    #[test]
    fn bash_execution_starts_a_turn() {
        let path = vec![
            msg("u1", user(&chars(400))),
            msg("b1", bash("ls", &chars(400))),
            msg("a1", assistant(&chars(400), 10)),
        ];
        let c = cut(&path, 100);
        assert_eq!(c.first_kept_index, 2);
        assert_eq!(c.turn_start_index, Some(1));
    }

    #[test]
    fn no_valid_point_keeps_from_start() {
        let path = vec![other("a"), other("b")];
        let c = cut(&path, 10);
        assert_eq!(c.first_kept_index, 0);
        assert!(!c.is_split_turn());
    }
}
