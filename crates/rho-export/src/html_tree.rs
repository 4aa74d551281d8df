//! The session tree for the page: every branch, walked depth first. A linear run of entries
//! stays at one indentation and each branch point indents its branches, as pi's `/tree` shows
//! them. Entries a reader never sees (labels, names, extension state) are skipped, their
//! children attached to the nearest shown ancestor.

use std::collections::{HashMap, HashSet};

use rho_protocol::agent::AgentMessage;
use rho_protocol::ContentBlock;
use rho_session::{EntryData, SessionEntry, SessionTree};

use super::html_entry::{render, Calls};

/// One shown entry in walk order.
pub struct Node<'a> {
    /// The entry.
    pub entry: &'a SessionEntry,
    /// The nearest shown ancestor.
    pub parent: Option<&'a str>,
    /// Indentation in the tree view.
    pub depth: usize,
    /// Its section's class and body.
    pub class: &'static str,
    /// Its section's body.
    pub body: String,
}

/// Shown entries depth first (children in file order), with what the page needs of each.
pub fn walk<'a>(tree: &'a SessionTree, calls: &Calls) -> Vec<Node<'a>> {
    let children = tree.child_index();
    let mut rendered: HashMap<&str, (&'static str, String)> = HashMap::new();
    for entry in tree.entries() {
        if let Some(r) = render(entry, calls) {
            rendered.insert(entry.id.as_str(), r);
        }
    }
    let shown: HashSet<&str> = rendered.keys().copied().collect();
    let shown_children = |id: Option<&'a str>| -> Vec<&'a SessionEntry> {
        let mut out = Vec::new();
        let mut pending: Vec<&SessionEntry> = children.get(&id).cloned().unwrap_or_default();
        pending.reverse();
        let mut seen = HashSet::new();
        while let Some(e) = pending.pop() {
            if !seen.insert(e.id.as_str()) {
                continue; // a parent cycle in a hand-edited file
            }
            if shown.contains(e.id.as_str()) {
                out.push(e);
            } else if let Some(kids) = children.get(&Some(e.id.as_str())) {
                pending.extend(kids.iter().rev());
            }
        }
        out
    };
    let mut nodes = Vec::new();
    let mut stack: Vec<(&SessionEntry, Option<&str>, usize)> = Vec::new();
    let roots = shown_children(None);
    let root_depth = usize::from(roots.len() > 1);
    stack.extend(roots.into_iter().rev().map(|e| (e, None, root_depth)));
    let mut visited = HashSet::new();
    while let Some((entry, parent, depth)) = stack.pop() {
        if !visited.insert(entry.id.as_str()) {
            continue;
        }
        let kids = shown_children(Some(entry.id.as_str()));
        let kid_depth = depth + usize::from(kids.len() > 1);
        stack.extend(
            kids.into_iter()
                .rev()
                .map(|k| (k, Some(entry.id.as_str()), kid_depth)),
        );
        let Some((class, body)) = rendered.remove(entry.id.as_str()) else {
            continue;
        };
        nodes.push(Node {
            entry,
            parent,
            depth,
            class,
            body,
        });
    }
    nodes
}

/// The one-line text of a node in the tree view.
pub fn row_text(entry: &SessionEntry, calls: &Calls) -> String {
    let text = match &entry.data {
        EntryData::Message(m) => match m.get() {
            Err(e) => e.to_string(),
            Ok(m) => message_row(&m, calls),
        },

        EntryData::ModelChange { provider, model_id } => format!("Model: {provider}/{model_id}"),
        EntryData::ThinkingLevelChange { thinking_level } => format!("Thinking: {thinking_level}"),
        EntryData::Compaction(_) => "Compaction".into(),
        EntryData::BranchSummary { .. } => "Branch summary".into(),
        EntryData::CustomMessage { custom_type, .. } => format!("[{custom_type}]"),
        other => other.type_name().to_string(),
    };
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut short: String = line.chars().take(100).collect();
    if line.chars().count() > 100 {
        short.push('…');
    }
    short
}

/// The row text of a message.
fn message_row(m: &AgentMessage, calls: &Calls) -> String {
    match m {
        AgentMessage::System(s) if super::html_entry::system_starts_prompt(s) => {
            "System prompt".to_string()
        }
        AgentMessage::System(_) => "System prompt update".to_string(),
        AgentMessage::User(u) => format!("User: {}", u.content.text()),
        AgentMessage::Assistant(a) => {
            let text = a.text();
            if !text.trim().is_empty() {
                format!("Assistant: {text}")
            } else {
                let tools: Vec<&str> = a
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ToolCall(c) => Some(c.name.as_str()),
                        _ => None,
                    })
                    .collect();
                match (tools.is_empty(), &a.error_message) {
                    (false, _) => format!("Assistant: [{}]", tools.join(", ")),
                    (true, Some(e)) => format!("Assistant: ({e})"),
                    (true, None) => "Assistant".to_string(),
                }
            }
        }
        AgentMessage::ToolResult(t) => {
            format!("→ {}", calls.get(&t.tool_call_id).unwrap_or(&t.tool_name))
        }
        AgentMessage::BashExecution(b) => format!("$ {}", b.command),
        AgentMessage::Custom(c) => format!("[{}]", c.custom_type),
        AgentMessage::BranchSummary(_) => "Branch summary".into(),
        AgentMessage::CompactionSummary(_) => "Compaction summary".into(),
    }
}
