//! The session tree flattened into rows for the `/tree` navigator, pi's way: a chain of single
//! children stays at one indentation and only forks indent, with `├─ `/`└─ ` on each branch's
//! first row and `│  ` carrying the lines of branches still open. Entries that carry no
//! conversation (labels, session names, extension state) and tool results (folded into the
//! assistant row that called them) get no row; their children hang from the nearest shown
//! ancestor.

use std::collections::{HashMap, HashSet};

use rho_protocol::agent::AgentMessage;
use rho_protocol::session::{EntryData, SessionEntry};
use rho_protocol::ContentBlock;

/// One line of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    /// The entry's id.
    pub id: String,
    /// Branch glyphs drawn before the text.
    pub prefix: String,
    /// What the entry is, one line (`user: …`, `[compaction]`, …).
    pub text: String,
    /// The entry's label, if one was set.
    pub label: Option<String>,
    /// On the path from the root to the current leaf.
    pub on_path: bool,
    /// The current leaf (or the shown entry nearest above it).
    pub is_leaf: bool,
}

fn flatten(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn message_text(m: &AgentMessage) -> Option<String> {
    Some(match m {
        AgentMessage::User(u) => format!("user: {}", flatten(&u.content.text())),
        AgentMessage::Assistant(a) => {
            let text = flatten(&a.text());
            let tools: Vec<&str> = a
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolCall(c) => Some(c.name.as_str()),
                    _ => None,
                })
                .collect();
            match (text.is_empty(), tools.is_empty()) {
                (false, _) => format!("assistant: {text}"),
                (true, false) => format!("assistant: [tool calls: {}]", tools.join(", ")),
                (true, true) => "assistant: (no text)".to_string(),
            }
        }
        AgentMessage::ToolResult(_) | AgentMessage::System(_) => return None,
        AgentMessage::BashExecution(b) => format!("bash: {}", flatten(&b.command)),
        AgentMessage::Custom(c) => format!("[{}] {}", c.custom_type, flatten(&c.content.text())),
        AgentMessage::BranchSummary(b) => format!("[branch summary] {}", flatten(&b.summary)),
        AgentMessage::CompactionSummary(_) => "[compaction]".to_string(),
    })
}

/// The row text of an entry, or `None` when the entry gets no row.
pub fn entry_text(entry: &SessionEntry) -> Option<String> {
    Some(match &entry.data {
        EntryData::Message(m) => match m.get() {
            Ok(message) => return message_text(&message),
            Err(e) => format!("{}: [{e}]", m.role()),
        },
        EntryData::ThinkingLevelChange { thinking_level } => {
            format!("[thinking: {thinking_level}]")
        }
        EntryData::ModelChange { model_id, .. } => format!("[model: {model_id}]"),
        EntryData::Compaction(_) => "[compaction]".to_string(),
        EntryData::BranchSummary { summary, .. } => {
            format!("[branch summary] {}", flatten(summary))
        }
        EntryData::CustomMessage {
            custom_type,
            content,
            ..
        } => format!("[{custom_type}] {}", flatten(&content.text())),
        EntryData::Custom { .. }
        | EntryData::Label { .. }
        | EntryData::SessionInfo { .. }
        | EntryData::ContextEdit { .. }
        | EntryData::Usage(_) => return None,
        EntryData::Unknown { entry_type, .. } => format!("[{entry_type}]"),
    })
}

/// Labels in effect: the last label entry for each target wins; a cleared label removes it.
fn labels(entries: &[SessionEntry]) -> HashMap<&str, &str> {
    let mut map = HashMap::new();
    for e in entries {
        if let EntryData::Label { target_id, label } = &e.data {
            match label {
                Some(l) => map.insert(target_id.as_str(), l.as_str()),
                None => map.remove(target_id.as_str()),
            };
        }
    }
    map
}

/// Index of the nearest shown entry at or above `start` (following parent ids), if any.
fn shown_at_or_above(
    start: Option<usize>,
    entries: &[SessionEntry],
    index: &HashMap<&str, usize>,
    texts: &[Option<String>],
) -> Option<usize> {
    let mut cursor = start;
    for _ in 0..=entries.len() {
        let i = cursor?;
        if texts[i].is_some() {
            return Some(i);
        }
        cursor = entries[i]
            .parent_id
            .as_deref()
            .and_then(|p| index.get(p).copied());
    }
    None
}

/// Flattens `entries` (any order; parents are found by id) into display rows, depth first in
/// file order. `leaf_id` marks the current position and the path to it.
pub fn tree_rows(entries: &[SessionEntry], leaf_id: Option<&str>) -> Vec<TreeRow> {
    let index: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let texts: Vec<Option<String>> = entries.iter().map(entry_text).collect();
    let parent_of = |i: usize| {
        let p = entries[i]
            .parent_id
            .as_deref()
            .and_then(|p| index.get(p).copied());
        shown_at_or_above(p, entries, &index, &texts)
    };
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for i in (0..entries.len()).filter(|&i| texts[i].is_some()) {
        children.entry(parent_of(i)).or_default().push(i);
    }
    let leaf_at = leaf_id.and_then(|id| index.get(id).copied());
    let leaf = shown_at_or_above(leaf_at, entries, &index, &texts);
    let mut on_path = HashSet::new();
    let mut cursor = leaf;
    while let Some(i) = cursor {
        if !on_path.insert(i) {
            break;
        }
        cursor = parent_of(i);
    }
    let labels = labels(entries);
    let mut rows = Vec::new();
    let mut seen = HashSet::new();
    // (entry, prefix of its row, prefix carried to its descendants)
    let mut stack: Vec<(usize, String, String)> = Vec::new();
    push_children(&mut stack, children.get(&None), "");
    while let Some((i, prefix, carry)) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        rows.push(TreeRow {
            id: entries[i].id.clone(),
            prefix,
            text: texts[i].clone().unwrap_or_default(),
            label: labels.get(entries[i].id.as_str()).map(|l| l.to_string()),
            on_path: on_path.contains(&i),
            is_leaf: leaf == Some(i),
        });
        push_children(&mut stack, children.get(&Some(i)), &carry);
    }
    rows
}

/// Pushes `kids` so the first is popped first: a single child continues the chain at `carry`;
/// several start branches with glyphs.
fn push_children(stack: &mut Vec<(usize, String, String)>, kids: Option<&Vec<usize>>, carry: &str) {
    let Some(kids) = kids else { return };
    if let [only] = kids.as_slice() {
        stack.push((*only, carry.to_string(), carry.to_string()));
        return;
    }
    for (k, &child) in kids.iter().enumerate().rev() {
        let last = k + 1 == kids.len();
        let (glyph, cont) = if last {
            ("└─ ", "   ")
        } else {
            ("├─ ", "│  ")
        };
        stack.push((child, format!("{carry}{glyph}"), format!("{carry}{cont}")));
    }
}
